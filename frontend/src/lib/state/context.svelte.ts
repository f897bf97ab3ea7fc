// The app's shared state, one instance per window, passed down through Svelte context.

import { getContext, setContext } from 'svelte';
import { closePdf } from '../pdf';
import { ChatState } from './chat.svelte';
import { LibraryState } from './library.svelte';
import { ModelsState } from './models.svelte';
import { StatusState } from './status.svelte';
import { ToastState } from './toasts.svelte';
import { ViewerState } from './viewer.svelte';

export class AppState {
  toasts = new ToastState();
  status = new StatusState();
  viewer = new ViewerState();
  chat = new ChatState();
  models = new ModelsState(this.status, this.toasts);
  library = new LibraryState(this.toasts, (id) => {
    this.viewer.forget(id);
    closePdf(id);
  });

  /** Starts listening to the backend; returns the cleanup (call from an $effect). */
  connect(): () => void {
    const offs = [
      this.library.connect(),
      this.chat.connect(),
      this.models.connect(),
      this.status.connect(() => {
        void this.library.refresh();
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
