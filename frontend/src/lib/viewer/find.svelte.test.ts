import { describe, expect, it } from 'vitest';
import { DocFind, stepFrom } from './find.svelte';

// A document as its pages' text runs, as pdf.js or OCR gives them.
const doc = [
  ['Walden', 'Economy'], // page 1
  ['The pond is deep;', 'the pond is clear.'], // page 2
  ['No match here.'], // page 3
  ['By the pond', 'at evening'], // page 4
];

function finder(from = 1) {
  const went: number[] = [];
  let page = from;
  const f = new DocFind(
    () => doc.length,
    () => page,
    (n) => {
      went.push(n);
      page = n;
    },
    async (n) => doc[n - 1],
  );
  return { f, went };
}

describe('stepFrom', () => {
  it('steps round the ends both ways', () => {
    expect(stepFrom(0, 1, 3)).toBe(1);
    expect(stepFrom(2, 1, 3)).toBe(0);
    expect(stepFrom(0, -1, 3)).toBe(2);
  });
});

describe('DocFind', () => {
  it('finds every match in page order and starts at the nearest one ahead of the page shown', async () => {
    const { f, went } = finder(3);
    f.query = 'pond';
    await f.run(f.query);
    expect(f.matches).toEqual([
      { page: 2, index: 0 },
      { page: 2, index: 1 },
      { page: 4, index: 0 },
    ]);
    expect(f.current).toBe(2); // page 4's, the first from page 3 on
    expect(went).toEqual([4]);
    expect(f.searching).toBe(false);
    expect(f.currentOn(4)).toBe(true);
  });

  it('steps through the matches across pages, round the ends', async () => {
    const { f, went } = finder(1);
    f.query = 'pond';
    await f.run(f.query);
    expect(f.current).toBe(0);
    f.step(1);
    expect([f.current, went.at(-1)]).toEqual([1, 2]);
    f.step(1);
    expect([f.current, went.at(-1)]).toEqual([2, 4]);
    f.step(1);
    expect([f.current, went.at(-1)]).toEqual([0, 2]);
    f.step(-1);
    expect([f.current, went.at(-1)]).toEqual([2, 4]);
  });

  it('Enter steps forward, Shift+Enter back, Escape clears', async () => {
    const { f } = finder(1);
    f.query = 'pond';
    await f.run(f.query);
    const press = (key: string, shiftKey = false) => f.onKey(new KeyboardEvent('keydown', { key, shiftKey }));
    press('Enter');
    expect(f.current).toBe(1);
    press('Enter', true);
    expect(f.current).toBe(0);
    press('Escape');
    await Promise.resolve();
    expect([f.query, f.matches.length, f.current]).toEqual(['', 0, -1]);
  });

  it('finds nothing for a query absent or blank, and without a document', async () => {
    const { f, went } = finder(1);
    await f.run('quokka');
    expect([f.matches.length, f.current, went.length]).toEqual([0, -1, 0]);
    await f.run('   ');
    expect(f.matches.length).toBe(0);
    const none = new DocFind(() => 0, () => 1, () => {}, async () => ['pond']);
    await none.run('pond');
    expect([none.matches.length, none.searching]).toEqual([0, false]);
  });

  it('a newer search stops an older one', async () => {
    const { f } = finder(1);
    const older = f.run('pond');
    const newer = f.run('evening');
    await Promise.all([older, newer]);
    expect(f.matches).toEqual([{ page: 4, index: 0 }]);
  });
});
