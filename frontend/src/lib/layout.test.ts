import { describe, expect, it } from 'vitest';
import { CHAT_COMFORT, CHAT_MIN, fit, RAIL, SIDE, VIEWER } from './state/layout.svelte';

describe('layout fit', () => {
  it('keeps stored sizes when they fit', () => {
    expect(fit({ side: 280, viewer: 600 }, 1440, true)).toEqual({ side: 280, viewer: 600, folded: false });
  });
  it('shrinks the viewer, then the side pane, so the chat keeps its minimum', () => {
    const f = fit({ side: 300, viewer: 700 }, 1024, true, true);
    expect(f.side + f.viewer + CHAT_MIN).toBeLessThanOrEqual(1024);
    expect(f.viewer).toBeGreaterThanOrEqual(VIEWER.min);
    const g = fit({ side: 400, viewer: 900 }, 900, true, true);
    expect(g).toEqual({ side: 900 - VIEWER.min - CHAT_MIN, viewer: VIEWER.min, folded: false });
    expect(g.side).toBeGreaterThanOrEqual(SIDE.min);
  });
  it('gives a collapsed viewer its rail only', () => {
    expect(fit({ side: 260, viewer: 700 }, 1024, false)).toEqual({ side: 260, viewer: RAIL, folded: false });
  });
  it('folds the library into a rail while a source is open in a narrow window', () => {
    // 1024: 260 + 340 + 480 does not fit; the chat gets 1024 - 44 - 520 = 460 instead of 360.
    const f = fit({ side: 260, viewer: 520 }, 1024, true);
    expect(f).toEqual({ side: RAIL, viewer: 520, folded: true });
    expect(1024 - f.side - f.viewer).toBeGreaterThan(CHAT_MIN + 90);
    // A wide viewer still leaves the chat its minimum.
    const w = fit({ side: 260, viewer: 900 }, 1024, true);
    expect(1024 - w.side - w.viewer).toBe(CHAT_MIN);
    // Wide enough for all three: nothing folds.
    expect(fit({ side: 260, viewer: 520 }, 260 + VIEWER.min + CHAT_COMFORT, true).folded).toBe(false);
    // No source open: the library stays.
    expect(fit({ side: 260, viewer: 520 }, 1024, false).folded).toBe(false);
  });
});
