// The viewer's keys: what a key pressed on the page does, and the find shortcut.

export type PageKey = 'next' | 'prev' | 'zoom-in' | 'zoom-out' | null;

type Key = Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>;

/**
 * What a key pressed on the page does: the arrows turn pages, and so do Page Down at the
 * foot of the page and Page Up at its top (elsewhere they scroll); + (or =) and - zoom.
 * The scroll position is asked only for Page Up and Page Down.
 */
export function pageKey(e: Key, atTop: () => boolean, atBottom: () => boolean): PageKey {
  if (e.key === 'ArrowRight' || (e.key === 'PageDown' && atBottom())) return 'next';
  if (e.key === 'ArrowLeft' || (e.key === 'PageUp' && atTop())) return 'prev';
  if ((e.key === '+' || e.key === '=') && !e.metaKey && !e.ctrlKey) return 'zoom-in';
  if (e.key === '-' && !e.metaKey && !e.ctrlKey) return 'zoom-out';
  return null;
}

/** Ctrl+F (⌘F): find in the document shown; the desktop webview has no find bar of its own. */
export const isFindKey = (e: Key): boolean => (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === 'f';
