// The app's shared state, one instance per window, passed down through Svelte context.

import { getContext, setContext } from 'svelte';
import * as api from '../api';
import type { LibraryFolder } from '../types';
import { closePdf } from '../pdf';
import { displayTitle } from '../library';
import type { Action } from '../shortcuts';
import { ChatState } from './chat.svelte';
import { LibraryState } from './library.svelte';
import { ModelsState } from './models.svelte';
import { SessionsState } from './sessions.svelte';
import { StatsState } from './stats.svelte';
import { StatusState } from './status.svelte';
import { StudyState } from './study.svelte';
import { ThemeState } from './theme.svelte';
import { ToastState } from './toasts.svelte';
import { TranscriptsState } from './transcripts.svelte';
import { ViewerState } from './viewer.svelte';
import { WatchState } from './watch.svelte';

export class AppState {
  toasts = new ToastState();
  theme = new ThemeState();
  status = new StatusState();
  viewer = new ViewerState();
  /** Recordings' transcripts, loaded when a citation or the viewer needs one. */
  transcripts = new TranscriptsState();
  chat = new ChatState();
  models = new ModelsState(this.status, this.toasts);
  stats = new StatsState();
  /** Flashcards: due counts, making cards, the review screen. */
  study = new StudyState(this.toasts);
  sessions = new SessionsState(this.chat, this.toasts);
  /** The keyboard shortcuts dialog is open. */
  help = $state(false);
  /** The left pane's tab. */
  side = $state<'library' | 'sessions'>('library');
  pendingAdd = false;
  library = new LibraryState(this.toasts, (id) => {
    this.viewer.forget(id);
    closePdf(id);
  });
  /** Watched folders; a sync refreshes the library. */
  watch = new WatchState(() => this.library.refresh());

  constructor() {
    // Another session's conversation does not keep this one's page open.
    this.chat.onSwitch = this.viewer.close;
  }

  /** The library folder in use (settings); null until read. */
  folder = $state<LibraryFolder | null>(null);

  refreshFolder = async (): Promise<void> => {
    try {
      this.folder = await api.getLibraryFolder();
    } catch {
      // Shown as missing; the settings section says what failed when it is used.
    }
  };

  /** Another library folder is open now: everything shown comes from it. */
  #switched = (f: LibraryFolder): void => {
    this.folder = f;
    this.chat.turns = [];
    this.chat.sessionID = '';
    this.viewer.target = null;
    this.transcripts.clear();
    this.library.docs = [];
    this.library.selected = [];
    void this.library.refresh();
    void this.sessions.refresh();
    void this.watch.refresh();
    void this.status.refresh();
    void this.status.refreshMeter();
    if (this.stats.open) void this.stats.refresh();
    this.study.open = false;
    this.study.quizOpen = false;
    void this.study.refreshDue();
    this.toasts.show(`Library folder: ${f.dir}`);
  };

  /** Requests for components, by action (a counter: each request increments it). */
  signals = $state<Partial<Record<Action, number>>>({});

  /** Runs a keyboard shortcut's action. */
  run = (action: Action): void => {
    switch (action) {
      case 'new-session':
        this.chat.clear();
        this.signals['focus-ask'] = (this.signals['focus-ask'] ?? 0) + 1;
        return;
      // next-citation / prev-citation: the chat pane walks the answer's markers, falling
      // back to stepCitation (the default case counts the request).
      case 'settings':
        this.stats.hide();
        return this.models.open ? this.models.hide() : this.models.show();
      case 'stats':
        this.models.hide();
        return this.stats.toggle();
      case 'toggle-viewer':
        return this.viewer.toggle();
      case 'help':
        this.help = !this.help;
        return;
      case 'review':
        void this.study.reviewDeck('', 'Cards due now');
        return;
      case 'add-documents':
        if (this.side !== 'library') {
          this.side = 'library';
          this.pendingAdd = true; // the library pane adds once it is shown
          return;
        }
        this.signals[action] = (this.signals[action] ?? 0) + 1;
        return;
      default:
        this.signals[action] = (this.signals[action] ?? 0) + 1;
    }
  };

  /** Opens the next (or previous) source of the latest answer that has sources. */
  stepCitation = (delta: 1 | -1): void => {
    const turn = [...this.chat.turns].reverse().find((t) => t.citations.length > 0);
    if (!turn) return;
    const cs = turn.citations;
    const t = this.viewer.target;
    const i = t ? cs.findIndex((c) => c.doc_id === t.docID && c.page === t.page && c.text === t.passage) : -1;
    const next = i < 0 ? (delta > 0 ? 0 : cs.length - 1) : (i + delta + cs.length) % cs.length;
    const c = cs[next];
    this.viewer.showCitation(c, this.library.byId(c.doc_id)?.kind ?? '');
  };

  /** Starts listening to the backend; returns the cleanup (call from an $effect). */
  connect(): () => void {
    const offs = [
      this.library.connect(),
      this.watch.connect(),
      this.chat.connect(),
      this.models.connect(),
      this.sessions.connect(),
      this.stats.connect(),
      this.study.connect(),
      this.theme.connect(),
      api.on('library:switched', this.#switched),
      api.on('document:open', (d) =>
        this.viewer.show({ docID: d.id, title: displayTitle(d), path: d.path, kind: d.kind, page: 1, passage: '' }),
      ),
      this.status.connect(() => {
        void this.library.refresh();
        void this.sessions.refresh();
        this.chat.interrupt('The connection to Carrel was interrupted; this answer may be incomplete.');
      }),
    ];
    return () => offs.forEach((off) => off());
  }
}

const KEY = Symbol.for('carrel.app');

export function setAppState(app: AppState): AppState {
  return setContext(KEY, app);
}

/** The AppState set by App.svelte. A getter, so components never hold a stale copy. */
export function useAppState(): AppState {
  const app = getContext<AppState | undefined>(KEY);
  if (!app) throw new Error('useAppState() called outside <App>');
  return app;
}
