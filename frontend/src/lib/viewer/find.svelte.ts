// Find in the document shown: every match, page by page, the current one, and its
// rectangles on the drawn page. Pages come as their text runs (OCR words on scanned pages,
// pdf.js's text elsewhere: render.svelte.ts's pageItems), so finding knows no pdf.js.

import type { PageViewport } from 'pdfjs-dist';
import { findAll, wordSpans, type Match } from '../doc-search';
import type { Range } from '../highlight';
import { spanRects, type OcrWord } from '../ocr-rects';

/** What the page drawn last holds, for drawing search hits over it. */
export type Drawn = { page: number; items: string[]; divs: HTMLElement[]; words: OcrWord[]; viewport: PageViewport };

type Rect = { left: number; top: number; width: number; height: number };

/** A match: the page it is on and its place among that page's matches. */
export type Found = { page: number; index: number };

/** The match `dir` steps from `current` among `count`, round the ends. */
export const stepFrom = (current: number, dir: 1 | -1, count: number): number => (current + dir + count) % count;

export class DocFind {
  query = $state('');
  matches = $state.raw<Found[]>([]);
  current = $state(-1);
  searching = $state(false);
  #seq = 0; // a newer search makes an older one stop
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    /** The document's page count (0 while none is open). */
    private pages: () => number,
    private pageNum: () => number,
    private go: (n: number) => void,
    /** The text runs of page n. */
    private itemsOf: (n: number) => Promise<string[]>,
  ) {}

  onInput = (): void => {
    clearTimeout(this.#timer);
    // The old matches are not this query's: never show them as its count.
    this.#seq++;
    this.matches = [];
    this.current = -1;
    this.searching = !!this.query.trim();
    this.#timer = setTimeout(() => void this.run(this.query), 250);
  };

  /** Finds every match page by page, showing the first as soon as it is found. */
  run = async (q: string): Promise<void> => {
    const my = ++this.#seq;
    this.matches = [];
    this.current = -1;
    const count = this.pages();
    if (!count || !q.trim()) {
      this.searching = false;
      return;
    }
    this.searching = true;
    const found: Found[] = [];
    const from = this.pageNum();
    // From the page shown, round the document, so the first hit is the nearest one ahead.
    for (let k = 0; k < count && found.length < 1000; k++) {
      const n = ((from - 1 + k) % count) + 1;
      const items = await this.itemsOf(n).catch(() => [] as string[]);
      if (my !== this.#seq) return;
      const hits = findAll(items, q);
      hits.forEach((_, index) => found.push({ page: n, index }));
      if (hits.length) {
        this.matches = [...found].sort((a, b) => a.page - b.page || a.index - b.index);
        if (this.current < 0) {
          this.current = this.matches.findIndex((m) => m.page === n);
          this.go(n);
        } else {
          // Keep pointing at the same match while the list grows.
          this.current = this.matches.findIndex((m) => m.page === found[0].page && m.index === found[0].index);
        }
      }
    }
    if (my === this.#seq) this.searching = false;
  };

  step = (dir: 1 | -1): void => {
    if (!this.matches.length) return;
    this.current = stepFrom(this.current, dir, this.matches.length);
    this.go(this.matches[this.current].page);
  };

  onKey = (e: KeyboardEvent): void => {
    if (e.key === 'Enter') {
      e.preventDefault();
      clearTimeout(this.#timer);
      if (!this.matches.length && !this.searching) void this.run(this.query);
      else this.step(e.shiftKey ? -1 : 1);
    } else if (e.key === 'Escape') {
      this.query = '';
      void this.run('');
    }
  };

  /** Whether the current match is on page n. */
  currentOn = (n: number): boolean => !!this.query && this.matches[this.current]?.page === n;

  /**
   * The hits on the drawn page as a layer of rectangles (the current one marked), and the
   * current one's element to scroll to; null when there is nothing to draw.
   */
  layer(d: Drawn | null, page: HTMLElement): { layer: HTMLElement; current: HTMLElement | null } | null {
    const cur = this.matches[this.current];
    if (!d || !this.query.trim() || !this.matches.length) return null;
    const hits = findAll(d.items, this.query);
    const box = page.getBoundingClientRect();
    const layer = document.createElement('div');
    layer.className = 'search-layer';
    let currentEl: HTMLElement | null = null;
    hits.forEach((m, i) => {
      const isCurrent = cur?.page === d.page && cur.index === i;
      for (const r of hitRects(d, m, box)) {
        const div = document.createElement('div');
        div.className = isCurrent ? 'search-hl current' : 'search-hl';
        div.setAttribute('data-testid', 'search-hit');
        if (isCurrent) div.setAttribute('data-current', 'true');
        div.style.left = `${r.left}px`;
        div.style.top = `${r.top}px`;
        div.style.width = `${r.width}px`;
        div.style.height = `${r.height}px`;
        layer.append(div);
        if (isCurrent && !currentEl) currentEl = div;
      }
    });
    return { layer, current: currentEl };
  }

  /** Draws the hits on the drawn page into host; returns the current one's element. */
  paint(host: HTMLElement, d: Drawn | null, page: HTMLElement): HTMLElement | null {
    const hits = this.layer(d, page);
    host.replaceChildren(...(hits ? [hits.layer] : []));
    return hits?.current ?? null;
  }
}

/** Rectangles (page pixels) of one match on the drawn page. */
function hitRects(d: Drawn, m: Match, box: DOMRect): Rect[] {
  if (d.words.length) return spanRects(d.words, wordSpans(d.words, m), (b) => d.viewport.convertToViewportRectangle(b));
  const out: Rect[] = [];
  for (const r of m) {
    const range = textRange(d.divs[r.item], r);
    if (!range) continue;
    for (const c of range.getClientRects()) out.push({ left: c.left - box.left, top: c.top - box.top, width: c.width, height: c.height });
  }
  return out;
}

/** A DOM Range over [start, end) of a text run's text (which highlights may have split). */
function textRange(div: HTMLElement | undefined, r: Range): globalThis.Range | null {
  if (!div) return null;
  const range = document.createRange();
  const walker = document.createTreeWalker(div, NodeFilter.SHOW_TEXT);
  let at = 0;
  let started = false;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const len = node.textContent?.length ?? 0;
    if (!started && r.start < at + len) {
      range.setStart(node, r.start - at);
      started = true;
    }
    if (started && r.end <= at + len) {
      range.setEnd(node, r.end - at);
      return range;
    }
    at += len;
  }
  return null;
}
