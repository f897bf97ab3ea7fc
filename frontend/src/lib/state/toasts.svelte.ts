// Short notices in a corner: "Already in your library", failed calls, and so on.

import { errorText } from '../text';

export type Toast = { id: number; kind: 'info' | 'error'; text: string };

export class ToastState {
  items = $state<Toast[]>([]);
  #next = 1;

  show = (text: string, kind: Toast['kind'] = 'info', ms = kind === 'error' ? 8000 : 4000): void => {
    // The same message twice in a row is shown once.
    if (this.items.some((t) => t.text === text)) return;
    const id = this.#next++;
    this.items.push({ id, kind, text });
    if (this.items.length > 4) this.items.shift();
    setTimeout(() => this.dismiss(id), ms);
  };

  error = (e: unknown, prefix = ''): void => {
    const msg = errorText(e);
    this.show(prefix ? `${prefix}: ${msg}` : msg, 'error');
  };

  dismiss = (id: number): void => {
    this.items = this.items.filter((t) => t.id !== id);
  };
}
