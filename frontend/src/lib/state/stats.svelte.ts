// The stats view: whether it is open and the figures it shows, kept current while open.

import * as api from '../api';
import type { Stats } from '../types';
import { errorText } from '../text';

export class StatsState {
  open = $state(false);
  data = $state<Stats | null>(null);
  loading = $state(false);
  error = $state('');
  #timer: ReturnType<typeof setTimeout> | undefined;

  /** Refreshes after each answer while the view is open (metrics are saved with it). */
  connect(): () => void {
    const later = () => {
      if (!this.open) return;
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.refresh(), 150);
    };
    const offs = [api.on('answer:done', later), api.on('answer:error', later), api.on('session:changed', later)];
    return () => {
      clearTimeout(this.#timer);
      offs.forEach((off) => off());
    };
  }

  show = (): void => {
    this.open = true;
    void this.refresh();
  };

  hide = (): void => {
    this.open = false;
  };

  toggle = (): void => (this.open ? this.hide() : this.show());

  refresh = async (): Promise<void> => {
    this.loading = true;
    try {
      this.data = await api.getStats();
      this.error = '';
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.loading = false;
    }
  };
}
