import { describe, expect, it } from 'vitest';
import { clampPage, openingPage, PdfPages } from './pages.svelte';

describe('clampPage', () => {
  it('rounds and keeps the page within the document', () => {
    expect([clampPage(0, 10), clampPage(11, 10), clampPage(2.6, 10), clampPage(NaN, 10), clampPage(3, 0)]).toEqual([1, 10, 3, 1, 1]);
  });
});

describe('openingPage', () => {
  it('opens where the search matched when that is a later page of the passage', () => {
    expect(openingPage(4, 6, 7, 20)).toBe(6);
    expect(openingPage(4, 0, 7, 20)).toBe(4);
    expect(openingPage(4, 8, 7, 20)).toBe(4); // off the passage
    expect(openingPage(4, 3, 7, 20)).toBe(4);
  });
  it('keeps within the document once its length is known, and takes page 1 for none', () => {
    expect(openingPage(30, 0, 30, 20)).toBe(20);
    expect(openingPage(30, 0, 30, 0)).toBe(30);
    expect(openingPage(0, 0, 0, 20)).toBe(1);
  });
});

describe('PdfPages', () => {
  it('puts the page shown in the page box, and the page box takes the reader to a page', () => {
    const p = new PdfPages();
    p.go(3);
    expect(p.current).toBe(1); // no document yet
    p.count = 10;
    p.go(3);
    expect([p.current, p.input]).toEqual([3, '3']);
    p.input = '12';
    p.commitInput();
    expect([p.current, p.input]).toEqual([10, '10']);
    p.input = 'x';
    p.commitInput();
    expect([p.current, p.input]).toEqual([10, '10']);
  });

  it('leaves the page box alone when the page does not change', () => {
    const p = new PdfPages();
    p.count = 10;
    p.go(10);
    p.input = '99';
    p.commitInput(); // page 10 again: the box keeps what was typed, as before the split
    expect([p.current, p.input]).toEqual([10, '99']);
  });
});
