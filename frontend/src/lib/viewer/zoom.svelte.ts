// The viewer's zoom as state: the level chosen (a step or "fit width"), the scale the page
// was drawn at last, and the pane's width that "fit width" follows.

import { canZoomIn, canZoomOut, nextZoom, type Zoom } from './zoom';

export class ViewerZoom {
  zoom = $state<Zoom>('fit');
  /** The scale the page on screen was drawn at (fit width gives any scale, not a step). */
  scale = $state(1);
  /** The pane's width, for "fit width"; 0 until it is measured. */
  width = $state(0);

  /** Whether a page can be drawn: "fit width" needs the pane's width first. */
  get ready(): boolean {
    return this.zoom !== 'fit' || this.width !== 0;
  }

  get canIn(): boolean {
    return canZoomIn(this.scale);
  }

  get canOut(): boolean {
    return canZoomOut(this.scale);
  }

  /** One step in or out from the scale shown; nothing at the ends. */
  by = (dir: 1 | -1): void => {
    const next = nextZoom(this.scale, dir);
    if (next) this.zoom = next;
  };

  fit = (): void => {
    this.zoom = 'fit';
  };

  /**
   * Follows the pane's width: the first measure at once, later ones debounced so that a
   * window resize draws the page once. Returns the cleanup.
   */
  observe(pane: HTMLElement): () => void {
    let t: ReturnType<typeof setTimeout> | undefined;
    const ro = new ResizeObserver(([entry]) => {
      clearTimeout(t);
      const w = Math.floor(entry.contentRect.width);
      if (this.width === 0) this.width = w;
      else t = setTimeout(() => (this.width = w), 120);
    });
    ro.observe(pane);
    return () => {
      clearTimeout(t);
      ro.disconnect();
    };
  }
}
