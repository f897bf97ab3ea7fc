// Pane sizes: the side pane and the viewer can be dragged wider or narrower, and the
// sizes are remembered in this webview's storage. The chat keeps what is left, never
// less than CHAT_MIN.

const KEY = 'carrel.layout';

export const SIDE = { min: 200, max: 420, def: 260 };
export const VIEWER = { min: 340, max: 1100, def: 520 };
export const CHAT_MIN = 360;
/**
 * The width under which an answer reads cramped: when the library, a viewer at its
 * narrowest and this do not fit, the library folds into a rail while a source is open
 * (at 1024 px the chat had 360 px beside a 260 px library and a 404 px viewer).
 */
export const CHAT_COMFORT = 480;
/** The rail a collapsed viewer (or a folded library) leaves. */
export const RAIL = 44;

type Sizes = { side: number; viewer: number };
export type Fitted = Sizes & { folded: boolean };

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
 * then the side pane) so that the chat keeps CHAT_MIN. With a source open in a window too
 * narrow for the library, the viewer and CHAT_COMFORT, the library folds into a rail
 * (`folded`) unless the reader asked for it (`sideShown`).
 */
export function fit(sizes: Sizes, width: number, viewerOpen: boolean, sideShown = false): Fitted {
  let side = clamp(sizes.side, SIDE.min, SIDE.max);
  const folded = viewerOpen && !sideShown && side + VIEWER.min + CHAT_COMFORT > width;
  if (folded) side = RAIL;
  let viewer = viewerOpen ? clamp(sizes.viewer, VIEWER.min, VIEWER.max) : RAIL;
  const over = side + viewer + CHAT_MIN - width;
  if (over > 0 && viewerOpen) viewer = Math.max(VIEWER.min, viewer - over);
  const still = side + viewer + CHAT_MIN - width;
  if (still > 0 && !folded) side = Math.max(SIDE.min, side - still);
  return { side, viewer, folded };
}

export class LayoutState {
  side = $state(SIDE.def);
  viewer = $state(VIEWER.def);
  /** The reader unfolded the library while a source is open (until the viewer closes). */
  sideShown = $state(false);

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
