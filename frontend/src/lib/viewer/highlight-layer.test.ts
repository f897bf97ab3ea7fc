// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { highlightPage, highlightTextLayer, onPassage, passageNote, wholeShare, type Cited } from './highlight-layer';

// A page's text runs as pdf.js's text layer gives them, one div each.
const items = [
  'WALDEN',
  'When I wrote the following pages, or rather the bulk of them, I lived alone,',
  'in the woods, a mile from any neighbor, in a house which I had built my-',
  'self, on the shore of Walden Pond, in Concord, Massachusetts.',
];
function runs(texts = items): HTMLElement[] {
  return texts.map((t) => {
    const d = document.createElement('span');
    d.textContent = t;
    return d;
  });
}
const marked = (divs: HTMLElement[], sel = '[data-testid=passage-highlight]') => divs.flatMap((d) => [...d.querySelectorAll(sel)].map((s) => s.textContent)).join('|');

describe('highlightTextLayer', () => {
  it('wraps the passage in highlight spans across runs, the text of every run unchanged', () => {
    const divs = runs();
    const [state, strong] = highlightTextLayer(items, divs, 'I lived alone, in the woods, a mile from any neighbor', null, false, false);
    expect([state, strong]).toEqual(['found', false]);
    expect(marked(divs)).toBe('I lived alone,|in the woods, a mile from any neighbor');
    expect(divs.map((d) => d.textContent)).toEqual(items);
    expect(divs[1].querySelector('span')!.className).toBe('passage-hl');
  });

  it('marks the supporting sentence strongly and the rest of the passage lightly', () => {
    const divs = runs();
    const passage = 'I lived alone, in the woods, a mile from any neighbor, in a house which I had built myself';
    const start = [...passage].length - [...'in a house which I had built myself'].length;
    const [state, strong] = highlightTextLayer(items, divs, passage, { start, end: [...passage].length, quote: '' }, false, false);
    expect([state, strong]).toEqual(['found', true]);
    expect(marked(divs, '[data-strong=true]')).toBe('in a house which I had built my|self') // the line-end hyphen is not the sentence's;
    expect([...divs[1].querySelectorAll('.passage-hl.light')].length).toBe(1);
  });

  it('says missing and leaves the page alone when the passage is not on it', () => {
    const divs = runs();
    expect(highlightTextLayer(items, divs, 'The bullfrogs trump to usher in the night', null, false, false)).toEqual(['missing', false]);
    expect(divs.map((d) => d.innerHTML)).toEqual(items);
  });

  it('counts a part of the passage as found only across a page break', () => {
    // The page holds the passage's first third: partial on a page holding all of it,
    // found where the passage continues onto the next page.
    const passage = 'on the shore of Walden Pond, in Concord, Massachusetts. I lived there two years and two months. At present I am a sojourner in civilized life again.';
    expect(highlightTextLayer(items, runs(), passage, null, false, false)[0]).toBe('partial');
    expect(highlightTextLayer(items, runs(), passage, null, false, true)[0]).toBe('found');
    expect([wholeShare(false), wholeShare(true)]).toEqual([0.6, 0.2]);
  });
});

describe('highlightPage', () => {
  const cited = (c: Partial<Cited>): Cited => ({ passage: 'I lived alone, in the woods', focus: null, targetPage: 3, lastPage: 4, ...c });

  it('highlights only on the pages the passage is on', () => {
    for (const [n, want] of [[2, 'none'], [3, 'found'], [4, 'found'], [5, 'none']] as const) {
      const divs = runs();
      expect(highlightPage(cited({}), n, { items, divs }, null)[0], `page ${n}`).toBe(want);
      expect(divs.some((d) => d.querySelector('.passage-hl')), `page ${n}`).toBe(want === 'found');
    }
  });

  it('highlights nothing without a passage or a cited page', () => {
    expect(highlightPage(cited({ passage: '' }), 3, { items, divs: runs() }, null)).toEqual(['none', false]);
    expect(highlightPage(cited({ targetPage: 0, lastPage: 0 }), 1, { items, divs: runs() }, null)).toEqual(['none', false]);
  });
});

describe('onPassage', () => {
  it('is the cited page to the last', () => {
    expect([1, 2, 3, 4].map((n) => onPassage({ targetPage: 2, lastPage: 3 }, n))).toEqual([false, true, true, false]);
    expect(onPassage({ targetPage: 0, lastPage: 0 }, 0)).toBe(false);
  });
});

describe('passageNote', () => {
  const one = { targetPage: 7, lastPage: 7 };
  const two = { targetPage: 7, lastPage: 8 };
  it('says where the passage is and whether its supporting sentence is marked', () => {
    expect(passageNote('found', false, 7, one)).toBe('Cited passage highlighted on page 7');
    expect(passageNote('found', true, 7, one)).toBe('Cited passage highlighted on page 7; the supporting sentence is marked darker');
    expect(passageNote('partial', false, 7, one)).toBe('Part of the cited passage is on this page');
    expect(passageNote('found', false, 7, two)).toBe('Cited passage starts on this page');
    expect(passageNote('partial', true, 8, two)).toBe('Cited passage, continued from page 7; the supporting sentence is marked darker');
    expect(passageNote('missing', false, 7, one)).toBe('The passage could not be located on this page; its text is below.');
  });
});
