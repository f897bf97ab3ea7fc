// Highlights on scanned pages. pdf.js has no text layer there, so a cited passage is
// found in the words OCR read (PageWords, docs/bridge.md) and drawn as rectangles over
// the words it covers, one per line.
//
// Offsets are code points in the page's stored text, as the backend gives them; boxes are
// PDF user space, turned into view pixels by the caller (pdf.js
// viewport.convertToViewportRectangle), which takes care of zoom, crop box and /Rotate.

import { findPassage } from './highlight';

export type OcrWord = { text: string; x0: number; y0: number; x1: number; y1: number; start: number; end: number };

export type PageWords = { ocr: boolean; width: number; height: number; words: OcrWord[] };

/** A stretch of the page text to highlight: [start, end) code points. */
export type Span = { start: number; end: number; strong?: boolean };

/** A rectangle in view pixels (origin top left). */
export type Rect = { left: number; top: number; width: number; height: number; strong?: boolean; text: string };

/** Maps a box in user space [x0, y0, x1, y1] to view pixels [x0, y0, x1, y1] (any corner order). */
export type ToView = (box: [number, number, number, number]) => number[];

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

/** Normalises a PageWords reply: anything malformed becomes "no words". */
export function parsePageWords(v: unknown): PageWords {
  const o = (v && typeof v === 'object' ? v : {}) as Record<string, unknown>;
  const words: OcrWord[] = [];
  if (Array.isArray(o.words)) {
    for (const w of o.words as Record<string, unknown>[]) {
      if (!w || typeof w.text !== 'string') continue;
      const word = { text: w.text, x0: num(w.x0), y0: num(w.y0), x1: num(w.x1), y1: num(w.y1), start: num(w.start), end: num(w.end) };
      if (word.end > word.start && word.x1 > word.x0 && word.y1 > word.y0) words.push(word);
    }
  }
  return { ocr: o.ocr === true || words.length > 0, width: num(o.width), height: num(o.height), words };
}

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * Finds a passage among a page's OCR words and returns where it lies in the page text,
 * with the supporting sentence (`focus`, code point offsets in the passage) marked strong.
 * Null when nothing long enough matches.
 */
export function passageSpans(
  words: OcrWord[],
  passage: string,
  opts: { focus?: { start: number; end: number } | null; minRun?: number } = {},
): { spans: Span[]; matched: number; passageLength: number } | null {
  const items = words.map((w) => w.text);
  const m = findPassage(items, passage, { focus: opts.focus ?? null, minRun: opts.minRun });
  if (!m) return null;
  const spans: Span[] = [];
  let prevItem = -2;
  let prevWordEnd = false; // the last span reached the end of its word
  for (const r of m.ranges) {
    const w = words[r.item];
    const start = w.start + codePoints(w.text.slice(0, r.start));
    const end = w.start + codePoints(w.text.slice(0, r.end));
    const prev = spans[spans.length - 1];
    // One span while the passage runs on, word after word, of the same kind.
    const runsOn = (r.item === prevItem && start === prev?.end) || (r.item === prevItem + 1 && prevWordEnd && r.start === 0);
    if (prev && runsOn && !!prev.strong === !!r.strong) {
      prev.end = end;
    } else {
      spans.push(r.strong ? { start, end, strong: true } : { start, end });
    }
    prevItem = r.item;
    prevWordEnd = r.end === w.text.length;
  }
  return { spans, matched: m.matched, passageLength: m.passageLength };
}

/**
 * Rectangles covering the words of `spans`, merged per line: a word shares a rectangle
 * with the previous one when it continues the same line to the right and is of the same
 * kind (strong or not). A span that starts or ends inside a word covers the matching
 * share of the word's width.
 */
export function spanRects(words: OcrWord[], spans: Span[], toView: ToView): Rect[] {
  const out: Rect[] = [];
  let last: { rect: Rect; right: number; bottom: number } | null = null;
  for (const w of words) {
    for (const s of spans) {
      const a = Math.max(s.start, w.start);
      const b = Math.min(s.end, w.end);
      if (b <= a) continue;
      const [vx0, vy0, vx1, vy1] = toView([w.x0, w.y0, w.x1, w.y1]);
      const left = Math.min(vx0, vx1);
      const right = Math.max(vx0, vx1);
      const top = Math.min(vy0, vy1);
      const bottom = Math.max(vy0, vy1);
      const n = w.end - w.start;
      const l = left + ((right - left) * (a - w.start)) / n;
      const r = left + ((right - left) * (b - w.start)) / n;
      const part = [...w.text].slice(a - w.start, b - w.start).join('');
      const strong = !!s.strong;
      if (last && !!last.rect.strong === strong && sameLine(last.rect.top, last.bottom, top, bottom) && l >= last.right - 2) {
        const rect = last.rect;
        const newTop = Math.min(rect.top, top);
        last.bottom = Math.max(last.bottom, bottom);
        rect.top = newTop;
        rect.height = last.bottom - newTop;
        rect.width = r - rect.left;
        rect.text += ' ' + part;
        last.right = r;
      } else {
        const rect: Rect = { left: l, top, width: r - l, height: bottom - top, text: part };
        if (strong) rect.strong = true;
        out.push(rect);
        last = { rect, right: r, bottom };
      }
    }
  }
  return out;
}

/** Two boxes are on one line when they overlap vertically by half the smaller height. */
function sameLine(t1: number, b1: number, t2: number, b2: number): boolean {
  const overlap = Math.min(b1, b2) - Math.max(t1, t2);
  return overlap >= 0.5 * Math.min(b1 - t1, b2 - t2);
}
