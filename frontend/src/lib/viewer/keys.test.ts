import { describe, expect, it } from 'vitest';
import { isFindKey, pageKey } from './keys';

const key = (k: string, mods: Partial<Record<'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey', boolean>> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});
const yes = () => true;
const no = () => false;

describe('pageKey', () => {
  it('turns pages with the arrows wherever the page is scrolled', () => {
    expect(pageKey(key('ArrowRight'), no, no)).toBe('next');
    expect(pageKey(key('ArrowLeft'), no, no)).toBe('prev');
  });

  it('turns pages with Page Down only at the foot and Page Up only at the top', () => {
    expect(pageKey(key('PageDown'), no, yes)).toBe('next');
    expect(pageKey(key('PageDown'), yes, no)).toBeNull();
    expect(pageKey(key('PageUp'), yes, no)).toBe('prev');
    expect(pageKey(key('PageUp'), no, yes)).toBeNull();
  });

  it('asks for the scroll position only for Page Up and Page Down', () => {
    let asked = 0;
    const ask = () => (asked++, true);
    pageKey(key('ArrowRight'), ask, ask);
    pageKey(key('+'), ask, ask);
    pageKey(key('x'), ask, ask);
    expect(asked).toBe(0);
  });

  it('zooms with + (or =) and -, not with Ctrl or ⌘ held (the browser zoom)', () => {
    expect(pageKey(key('+'), no, no)).toBe('zoom-in');
    expect(pageKey(key('='), no, no)).toBe('zoom-in');
    expect(pageKey(key('-'), no, no)).toBe('zoom-out');
    expect(pageKey(key('+', { ctrlKey: true }), no, no)).toBeNull();
    expect(pageKey(key('-', { metaKey: true }), no, no)).toBeNull();
    expect(pageKey(key('a'), no, no)).toBeNull();
  });
});

describe('isFindKey', () => {
  it('is Ctrl+F or ⌘F, either case, and nothing with Alt or Shift', () => {
    expect(isFindKey(key('f', { ctrlKey: true }))).toBe(true);
    expect(isFindKey(key('F', { metaKey: true }))).toBe(true);
    expect(isFindKey(key('f'))).toBe(false);
    expect(isFindKey(key('f', { ctrlKey: true, shiftKey: true }))).toBe(false);
    expect(isFindKey(key('f', { ctrlKey: true, altKey: true }))).toBe(false);
    expect(isFindKey(key('g', { ctrlKey: true }))).toBe(false);
  });
});
