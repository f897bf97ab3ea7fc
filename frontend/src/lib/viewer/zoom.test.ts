import { describe, expect, it } from 'vitest';
import { canZoomIn, canZoomOut, nextZoom, scaleFor } from './zoom';
import { ViewerZoom } from './zoom.svelte';

describe('viewer zoom', () => {
  it('steps through the zoom levels and stops at the ends', () => {
    expect(nextZoom(1, 1)).toBe(1.1);
    expect(nextZoom(1, -1)).toBe(0.9);
    expect(nextZoom(1.03, 1)).toBe(1.1); // a fitted scale between steps goes to the next
    expect(nextZoom(3, 1)).toBeNull();
    expect(nextZoom(0.5, -1)).toBeNull();
    expect(canZoomIn(3)).toBe(false);
    expect(canZoomOut(0.5)).toBe(false);
  });
  it('fits the width, within bounds', () => {
    expect(scaleFor('fit', 652, 612)).toBeCloseTo(1, 5);
    expect(scaleFor('fit', 50, 612)).toBe(0.25);
    expect(scaleFor(1.5, 652, 612)).toBe(1.5);
  });
});

describe('ViewerZoom', () => {
  it('steps from the scale shown, fits again, and waits for the width to fit', () => {
    const z = new ViewerZoom();
    expect(z.ready).toBe(false); // fit width, the pane not measured yet
    z.width = 700;
    expect(z.ready).toBe(true);
    z.scale = 1.03; // what fit width gave
    z.by(1);
    expect(z.zoom).toBe(1.1);
    z.width = 0;
    expect(z.ready).toBe(true); // a step needs no width
    z.scale = 3;
    z.by(1);
    expect([z.zoom, z.canIn, z.canOut]).toEqual([1.1, false, true]);
    z.fit();
    expect(z.zoom).toBe('fit');
  });
});
