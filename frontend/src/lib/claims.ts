// Which supporting span a clicked citation marker stands for.
//
// `answer:done` (and GetSession) carry `claims`: each sentence of the answer, by its
// character (code point) offsets, with, for every passage it cites, the sentence of that
// passage supporting it. A marker button knows its number and which occurrence of that
// number it is in the answer (data-k, see linkCitations); the same occurrence is found in
// the answer text, and the claim whose sentence holds it gives the span.

import type { Citation, Claim, ClaimSpan } from './types';

const MARKER = /\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]/g;

/** Code point offset of each citation number in the answer's markers, in order. */
export function markerOffsets(text: string, known: (n: number) => boolean): { n: number; at: number }[] {
  const out: { n: number; at: number }[] = [];
  let units = 0;
  let runes = 0;
  const toRunes = (u: number) => {
    for (; units < u; units++) {
      const c = text.charCodeAt(units);
      if (!(c >= 0xdc00 && c <= 0xdfff && units > 0)) runes++;
    }
    return runes;
  };
  MARKER.lastIndex = 0;
  for (let m = MARKER.exec(text); m; m = MARKER.exec(text)) {
    const nums = m[1].split(/\s*[,;]\s*/).map(Number);
    if (!nums.some(known)) continue;
    const at = toRunes(m.index);
    for (const n of nums) if (known(n)) out.push({ n, at });
  }
  return out;
}

/**
 * The span supporting the `k`-th (0-based) marker of citation `n` in `text`, or null
 * when the claims do not say (no claims yet, an unsupported sentence, another answer).
 */
export function spanForMarker(text: string, claims: Claim[] | undefined, citations: Citation[], n: number, k: number): ClaimSpan | null {
  if (!claims?.length || k < 0) return null;
  const ns = new Set(citations.map((c, i) => (c.n > 0 ? c.n : i + 1)));
  const hits = markerOffsets(text, (x) => ns.has(x)).filter((h) => h.n === n);
  const hit = hits[k];
  if (!hit) return null;
  const claim = claims.find((c) => c.start <= hit.at && hit.at <= c.end);
  const span = claim?.spans.find((s) => s.n === n);
  return span && span.end > span.start ? span : null;
}
