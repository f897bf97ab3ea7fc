// Pane sizes: the side pane and the viewer can be dragged wider or narrower, and the
// sizes are remembered in this webview's storage. The chat keeps what is left, never
// less than CHAT_MIN.

const KEY = 'carrel.layout';

export const SIDE = { min: 200, max: 420, def: 260 };
export const VIEWER = { min: 340, max: 1100, def: 520 };
export const CHAT_MIN = 360;
/** The rail a collapsed viewer leaves. */
export const RAIL = 44;

type Sizes = { side: number; viewer: number };

function load(): Sizes {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? '{}');
    return { side: Number(v.side) || SIDE.def, viewer: Number(v.viewer) || VIEWER.def };
  } catch {
    return { side: SIDE.def, viewer: VIEWER.def };
  }
}

const clamp = (v: number, lo: number, hi: number) => Math.max(lo, Math.min(hi, v));

/**
 * The widths to lay out in a window `width` wide: the stored sizes, shrunk (viewer first,
 * then the side pane) so that the chat keeps CHAT_MIN.
 */
export function fit(sizes: Sizes, width: number, viewerOpen: boolean): Sizes {
  let side = clamp(sizes.side, SIDE.min, SIDE.max);
  let viewer = viewerOpen ? clamp(sizes.viewer, VIEWER.min, VIEWER.max) : RAIL;
  const over = side + viewer + CHAT_MIN - width;
  if (over > 0 && viewerOpen) viewer = Math.max(VIEWER.min, viewer - over);
  const still = side + viewer + CHAT_MIN - width;
  if (still > 0) side = Math.max(SIDE.min, side - still);
  return { side, viewer };
}

export class LayoutState {
  side = $state(SIDE.def);
  viewer = $state(VIEWER.def);

  constructor() {
    const s = load();
    this.side = s.side;
    this.viewer = s.viewer;
  }

  /** Sets a pane's width (clamped) and remembers it. */
  resize = (pane: 'side' | 'viewer', px: number): void => {
    if (pane === 'side') this.side = Math.round(clamp(px, SIDE.min, SIDE.max));
    else this.viewer = Math.round(clamp(px, VIEWER.min, VIEWER.max));
    try {
      localStorage.setItem(KEY, JSON.stringify({ side: this.side, viewer: this.viewer }));
    } catch {
      // Kept for this run only.
    }
  };
}
