// The backend's Status (mode, models, Ollama) and the event stream's connection.

import * as api from '../api';
import type { Connection } from '../api';
import type { Status } from '../types';

export class StatusState {
  status = $state<Status | null>(null);
  connection = $state<Connection>('connecting');
  error = $state('');

  mode = $derived(this.status?.mode ?? null);

  refresh = async (): Promise<void> => {
    try {
      this.status = await api.getStatus();
      this.error = '';
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  };

  /** Subscribes to status events and loads the current status; returns the cleanup. */
  connect(onReconnect: () => void): () => void {
    const offs = [
      api.on('status:changed', (s) => (this.status = s)),
      api.onConnection((c, reconnected) => {
        this.connection = c;
        if (reconnected) {
          void this.refresh();
          onReconnect();
        }
      }),
    ];
    void this.refresh();
    return () => offs.forEach((off) => off());
  }
}
