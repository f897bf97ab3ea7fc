// The sentence (claim) an inline citation marker stands for, as a DOM Range over the
// rendered answer, so the chat can highlight it (CSS Custom Highlight API: no change to
// the answer's DOM, which Svelte owns).

import { markerOffsets } from './claims';
import type { Citation, Claim } from './types';

/** Elements a sentence does not run across. */
const BLOCK = 'p, li, td, th, blockquote, h1, h2, h3, h4, h5, h6, pre, dd, dt, [data-testid=answer-body]';

type Seg = { node: Text; start: number; text: string };

/** The text before `marker` within its block, as segments (citation markers left out). */
function textBefore(marker: Element): { segs: Seg[]; text: string } | null {
  const block = marker.closest(BLOCK);
  if (!block) return null;
  const group = marker.closest('.cite-group') ?? marker;
  const doc = block.ownerDocument;
  const walker = doc.createTreeWalker(block, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => ((n.parentElement?.closest('.cite-group') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT)),
  });
  const segs: Seg[] = [];
  let text = '';
  for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
    // Stop at the marker: only what comes before it belongs to its sentence.
    if (group.compareDocumentPosition(n) & Node.DOCUMENT_POSITION_FOLLOWING) break;
    segs.push({ node: n, start: text.length, text: n.data });
    text += n.data;
  }
  return { segs, text };
}

const squashSpace = (s: string) => s.replace(/\s+/g, ' ');

/**
 * The answer text of a claim with Markdown and markers taken out, as it reads on screen
 * (roughly: enough to find where the sentence starts).
 */
export function plainClaim(md: string): string {
  return squashSpace(
    md
      .replace(/\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]/g, '')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/^\s*(?:[-*+>]|\d+[.)]|#{1,6})\s+/gm, '')
      .replace(/[*_`~]/g, ''),
  ).trim();
}

/** Where the sentence ending at the end of `text` starts (after the previous sentence's end). */
function sentenceStart(text: string, hint: string): number {
  // The claim's own first words, searched for backwards, place it best.
  const words = hint.split(' ').slice(0, 4).join(' ');
  if (words.length >= 6) {
    const i = squashSpace(text).lastIndexOf(words);
    if (i >= 0) return mapSquashed(text, i);
  }
  const body = text.replace(/[\s.!?;:]+$/, '');
  let start = 0;
  for (const m of body.matchAll(/[.!?]["'”’)\]]?\s+/g)) start = m.index + m[0].length;
  return start;
}

/** Maps an offset in the space-squashed text back to the original. */
function mapSquashed(text: string, at: number): number {
  let j = 0;
  for (let i = 0; i < text.length; i++) {
    if (j === at) return i;
    if (/\s/.test(text[i])) {
      while (i + 1 < text.length && /\s/.test(text[i + 1])) i++;
    }
    j++;
  }
  return text.length;
}

function pointAt(segs: Seg[], at: number): [Text, number] {
  for (const s of segs) if (at <= s.start + s.text.length) return [s.node, at - s.start];
  const last = segs[segs.length - 1];
  return [last.node, last.text.length];
}

/**
 * The Range of the sentence a marker cites from: from where the sentence starts to just
 * before the marker, trimmed. `claimText` (the claim's own words, see claimFor) places the
 * start where the answer's claims know it; without it the previous sentence end does.
 */
export function claimRange(marker: Element, claimText = ''): Range | null {
  const before = textBefore(marker);
  if (!before || !before.segs.length) return null;
  const { segs, text } = before;
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1])) end--;
  let start = sentenceStart(text.slice(0, end), claimText);
  while (start < end && /\s/.test(text[start])) start++;
  if (start >= end) return null;
  const range = marker.ownerDocument.createRange();
  range.setStart(...pointAt(segs, start));
  range.setEnd(...pointAt(segs, end));
  return range;
}

/** The words of the claim holding the k-th marker of citation n, or '' when unknown. */
export function claimFor(text: string, claims: Claim[] | undefined, citations: Citation[], n: number, k: number): string {
  if (!claims?.length) return '';
  const ns = new Set(citations.map((c, i) => (c.n > 0 ? c.n : i + 1)));
  const hit = markerOffsets(text, (x) => ns.has(x)).filter((h) => h.n === n)[k];
  if (!hit) return '';
  const claim = claims.find((c) => c.start <= hit.at && hit.at <= c.end);
  if (!claim) return '';
  return plainClaim(Array.from(text).slice(claim.start, claim.end).join(''));
}
