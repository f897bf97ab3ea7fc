// Models and first-run setup: Ollama's state, installed models, downloads in progress,
// switching the chat and embedding models. The panel that shows it is settings-panel.

import * as api from '../api';
import { applyPullEvent, isRunning, newPull, sameModel, type Pull } from '../pulls';
import type { ModelRole } from '../bridge.gen';
import type { Models, PullEvent } from '../types';
import type { StatusState } from './status.svelte';
import type { ToastState } from './toasts.svelte';
import { errorText } from '../text';

export class ModelsState {
  info = $state<Models | null>(null);
  loading = $state(false);
  error = $state('');
  starting = $state(false);
  /** A SetModels call in flight, by role. */
  switching = $state<'' | ModelRole>('');
  open = $state(false);
  pulls = $state<Pull[]>([]);

  installed = $derived(this.info?.models ?? []);
  running = $derived(this.pulls.some(isRunning));

  /** Events for a pull whose id PullModel has not returned yet. */
  #early = new Map<string, PullEvent[]>();

  constructor(
    private status: StatusState,
    private toasts: ToastState,
  ) {}

  connect(): () => void {
    return api.on('model:pull', (ev) => this.#apply(ev));
  }

  #apply(ev: PullEvent) {
    const p = this.pulls.find((x) => x.id && x.id === ev.pull_id);
    if (!p) {
      const list = this.#early.get(ev.pull_id) ?? [];
      list.push(ev);
      this.#early.set(ev.pull_id, list);
      return;
    }
    const was = p.state;
    applyPullEvent(p, ev);
    if (was !== p.state) void this.#finished(p);
  }

  async #finished(p: Pull) {
    if (p.state === 'failed') this.toasts.show(`Could not download ${p.model}: ${p.error}`, 'error');
    if (p.state !== 'done') return;
    await this.refresh();
    if (p.useAs) await this.use(p.useAs, p.model);
  }

  show = (): void => {
    this.open = true;
    void this.refresh();
  };

  hide = (): void => {
    this.open = false;
  };

  refresh = async (): Promise<void> => {
    this.loading = true;
    try {
      this.info = await api.listModels();
      this.error = '';
    } catch (e) {
      this.error = errorText(e);
    } finally {
      this.loading = false;
    }
  };

  startOllama = async (): Promise<void> => {
    this.starting = true;
    try {
      this.info = await api.startOllama();
      this.error = '';
      void this.status.refresh();
    } catch (e) {
      this.toasts.error(e, 'Could not start Ollama');
    } finally {
      this.starting = false;
    }
  };

  /** The latest download of a model (running or finished), if any. */
  pullOf = (model: string): Pull | undefined => {
    for (let i = this.pulls.length - 1; i >= 0; i--) if (sameModel(this.pulls[i].model, model)) return this.pulls[i];
    return undefined;
  };

  isInstalled = (model: string): boolean => this.installed.some((m) => sameModel(m.name, model));

  pull = async (model: string, opts: { insecure?: boolean; useAs?: Pull['useAs'] } = {}): Promise<void> => {
    const name = model.trim();
    if (!name || this.pullOf(name)?.state === 'running') return;
    this.pulls.push(newPull(name, opts.useAs ?? ''));
    const p = this.pulls[this.pulls.length - 1]; // the reactive proxy
    try {
      p.id = await api.pullModel(name, opts.insecure ?? false);
      const early = this.#early.get(p.id) ?? [];
      this.#early.delete(p.id);
      for (const ev of early) this.#apply(ev);
    } catch (e) {
      p.state = 'failed';
      p.error = errorText(e);
    }
  };

  cancel = async (p: Pull): Promise<void> => {
    if (!p.id || !isRunning(p)) return;
    try {
      await api.cancelPull(p.id);
    } catch {
      // Finished meanwhile.
    }
  };

  dismiss = (p: Pull): void => {
    this.pulls = this.pulls.filter((x) => x !== p);
  };

  use = async (role: ModelRole, model: string): Promise<void> => {
    this.switching = role;
    try {
      const st = await api.setModels(role === 'chat' ? model : '', role === 'embed' ? model : '');
      this.status.status = st;
      if (this.info) {
        this.info.chat_model = st.chat_model;
        this.info.embed_model = st.embed_model;
      }
    } catch (e) {
      this.toasts.error(e, 'Could not switch models');
    } finally {
      this.switching = '';
    }
  };
}
