// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import type { PageWords } from '../ocr-rects';
import { NO_WORDS, OcrWords } from './ocr-layer';

const page: PageWords = { ocr: true, width: 612, height: 792, words: [{ text: 'Lighthouse', x0: 10, y0: 10, x1: 90, y1: 22, start: 0, end: 10 }] };

describe('OcrWords', () => {
  it('fetches a page once, and again after a failure (a document still being added)', async () => {
    const asked: number[] = [];
    let fail = true;
    const w = new OcrWords(async (n) => {
      asked.push(n);
      if (fail) throw new Error('not yet');
      return page;
    });
    expect(await w.of(1)).toBe(NO_WORDS);
    fail = false;
    expect(await w.of(1)).toBe(page);
    expect(await w.of(1)).toBe(page);
    expect(await w.of(2)).toBe(page);
    expect(asked).toEqual([1, 1, 2]);
  });
});
