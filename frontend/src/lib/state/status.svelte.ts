// The backend's Status (mode, models, Ollama) and the event stream's connection.

import * as api from '../api';
import type { Connection } from '../api';
import type { Meter, Status } from '../types';
import { errorText } from '../text';

export class StatusState {
  status = $state<Status | null>(null);
  connection = $state<Connection>('connecting');
  error = $state('');

  mode = $derived(this.status?.mode ?? null);
  /** The cost meter; null until read (or on a backend without one). */
  meter = $state<Meter | null>(null);

  refreshMeter = async (): Promise<void> => {
    try {
      this.meter = await api.getMeter();
    } catch {
      this.meter = null;
    }
  };

  refresh = async (): Promise<void> => {
    try {
      this.status = await api.getStatus();
      this.error = '';
    } catch (e) {
      this.error = errorText(e);
    }
  };

  /** Subscribes to status events and loads the current status; returns the cleanup. */
  connect(onReconnect: () => void): () => void {
    const offs = [
      api.on('status:changed', (s) => (this.status = s)),
      api.on('meter:changed', (m) => (this.meter = m)),
      api.onConnection((c, reconnected) => {
        this.connection = c;
        if (reconnected) {
          void this.refresh();
          onReconnect();
        }
      }),
    ];
    void this.refresh();
    void this.refreshMeter();
    return () => offs.forEach((off) => off());
  }
}
