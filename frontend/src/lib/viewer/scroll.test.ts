import { describe, expect, it } from 'vitest';
import { AfterDraw } from './scroll';

describe('AfterDraw', () => {
  it("goes to the passage once per citation opened, to the top on another page, else stays", () => {
    const a = new AfterDraw();
    expect(a.next(true, 1, 5)).toBe('mark'); // a citation opened on page 5
    expect(a.next(true, 1, 5)).toBeNull(); // the same page drawn again (zoom): stay
    expect(a.next(false, 1, 6)).toBe('top'); // the next page
    expect(a.next(true, 1, 5)).toBe('top'); // back on the cited page: the user scrolls, not us
    expect(a.next(true, 2, 5)).toBe('mark'); // the same citation clicked again
  });

  it('goes to the top of a new page when the citation has no mark there', () => {
    const a = new AfterDraw();
    expect(a.next(false, 1, 3)).toBe('top');
    expect(a.next(true, 1, 3)).toBe('mark'); // the mark is there after all: the target is still new
  });
});
