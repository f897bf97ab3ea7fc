// Zoom of the PDF viewer: the steps, the next step either way, and "fit width".

export const ZOOMS = [0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 1.75, 2, 2.5, 3];

export type Zoom = 'fit' | number;

/** The next zoom step from `scale` in direction `dir`, or null at the end. */
export function nextZoom(scale: number, dir: 1 | -1): number | null {
  const next = dir > 0 ? ZOOMS.find((z) => z > scale + 0.01) : [...ZOOMS].reverse().find((z) => z < scale - 0.01);
  return next ?? null;
}

/** The scale a page `pageWidth` wide is drawn at for `zoom` in a pane `paneWidth` wide. */
export function scaleFor(zoom: Zoom, paneWidth: number, pageWidth: number): number {
  return zoom === 'fit' ? Math.min(4, Math.max(0.25, (paneWidth - 40) / pageWidth)) : zoom;
}

export const canZoomOut = (scale: number) => scale > ZOOMS[0] + 0.01;
export const canZoomIn = (scale: number) => scale < ZOOMS[ZOOMS.length - 1] - 0.01;
