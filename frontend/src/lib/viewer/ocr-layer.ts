// The OCR layer of a scanned page: the word boxes OCR read (fetched once per page), and
// the layer over the scan that holds the passage's rectangles and the recognised words as
// invisible text, each stretched over its box, so that text on a scanned page can be
// selected and copied like on any other page.

import type { PageViewport } from 'pdfjs-dist';
import type { PageWords } from '../ocr-rects';

export const NO_WORDS: PageWords = { ocr: false, width: 0, height: 0, words: [] };

/** The word boxes of a document's pages, fetched once per page (none on a page with text). */
export class OcrWords {
  #pages = new Map<number, Promise<PageWords>>();

  constructor(private fetch: (n: number) => Promise<PageWords>) {}

  of = (n: number): Promise<PageWords> => {
    let p = this.#pages.get(n);
    if (!p) {
      p = this.fetch(n).catch(() => {
        this.#pages.delete(n); // a document still being added: ask again next time
        return NO_WORDS;
      });
      this.#pages.set(n, p);
    }
    return p;
  };
}

/** The empty layer over a scanned page: the passage's rectangles go in first, then the words. */
export function ocrLayer(): HTMLElement {
  const layer = document.createElement('div');
  layer.className = 'ocr-layer';
  layer.setAttribute('data-testid', 'ocr-layer');
  return layer;
}

let measure: CanvasRenderingContext2D | null = null;

/** The recognised words as invisible text, each over its box. */
export function ocrTextLayer(pw: PageWords, viewport: PageViewport): HTMLElement {
  const layer = document.createElement('div');
  layer.className = 'ocr-text';
  layer.setAttribute('data-testid', 'ocr-text');
  measure ??= document.createElement('canvas').getContext('2d');
  let prev: { right: number; top: number; bottom: number } | null = null;
  for (const w of pw.words) {
    const [a, b, c, d] = viewport.convertToViewportRectangle([w.x0, w.y0, w.x1, w.y1]);
    const left = Math.min(a, c);
    const top = Math.min(b, d);
    const width = Math.abs(c - a);
    const height = Math.abs(d - b);
    if (width < 1 || height < 1) continue;
    // A space between words of a line, a line break between lines, for copied text.
    if (prev) {
      const overlap = Math.min(prev.bottom, top + height) - Math.max(prev.top, top);
      layer.append(overlap > 0.5 * Math.min(height, prev.bottom - prev.top) && left > prev.right - 2 ? ' ' : '\n');
    }
    prev = { right: left + width, top, bottom: top + height };
    const span = document.createElement('span');
    const size = height * 0.9;
    span.textContent = w.text;
    span.style.left = `${left}px`;
    span.style.top = `${top}px`;
    span.style.fontSize = `${size}px`;
    if (measure) {
      measure.font = `${size}px sans-serif`;
      const natural = measure.measureText(w.text).width;
      if (natural > 0) span.style.transform = `scaleX(${width / natural})`;
    }
    layer.append(span);
  }
  return layer;
}
