import { describe, expect, it } from 'vitest';
import { findPassage, keyOf, splitByRanges } from './highlight';

/** The highlighted text, joined, as the user would see it. */
function highlighted(items: string[], passage: string, opts = {}): string {
  const m = findPassage(items, passage, opts);
  if (!m) return '';
  return m.ranges.map((r) => items[r.item].slice(r.start, r.end)).join('|');
}

describe('keyOf', () => {
  it('drops whitespace and hyphens, folds case, ligatures and quotes', () => {
    expect(keyOf(['The \ufb01rst  “Pond”\u2019s well-\nknown']).chars.join('')).toBe('thefirst"pond"\'swellknown');
  });
});

describe('findPassage', () => {
  const page = [
    'WALDEN',
    '',
    'When I wrote the following pages, or rather the bulk of them, I lived alone,',
    'in the woods, a mile from any neighbor, in a house which I had built my-',
    'self, on the shore of Walden Pond, in Concord, Massachusetts.',
    '42',
  ];

  it('finds a passage across items, whitespace-insensitively', () => {
    const passage = 'I lived alone, in the woods,   a mile from any neighbor';
    const m = findPassage(page, passage)!;
    expect(m).not.toBeNull();
    expect(m.matched).toBe(m.passageLength);
    expect(m.ranges.map((r) => r.item)).toEqual([2, 3]);
    expect(highlighted(page, passage)).toBe('I lived alone,|in the woods, a mile from any neighbor');
  });

  it('bridges a hyphenated line break', () => {
    const passage = 'a house which I had built myself, on the shore of Walden Pond';
    expect(highlighted(page, passage)).toBe('a house which I had built my|self, on the shore of Walden Pond');
  });

  it('ignores case and line breaks inside the passage', () => {
    const passage = 'ON THE SHORE\nOF WALDEN\tPOND, in concord';
    expect(highlighted(page, passage)).toBe('on the shore of Walden Pond, in Concord');
  });

  it('takes the longest run when the passage only partly matches', () => {
    // The chunk runs on to the next page: only its start is on this page.
    const passage = 'self, on the shore of Walden Pond, in Concord, Massachusetts. I earned my living by the labor of my hands only.';
    const h = highlighted(page, passage);
    expect(h).toBe('self, on the shore of Walden Pond, in Concord, Massachusetts.');
  });

  it('also takes further long runs beside the longest one', () => {
    // The extractor dropped the running header that pdf.js sees in the middle.
    const items = [
      'The mass of men lead lives of quiet desperation. What is called resignation',
      'ECONOMY 7',
      'is confirmed desperation. From the desperate city you go into the desperate country.',
    ];
    const passage =
      'The mass of men lead lives of quiet desperation. What is called resignation is confirmed desperation. From the desperate city you go into the desperate country.';
    const m = findPassage(items, passage)!;
    expect(m.ranges.map((r) => r.item)).toEqual([0, 2]);
    expect(m.matched).toBe(m.passageLength);
  });

  it('returns null when nothing long enough matches', () => {
    expect(findPassage(page, 'an entirely different sentence about railways and ice')).toBeNull();
    expect(findPassage(page, '')).toBeNull();
    expect(findPassage([], 'anything')).toBeNull();
  });

  it('matches a short passage completely or not at all', () => {
    expect(highlighted(page, 'Walden Pond')).toBe('Walden Pond');
    expect(findPassage(page, 'Walden Lake')).toBeNull();
  });

  it('keeps offsets right with surrogate pairs and ligatures', () => {
    const items = ['𝔸 e\ufb03cient \ufb01sh swims here 𝔹'];
    const h = highlighted(items, 'efficient fish swims here');
    expect(h).toBe('e\ufb03cient \ufb01sh swims here');
  });

  it('is fast on a long page', () => {
    const words = 'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu'.split(' ');
    const items: string[] = [];
    for (let i = 0; i < 400; i++) items.push(Array.from({ length: 12 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ') + ` ${i}`);
    const passage = items.slice(200, 215).join('\n');
    const t0 = performance.now();
    const m = findPassage(items, passage)!;
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(m.ranges[0].item).toBe(200);
    expect(m.ranges[m.ranges.length - 1].item).toBe(214);
  });
});

describe('findPassage on a whole text file', () => {
  // Correctness at size only: its speed is a benchmark's business, not a timed assertion
  // (at load ~45 this took 14-19 s); the generous timeout keeps a loaded machine green.
  it('finds a passage in a 1 MB file', { timeout: 60_000 }, () => {
    const para = (i: number) => `Paragraph ${i}: the quick brown fox ${i % 97} jumps over the lazy dog ${i % 89}.\n`;
    let text = '';
    for (let i = 0; text.length < 1_000_000; i++) text += para(i);
    const passage = 'Paragraph 12345: the quick brown fox 26 jumps over the lazy dog 63.';
    const m = findPassage([text], passage)!;
    const [r] = m.ranges;
    expect(text.slice(r.start, r.end)).toBe(passage);
  });
});

describe('splitByRanges', () => {
  it('splits a string into plain and highlighted parts', () => {
    expect(splitByRanges('abcdefgh', [{ start: 2, end: 4 }, { start: 6, end: 8 }])).toEqual([
      { text: 'ab', hit: false },
      { text: 'cd', hit: true },
      { text: 'ef', hit: false },
      { text: 'gh', hit: true },
    ]);
    expect(splitByRanges('abc', [])).toEqual([{ text: 'abc', hit: false }]);
  });
});

/** The strongly highlighted text (the supporting sentence), joined by item. */
function strongText(items: string[], passage: string, focus: { start: number; end: number }): string {
  const m = findPassage(items, passage, { focus });
  if (!m) return '';
  return m.ranges.filter((r) => r.strong).map((r) => items[r.item].slice(r.start, r.end)).join('|');
}

/** A claim span as backend/chat/cite.go gives it: code point offsets of quote in passage. */
function spanOf(passage: string, quote: string): { start: number; end: number } {
  const u = passage.indexOf(quote);
  const start = [...passage.slice(0, u)].length;
  return { start, end: start + [...quote].length };
}

describe('findPassage with a focus (claim span → text layer)', () => {
  const items = [
    'Chapter 2',
    'The pond is deep and cold. Its water is clear',
    'enough to see the bottom at thirty feet. Fish are',
    'rare in winter.',
  ];
  const passage = 'The pond is deep and cold. Its water is clear enough to see the bottom at thirty feet. Fish are rare in winter.';

  it('marks exactly the supporting sentence strong, the rest of the passage light', () => {
    const quote = 'Its water is clear enough to see the bottom at thirty feet.';
    const m = findPassage(items, passage, { focus: spanOf(passage, quote) })!;
    expect(m.matched).toBe(m.passageLength);
    expect(strongText(items, passage, spanOf(passage, quote))).toBe('Its water is clear|enough to see the bottom at thirty feet.');
    const light = m.ranges.filter((r) => !r.strong).map((r) => items[r.item].slice(r.start, r.end).trim());
    expect(light).toEqual(['The pond is deep and cold.', 'Fish are', 'rare in winter.']);
  });

  it('without a focus no range is strong', () => {
    expect(findPassage(items, passage)!.ranges.some((r) => 'strong' in r)).toBe(false);
  });

  it('counts span offsets in code points, not UTF-16 units', () => {
    const p = 'Emoji 😀 first. The second sentence matters here.';
    const layer = ['Emoji 😀 first. The second', 'sentence matters here.'];
    expect(strongText(layer, p, spanOf(p, 'The second sentence matters here.'))).toBe('The second|sentence matters here.');
  });

  it('finds the span despite hyphenation and ligatures on the page', () => {
    const p = 'A first sentence here. The efficient method is well known. Last one.';
    const layer = ['A first sentence here. The e\ufb03cient method is well-', 'known. Last one.'];
    expect(strongText(layer, p, spanOf(p, 'The efficient method is well known.'))).toBe('The e\ufb03cient method is well|known.');
  });

  it('across a page break: each page marks its part of the span', () => {
    const p = 'Start of the passage on one page. The claim begins here and ends on the next page. Tail.';
    const span = spanOf(p, 'The claim begins here and ends on the next page.');
    const page1 = ['Start of the passage on one page. The claim begins here and'];
    const page2 = ['ends on the next page. Tail.', 'Footer 12'];
    expect(strongText(page1, p, span)).toBe('The claim begins here and');
    // A short continuation needs a shorter minimum run (the viewer asks for 12).
    expect(findPassage(page2, p)).toBeNull();
    const m = findPassage(page2, p, { focus: span, minRun: 12 })!;
    expect(m.ranges.filter((r) => r.strong).map((r) => page2[r.item].slice(r.start, r.end)).join('|')).toBe('ends on the next page.');
    // The part before the span is on page 1 only, light.
    const m2 = findPassage(page2, p, { focus: span, minRun: 12 })!;
    expect(m2.ranges.filter((r) => !r.strong).map((r) => page2[r.item].slice(r.start, r.end).trim())).toEqual(['Tail.']);
  });

  it('splits one text run into light and strong segments', () => {
    const run = 'Fish are rare. Ice is thick in January. Snow falls.';
    const p = run;
    const m = findPassage([run], p, { focus: spanOf(p, 'Ice is thick in January.') })!;
    const segs = splitByRanges(run, m.ranges).filter((s) => s.hit);
    expect(segs.map((s) => [s.text.trim(), !!s.strong])).toEqual([
      ['Fish are rare.', false],
      ['Ice is thick in January.', true],
      ['Snow falls.', false],
    ]);
  });
});
