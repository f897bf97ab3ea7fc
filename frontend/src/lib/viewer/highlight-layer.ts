// Highlighting the cited passage on a drawn PDF page: over pdf.js's text layer runs, or,
// on a scanned page, as rectangles over the OCR word boxes. Pure DOM building: the
// viewer component decides when (pdf-view.svelte).

import type { PageViewport } from 'pdfjs-dist';
import { findPassage, splitByRanges } from '../highlight';
import { passageSpans, spanRects, type PageWords } from '../ocr-rects';

export type Focus = { start: number; end: number; quote: string } | null;
export type HighlightState = 'none' | 'found' | 'partial' | 'missing';

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
