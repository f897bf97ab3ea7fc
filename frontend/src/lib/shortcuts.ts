// Keyboard shortcuts: which key does what. Mod is ⌘ on macOS, Ctrl elsewhere.

export type Action =
  | 'new-session'
  | 'focus-ask'
  | 'add-documents'
  | 'focus-library'
  | 'next-citation'
  | 'prev-citation'
  | 'settings'
  | 'stats'
  | 'toggle-viewer'
  | 'review'
  | 'help';

export type KeyLike = {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  /** True when the key goes to a text field (plain keys then type, not command). */
  typing: boolean;
};

export const isMac = (): boolean => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

export function shortcutFor(e: KeyLike, mac = isMac()): Action | null {
  const mod = mac ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (mod && !e.altKey) {
    if (e.shiftKey) return null;
    switch (key) {
      case 'n':
        return 'new-session';
      case 'k':
        return 'focus-ask';
      case 'o':
        return 'add-documents';
      case 'l':
        return 'focus-library';
      case ',':
        return 'settings';
      case 'i':
        return 'stats';
      case '\\':
        return 'toggle-viewer';
    }
    return null;
  }
  if (e.altKey && !e.ctrlKey && !e.metaKey && !e.shiftKey) {
    if (key === 'ArrowDown') return 'next-citation';
    if (key === 'ArrowUp') return 'prev-citation';
    return null;
  }
  if (e.typing || e.ctrlKey || e.metaKey || e.altKey) return null;
  if (key === '/') return 'focus-ask';
  if (key === '?') return 'help';
  if (key === 'r') return 'review';
  if (key === ']') return 'next-citation';
  if (key === '[') return 'prev-citation';
  return null;
}

/** For help text and aria-keyshortcuts: "Ctrl+N" or "⌘N". */
export function keyLabel(key: string, mac = isMac()): string {
  return mac ? `⌘${key.toUpperCase()}` : `Ctrl+${key.toUpperCase()}`;
}

/** The shortcuts, as the help list shows them. */
export const SHORTCUTS: { keys: (mac: boolean) => string; what: string }[] = [
  { keys: (m) => keyLabel('k', m) + ' or /', what: 'Ask a question' },
  { keys: (m) => keyLabel('n', m), what: 'New session' },
  { keys: (m) => keyLabel('o', m), what: 'Add documents' },
  { keys: (m) => keyLabel('l', m), what: 'Find in the library' },
  { keys: () => '] / [  or  Alt+↓ / Alt+↑', what: 'Next / previous citation' },
  { keys: (m) => keyLabel(',', m), what: 'Models and settings' },
  { keys: (m) => keyLabel('i', m), what: 'Usage and stats' },
  { keys: (m) => keyLabel('\\', m), what: 'Show or hide the viewer' },
  { keys: () => 'R', what: 'Review the cards due now' },
  { keys: () => '?', what: 'Show these shortcuts' },
];
