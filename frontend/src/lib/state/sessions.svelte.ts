// Saved study sessions: the list (kept current by `session:changed`), opening one into the
// chat, renaming, deleting and exporting.

import * as api from '../api';
import type { Session } from '../types';
import type { ChatState } from './chat.svelte';
import type { ToastState } from './toasts.svelte';
import { errorText } from '../text';

export class SessionsState {
  list = $state<Session[]>([]);
  loaded = $state(false);
  error = $state('');
  opening = $state('');
  /** The last session was reopened (or there was none): from now on, forget it on a new one. */
  #restored = $state(false);

  constructor(
    private chat: ChatState,
    private toasts: ToastState,
  ) {}

  connect(): () => void {
    // The session open when Carrel was last closed opens again.
    const remember = $effect.root(() => {
      $effect(() => {
        const id = this.chat.sessionID;
        try {
          if (id) localStorage.setItem(LAST_KEY, id);
          else if (this.#restored) localStorage.removeItem(LAST_KEY);
        } catch {
          // No storage: nothing to remember.
        }
      });
    });
    const off = api.on('session:changed', (ev) => {
      if (!ev.id) return;
      const rest = this.list.filter((s) => s.id !== ev.id);
      if (ev.deleted) {
        this.list = rest;
        return;
      }
      const { deleted: _d, ...s } = ev;
      this.list = [s, ...rest].sort((a, b) => (b.updated_at > a.updated_at ? 1 : b.updated_at < a.updated_at ? -1 : 0));
    });
    let last = '';
    try {
      last = localStorage.getItem(LAST_KEY) ?? '';
    } catch {
      // No storage.
    }
    void this.refresh().then(async () => {
      if (last && !this.chat.sessionID && this.chat.turns.length === 0 && this.list.some((s) => s.id === last)) await this.open(last);
      this.#restored = true;
    });
    return () => {
      off();
      remember();
    };
  }

  refresh = async (): Promise<void> => {
    try {
      this.list = await api.listSessions();
      this.error = '';
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.loaded = true;
    }
  };

  open = async (id: string): Promise<void> => {
    if (this.chat.busy) {
      this.toasts.show('Wait for the answer to finish, or stop it, before switching sessions.');
      return;
    }
    this.opening = id;
    try {
      this.chat.resume(await api.getSession(id));
    } catch (e) {
      this.toasts.error(e, 'Could not open the session');
    } finally {
      this.opening = '';
    }
  };

  rename = async (id: string, title: string): Promise<void> => {
    const t = title.trim();
    const s = this.list.find((x) => x.id === id);
    if (!t || !s || s.title === t) return;
    const old = s.title;
    s.title = t; // at once; the event confirms it
    try {
      await api.renameSession(id, t);
    } catch (e) {
      s.title = old;
      this.toasts.error(e, 'Could not rename');
    }
  };

  remove = async (id: string): Promise<void> => {
    try {
      await api.deleteSession(id);
      this.list = this.list.filter((s) => s.id !== id);
      if (this.chat.sessionID === id) this.chat.clear();
    } catch (e) {
      this.toasts.error(e, 'Could not delete');
    }
  };

  /** Markdown with references: a file in the browser, the clipboard in the desktop app. */
  exportMarkdown = async (id: string): Promise<void> => {
    try {
      const md = await api.exportSession(id);
      const title = this.list.find((s) => s.id === id)?.title || 'session';
      if (api.transport() === 'http') {
        const a = document.createElement('a');
        a.href = URL.createObjectURL(new Blob([md], { type: 'text/markdown' }));
        a.download = `${fileName(title)}.md`;
        a.click();
        setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
      } else {
        await navigator.clipboard.writeText(md);
        this.toasts.show('Copied the session as Markdown.');
      }
    } catch (e) {
      this.toasts.error(e, 'Could not export');
    }
  };
}

const LAST_KEY = 'carrel.session.last';

/** A title as a file name: no path separators or control characters, not too long. */
export function fileName(title: string): string {
  const s = title.replace(/[\\/:*?"<>|\u0000-\u001f]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 80);
  return s || 'session';
}
