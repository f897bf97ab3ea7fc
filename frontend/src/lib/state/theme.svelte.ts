// The colour theme: follow the system, or always light, or always dark. The choice is
// kept in this webview's storage; the page's <html data-theme> is what the CSS reads.

export type ThemeChoice = 'system' | 'light' | 'dark';

const KEY = 'carrel.theme';

function stored(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'system';
  } catch {
    return 'system';
  }
}

export class ThemeState {
  choice = $state<ThemeChoice>(stored());
  #media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
  #systemDark = $state(this.#media?.matches ?? false);
  /** The theme in effect. */
  resolved = $derived<'light' | 'dark'>(this.choice === 'system' ? (this.#systemDark ? 'dark' : 'light') : this.choice);

  set = (c: ThemeChoice): void => {
    this.choice = c;
    try {
      if (c === 'system') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, c);
    } catch {
      // Not kept; still applied.
    }
    this.apply();
  };

  /** Cycles system → light → dark → system (the header button). */
  cycle = (): void => this.set(this.choice === 'system' ? 'light' : this.choice === 'light' ? 'dark' : 'system');

  apply = (): void => {
    document.documentElement.dataset.theme = this.resolved;
  };

  /** Follows the system's changes; returns the cleanup (call from an $effect). */
  connect(): () => void {
    this.apply();
    const on = (e: MediaQueryListEvent) => {
      this.#systemDark = e.matches;
      this.apply();
    };
    this.#media?.addEventListener('change', on);
    return () => this.#media?.removeEventListener('change', on);
  }
}

/** Sets data-theme before the app mounts, so the first paint has the right colours. */
export function applyStoredTheme(): void {
  const c = stored();
  const dark = c === 'dark' || (c === 'system' && typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}
