// The answer renderer (render.ts: marked, KaTeX, highlight.js; most of the page's script)
// is its own chunk, loaded once the window has been painted (main.ts) instead of before
// its first paint: an empty window needs none of it. An answer that arrives before it
// shows as plain text and is rendered again when it comes (the state below).
import type * as Render from './render';

let loaded = $state.raw<typeof Render | null>(null);
let loading: Promise<typeof Render> | undefined;

/** Loads the renderer (once); `renderer()` returns it from then on. */
export function loadRenderer(): Promise<typeof Render> {
  loading ??= import('./render').then((m) => (loaded = m));
  return loading;
}

/** The renderer, or null while it loads (reading it in a $derived re-runs that on arrival). */
export function renderer(): typeof Render | null {
  return loaded;
}
