import { describe, expect, it } from 'vitest';
import { shortcutFor, type KeyLike } from './shortcuts';

const k = (key: string, o: Partial<KeyLike> = {}): KeyLike => ({ key, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, typing: false, ...o });

describe('shortcuts', () => {
  it('uses Ctrl on Linux and Windows, ⌘ on macOS', () => {
    expect(shortcutFor(k('n', { ctrlKey: true }), false)).toBe('new-session');
    expect(shortcutFor(k('N', { ctrlKey: true }), false)).toBe('new-session');
    expect(shortcutFor(k('n', { metaKey: true }), false)).toBeNull();
    expect(shortcutFor(k('n', { metaKey: true }), true)).toBe('new-session');
    expect(shortcutFor(k('n', { ctrlKey: true }), true)).toBeNull();
    expect(shortcutFor(k('o', { ctrlKey: true }), false)).toBe('add-documents');
    expect(shortcutFor(k('l', { ctrlKey: true }), false)).toBe('focus-library');
    expect(shortcutFor(k(',', { ctrlKey: true }), false)).toBe('settings');
    expect(shortcutFor(k('i', { ctrlKey: true, typing: true }), false)).toBe('stats');
    expect(shortcutFor(k('I', { metaKey: true }), true)).toBe('stats');
    expect(shortcutFor(k('k', { ctrlKey: true, typing: true }), false)).toBe('focus-ask');
  });
  it('leaves Shift and Alt combinations with Mod to the system', () => {
    expect(shortcutFor(k('n', { ctrlKey: true, shiftKey: true }), false)).toBeNull();
    expect(shortcutFor(k('c', { ctrlKey: true }), false)).toBeNull();
  });
  it('plain keys act only outside text fields', () => {
    expect(shortcutFor(k('/'), false)).toBe('focus-ask');
    expect(shortcutFor(k(']'), false)).toBe('next-citation');
    expect(shortcutFor(k('['), false)).toBe('prev-citation');
    expect(shortcutFor(k('/', { typing: true }), false)).toBeNull();
    expect(shortcutFor(k('?', { shiftKey: true }), false)).toBe('help');
    expect(shortcutFor(k('r'), false)).toBe('review');
    expect(shortcutFor(k('r', { typing: true }), false)).toBe(null);
    expect(shortcutFor(k('?', { shiftKey: true, typing: true }), false)).toBeNull();
    expect(shortcutFor(k(']', { typing: true }), false)).toBeNull();
  });
  it('Alt+arrows step through sources, even while typing', () => {
    expect(shortcutFor(k('ArrowDown', { altKey: true, typing: true }), false)).toBe('next-citation');
    expect(shortcutFor(k('ArrowUp', { altKey: true }), true)).toBe('prev-citation');
    expect(shortcutFor(k('ArrowUp'), false)).toBeNull();
  });
});
