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
  it('finds a passage in a 1 MB file quickly', () => {
    const para = (i: number) => `Paragraph ${i}: the quick brown fox ${i % 97} jumps over the lazy dog ${i % 89}.\n`;
    let text = '';
    for (let i = 0; text.length < 1_000_000; i++) text += para(i);
    const passage = 'Paragraph 12345: the quick brown fox 26 jumps over the lazy dog 63.';
    const t0 = performance.now();
    const m = findPassage([text], passage)!;
    expect(performance.now() - t0).toBeLessThan(3000);
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
