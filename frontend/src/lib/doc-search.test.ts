import { describe, expect, it } from 'vitest';
import { findAll, wordSpans } from './doc-search';
import type { OcrWord } from './ocr-rects';

const show = (items: string[], q: string) => findAll(items, q).map((m) => m.map((r) => items[r.item].slice(r.start, r.end)).join('|'));

describe('findAll', () => {
  it('finds every occurrence, ignoring case and white space, across text runs', () => {
    const items = ['Near the Pond the', ' bullfrogs trump; the pond', 'is still.'];
    expect(show(items, 'the pond')).toEqual(['the Pond', 'the pond']);
    expect(show(items, 'pond is')).toEqual(['pond|is']);
    expect(show(items, 'BULLFROGS')).toEqual(['bullfrogs']);
  });

  it('matches a word hyphenated at a line end and gives nothing for an empty query', () => {
    expect(show(['a mag-', 'nificent day'], 'magnificent')).toEqual(['mag|nificent']);
    expect(findAll(['text'], '  ')).toEqual([]);
    expect(findAll(['text'], 'absent')).toEqual([]);
  });

  it('stops at the limit', () => {
    expect(findAll(['aa aa aa aa'], 'aa', 3)).toHaveLength(3);
  });
});

describe('wordSpans', () => {
  it('turns ranges in OCR words into code point spans of the page text', () => {
    // Page text "Ωmega café day": offsets in code points.
    const words: OcrWord[] = [
      { text: 'Ωmega', x0: 0, y0: 0, x1: 1, y1: 1, start: 0, end: 5 },
      { text: 'café', x0: 0, y0: 0, x1: 1, y1: 1, start: 6, end: 10 },
      { text: 'day', x0: 0, y0: 0, x1: 1, y1: 1, start: 11, end: 14 },
    ];
    const [m] = findAll(words.map((w) => w.text), 'afé da');
    expect(wordSpans(words, m)).toEqual([
      { start: 7, end: 10 },
      { start: 11, end: 13 },
    ]);
  });
});
