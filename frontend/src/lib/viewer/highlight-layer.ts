// Highlighting the cited passage on a drawn PDF page: over pdf.js's text layer runs, or,
// on a scanned page, as rectangles over the OCR word boxes; and what the bar over the
// page says of it. Pure DOM building: the page drawing decides when (render.svelte.ts).

import type { PageViewport } from 'pdfjs-dist';
import { findPassage, splitByRanges } from '../highlight';
import { passageSpans, spanRects, type PageWords } from '../ocr-rects';

export type Focus = { start: number; end: number; quote: string } | null;
export type HighlightState = 'none' | 'found' | 'partial' | 'missing';

/** The cited passage, its supporting sentence, and the pages it is on. */
export type Cited = { passage: string; focus: Focus; targetPage: number; lastPage: number };

/** Whether page n holds part of the cited passage. */
export const onPassage = (c: Pick<Cited, 'targetPage' | 'lastPage'>, n: number): boolean => !!c.targetPage && n >= c.targetPage && n <= c.lastPage;

/**
 * Highlights the cited passage on page n when it is on it: over the OCR word boxes on a
 * scanned page (ocr given), else over the text layer's runs. Returns [state, strong shown].
 */
export function highlightPage(
  c: Cited,
  n: number,
  text: { items: string[]; divs: HTMLElement[] },
  ocr: { layer: HTMLElement; words: PageWords; viewport: PageViewport } | null,
): [HighlightState, boolean] {
  if (!c.passage || !onPassage(c, n)) return ['none', false];
  const continued = n > c.targetPage;
  const acrossPages = c.lastPage > c.targetPage;
  if (ocr) return highlightOcrWords(ocr.layer, ocr.words, ocr.viewport, c.passage, c.focus, continued, acrossPages);
  return highlightTextLayer(text.items, text.divs, c.passage, c.focus, continued, acrossPages);
}

/** What the bar over page n says of the passage highlighted there. */
export function passageNote(state: HighlightState, strong: boolean, n: number, c: Pick<Cited, 'targetPage' | 'lastPage'>): string {
  if (state === 'missing') return 'The passage could not be located on this page; its text is below.';
  let note: string;
  if (c.lastPage > c.targetPage) note = n === c.targetPage ? 'Cited passage starts on this page' : `Cited passage, continued from page ${c.targetPage}`;
  else if (state === 'found') note = `Cited passage highlighted on page ${c.targetPage}`;
  else note = 'Part of the cited passage is on this page';
  return strong ? `${note}; the supporting sentence is marked darker` : note;
}

/**
 * What share of the passage a page must hold to count as found: the whole of it on a
 * page that holds it all, a part of it across a page break.
 */
export const wholeShare = (acrossPages: boolean) => (acrossPages ? 0.2 : 0.6);

/** Wraps the matched parts of the text runs in highlight spans; returns [state, strong shown]. */
export function highlightTextLayer(items: string[], divs: HTMLElement[], text: string, f: Focus, continued: boolean, acrossPages: boolean): [HighlightState, boolean] {
  // A page the passage continues onto may hold only its last words.
  const m = findPassage(items, text, { focus: f, minRun: continued ? 12 : undefined });
  if (!m) return ['missing', false];
  const byItem = new Map<number, { start: number; end: number }[]>();
  for (const r of m.ranges) {
    const list = byItem.get(r.item) ?? [];
    list.push(r);
    byItem.set(r.item, list);
  }
  for (const [i, ranges] of byItem) {
    const div = divs[i];
    if (!div) continue;
    div.replaceChildren(
      ...splitByRanges(items[i], ranges).map((seg) => {
        if (!seg.hit) return document.createTextNode(seg.text);
        const span = document.createElement('span');
        span.className = f ? (seg.strong ? 'passage-hl strong' : 'passage-hl light') : 'passage-hl';
        span.setAttribute('data-testid', 'passage-highlight');
        if (seg.strong) span.setAttribute('data-strong', 'true');
        span.textContent = seg.text;
        return span;
      }),
    );
  }
  return [m.matched >= m.passageLength * wholeShare(acrossPages) ? 'found' : 'partial', m.ranges.some((r) => r.strong)];
}

/** Draws rectangles over the OCR words the passage covers, one per line (lib/ocr-rects). */
export function highlightOcrWords(layer: HTMLElement, pw: PageWords, viewport: PageViewport, text: string, f: Focus, continued: boolean, acrossPages: boolean): [HighlightState, boolean] {
  const m = passageSpans(pw.words, text, { focus: f, minRun: continued ? 12 : undefined });
  if (!m) return ['missing', false];
  const rects = spanRects(pw.words, m.spans, (b) => viewport.convertToViewportRectangle(b));
  for (const r of rects) {
    const div = document.createElement('div');
    div.className = f ? (r.strong ? 'passage-hl strong' : 'passage-hl light') : 'passage-hl';
    div.setAttribute('data-testid', 'ocr-highlight');
    div.setAttribute('data-text', r.text);
    if (r.strong) div.setAttribute('data-strong', 'true');
    div.style.left = `${r.left}px`;
    div.style.top = `${r.top}px`;
    div.style.width = `${r.width}px`;
    div.style.height = `${r.height}px`;
    layer.append(div);
  }
  return [m.matched >= m.passageLength * wholeShare(acrossPages) ? 'found' : 'partial', rects.some((r) => r.strong)];
}
