import { describe, expect, it } from 'vitest';
import { CHAT_MIN, fit, RAIL, SIDE, VIEWER } from './state/layout.svelte';

describe('layout fit', () => {
  it('keeps stored sizes when they fit', () => {
    expect(fit({ side: 280, viewer: 600 }, 1440, true)).toEqual({ side: 280, viewer: 600 });
  });
  it('shrinks the viewer, then the side pane, so the chat keeps its minimum', () => {
    const f = fit({ side: 300, viewer: 700 }, 1024, true);
    expect(f.side + f.viewer + CHAT_MIN).toBeLessThanOrEqual(1024);
    expect(f.viewer).toBeGreaterThanOrEqual(VIEWER.min);
    const g = fit({ side: 400, viewer: 900 }, 900, true);
    expect(g).toEqual({ side: 900 - VIEWER.min - CHAT_MIN, viewer: VIEWER.min });
    expect(g.side).toBeGreaterThanOrEqual(SIDE.min);
  });
  it('gives a collapsed viewer its rail only', () => {
    expect(fit({ side: 260, viewer: 700 }, 1024, false)).toEqual({ side: 260, viewer: RAIL });
  });
});
