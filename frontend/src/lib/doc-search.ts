// Search within a PDF in the viewer: every occurrence of a query on a page, whether the
// page's text comes from pdf.js's text layer (items) or from OCR words (a scanned page).
// Comparison ignores case, white space and hyphens (keyOf), so a query matches across
// the text runs pdf.js splits lines into and across a hyphenated line end.

import { keyOf, type Range } from './highlight';
import type { OcrWord, Span } from './ocr-rects';

/** One occurrence: its ranges in the items, in order. */
export type Match = Range[];

/** Every occurrence of `query` in `items` (at most `limit`), as per-item ranges. */
export function findAll(items: string[], query: string, limit = 500): Match[] {
  const q = keyOf([query]).chars;
  if (q.length === 0) return [];
  const page = keyOf(items);
  const t = page.chars;
  const out: Match[] = [];
  for (let i = 0; i + q.length <= t.length && out.length < limit; i++) {
    let k = 0;
    while (k < q.length && t[i + k] === q[k]) k++;
    if (k < q.length) continue;
    const ranges: Range[] = [];
    for (let j = i; j < i + q.length; j++) {
      const it = page.item[j];
      const off = page.offset[j];
      const end = off + (items[it].codePointAt(off)! > 0xffff ? 2 : 1);
      const prev = ranges[ranges.length - 1];
      if (prev && prev.item === it && off <= prev.end + 2) prev.end = Math.max(prev.end, end);
      else ranges.push({ item: it, start: off, end });
    }
    out.push(ranges);
    i += q.length - 1; // occurrences do not overlap
  }
  return out;
}

/** Ranges in OCR words (items = word texts) as spans of the page text (code points). */
export function wordSpans(words: OcrWord[], ranges: Range[]): Span[] {
  const cp = (s: string) => [...s].length;
  return ranges.map((r) => {
    const w = words[r.item];
    return { start: w.start + cp(w.text.slice(0, r.start)), end: w.start + cp(w.text.slice(0, r.end)) };
  });
}
