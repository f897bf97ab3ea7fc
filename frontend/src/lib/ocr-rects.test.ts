import { describe, expect, it } from 'vitest';
import { parsePageWords, passageSpans, spanRects, type OcrWord, type ToView } from './ocr-rects';

/**
 * Words laid out as OCR would give them for `lines` on a 400×300 pt page: 20 pt per
 * line from the top, 8 pt per character, offsets into lines.join('\n').
 */
function layout(lines: string[]): { text: string; words: OcrWord[] } {
  const words: OcrWord[] = [];
  let at = 0;
  lines.forEach((line, k) => {
    for (const m of line.matchAll(/\S+/g)) {
      const len = [...m[0]].length;
      const col = [...line.slice(0, m.index)].length;
      const left = 10 + col * 8;
      words.push({ text: m[0], x0: left, x1: left + len * 8, y0: 300 - 20 * (k + 1), y1: 300 - 20 * (k + 1) + 12, start: at + col, end: at + col + len });
    }
    at += [...line].length + 1;
  });
  return { text: lines.join('\n'), words };
}

/** Zoom 2 on an upright page 300 pt high: what pdf.js's viewport does at scale 2. */
const upright: ToView = ([x0, y0, x1, y1]) => [x0 * 2, (300 - y0) * 2, x1 * 2, (300 - y1) * 2];

const lines = ['The quiet river carries seven', 'wooden boats toward the harbour', 'while children gather shells'];

describe('parsePageWords', () => {
  it('keeps well-formed words and drops the rest', () => {
    const pw = parsePageWords({
      ocr: true,
      width: 400,
      height: 300,
      words: [{ text: 'ok', x0: 1, y0: 2, x1: 3, y1: 4, start: 0, end: 2 }, { text: 'flat', x0: 1, y0: 2, x1: 1, y1: 4, start: 3, end: 7 }, null, { x0: 1 }],
    });
    expect(pw.words.map((w) => w.text)).toEqual(['ok']);
    expect(pw.ocr).toBe(true);
    expect(parsePageWords('nonsense')).toEqual({ ocr: false, width: 0, height: 0, words: [] });
  });
});

describe('passageSpans', () => {
  const { text, words } = layout(lines);

  it('finds a passage across a line break as one span of the page text', () => {
    const r = passageSpans(words, 'river carries seven wooden boats')!;
    expect(r).not.toBeNull();
    expect(r.spans).toHaveLength(1);
    expect(text.slice(r.spans[0].start, r.spans[0].end)).toBe('river carries seven\nwooden boats');
  });

  it('marks the supporting sentence strong', () => {
    const passage = 'The quiet river carries seven wooden boats toward the harbour';
    const focus = { start: passage.indexOf('wooden'), end: passage.indexOf(' toward') };
    const r = passageSpans(words, passage, { focus })!;
    const strong = r.spans.filter((s) => s.strong).map((s) => text.slice(s.start, s.end));
    expect(strong).toEqual(['wooden boats']);
    expect(r.spans.filter((s) => !s.strong).length).toBeGreaterThan(0);
  });

  it('finds the tail of a passage continued from the previous page', () => {
    const r = passageSpans(words, 'Something on the page before. The quiet river', { minRun: 12 })!;
    expect(text.slice(r.spans[0].start, r.spans[r.spans.length - 1].end)).toBe('The quiet river');
  });

  it('gives null when the passage is not on the page', () => {
    expect(passageSpans(words, 'an entirely different sentence about mountains')).toBeNull();
  });
});

describe('spanRects', () => {
  const { text, words } = layout(lines);

  it('draws one rectangle per line, over exactly the covered words, scaled with the zoom', () => {
    const start = text.indexOf('river');
    const end = text.indexOf(' toward');
    const rects = spanRects(words, [{ start, end }], upright);
    expect(rects.map((r) => r.text)).toEqual(['river carries seven', 'wooden boats']);
    const river = words.find((w) => w.text === 'river')!;
    const seven = words.find((w) => w.text === 'seven')!;
    expect(rects[0].left).toBeCloseTo(river.x0 * 2);
    expect(rects[0].width).toBeCloseTo((seven.x1 - river.x0) * 2);
    expect(rects[0].top).toBeCloseTo((300 - river.y1) * 2);
    expect(rects[0].height).toBeCloseTo(24);
    expect(rects[1].top).toBeGreaterThan(rects[0].top + rects[0].height - 1);
  });

  it('covers part of a word when the span starts inside it', () => {
    const start = text.indexOf('ries');
    const rects = spanRects(words, [{ start, end: start + 4 }], upright);
    const carries = words.find((w) => w.text === 'carries')!;
    expect(rects).toHaveLength(1);
    expect(rects[0].text).toBe('ries');
    expect(rects[0].left).toBeCloseTo((carries.x0 + 3 * 8) * 2);
    expect(rects[0].width).toBeCloseTo(4 * 8 * 2);
  });

  it('keeps strong and light parts apart on one line', () => {
    const a = text.indexOf('quiet');
    const b = text.indexOf('carries');
    const rects = spanRects(words, [{ start: a, end: b - 1 }, { start: b, end: b + 7, strong: true }], upright);
    expect(rects.map((r) => [r.text, !!r.strong])).toEqual([
      ['quiet river', false],
      ['carries', true],
    ]);
  });

  it('merges per line on a page turned by /Rotate 90', () => {
    // Words stored in the user space of a page shown turned: display x = y, display y = x.
    const turned = words.map((w) => ({ ...w, x0: 300 - w.y1, x1: 300 - w.y0, y0: w.x0, y1: w.x1 }));
    const rotate90: ToView = ([x0, y0, x1, y1]) => [y0, x0, y1, x1];
    const start = text.indexOf('boats');
    const rects = spanRects(turned, [{ start, end: text.indexOf('shells') + 6 }], rotate90);
    expect(rects.map((r) => r.text)).toEqual(['boats toward the harbour', 'while children gather shells']);
    expect(rects[0].width).toBeGreaterThan(rects[0].height * 5);
  });

  it('draws nothing for a span outside every word', () => {
    expect(spanRects(words, [{ start: 5000, end: 5010 }], upright)).toEqual([]);
  });
});
