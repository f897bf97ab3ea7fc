// Pure reduction of a model download from `model:pull` events, and its wording.
//
// Ollama reports each layer (a blob named by its digest) separately: the manifest first,
// then one "pulling <digest>" stream per layer, then verifying, writing, success.

import { PULL_CANCELLED, type ModelRole } from './bridge.gen';
import type { PullEvent } from './types';

export type Layer = { digest: string; total: number; completed: number };

export type PullState = 'starting' | 'running' | 'done' | 'failed' | 'cancelled';

export type Pull = {
  id: string;
  model: string;
  state: PullState;
  /** Ollama's last words ("pulling manifest", "verifying sha256 digest", …). */
  status: string;
  layers: Layer[];
  error: string;
  /** Use the model for this role once it is downloaded. */
  useAs: ModelRole | '';
};

export function newPull(model: string, useAs: Pull['useAs'] = ''): Pull {
  return { id: '', model, state: 'starting', status: '', layers: [], error: '', useAs };
}

export const isRunning = (p: Pull): boolean => p.state === 'starting' || p.state === 'running';

/** Applies one event (mutating the pull; Svelte state proxies track the writes). */
export function applyPullEvent(p: Pull, ev: PullEvent): void {
  if (!isRunning(p)) return; // nothing changes a finished pull
  if (ev.done) {
    p.state = ev.error ? (ev.status === PULL_CANCELLED ? 'cancelled' : 'failed') : 'done';
    p.error = ev.status === PULL_CANCELLED ? '' : ev.error;
    p.status = ev.status;
    if (p.state === 'done') for (const l of p.layers) l.completed = l.total;
    return;
  }
  p.state = 'running';
  if (ev.status) p.status = ev.status;
  if (!ev.digest || ev.total <= 0) return;
  const l = p.layers.find((x) => x.digest === ev.digest);
  if (!l) p.layers.push({ digest: ev.digest, total: ev.total, completed: Math.min(ev.completed, ev.total) });
  else {
    l.total = ev.total;
    l.completed = Math.min(Math.max(l.completed, ev.completed), ev.total); // never goes back
  }
}

/** Bytes done and total over all layers seen so far. */
export function pullBytes(p: Pull): { done: number; total: number } {
  let done = 0;
  let total = 0;
  for (const l of p.layers) {
    done += l.completed;
    total += l.total;
  }
  return { done, total };
}

/** 0…1; 1 once the pull succeeded. */
export function pullFraction(p: Pull): number {
  if (p.state === 'done') return 1;
  const { done, total } = pullBytes(p);
  return total > 0 ? done / total : 0;
}

export const layerFraction = (l: Layer): number => (l.total > 0 ? l.completed / l.total : 0);

export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '0 B';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  const i = Math.min(units.length - 1, Math.floor(Math.log10(n) / 3));
  const v = n / 10 ** (i * 3);
  return `${i === 0 ? v : v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** One line for the user. */
export function pullText(p: Pull): string {
  switch (p.state) {
    case 'starting':
      return 'Starting…';
    case 'done':
      return 'Downloaded';
    case 'cancelled':
      return 'Cancelled';
    case 'failed':
      return p.error || 'The download failed';
  }
  if (p.status.startsWith('pulling') && p.layers.length) {
    const { done, total } = pullBytes(p);
    return `Downloading ${formatBytes(done)} of ${formatBytes(total)}`;
  }
  if (p.status === 'pulling manifest') return 'Asking the registry…';
  if (p.status.startsWith('verifying')) return 'Checking the download…';
  if (p.status.startsWith('writing')) return 'Installing…';
  return p.status ? p.status[0].toUpperCase() + p.status.slice(1) : 'Downloading…';
}

/** "3.2B · Q4_K_M · 2.0 GB". */
export function modelFacts(m: { parameter_size: string; quantization: string; size: number }): string {
  return [m.parameter_size, m.quantization, m.size > 0 ? formatBytes(m.size) : '']
    .filter((x) => x && x.toLowerCase() !== 'unknown')
    .join(' · ');
}

/** Ollama writes "name" and "name:latest" for the same model. */
export const sameModel = (a: string, b: string): boolean =>
  !!a && !!b && a.replace(/:latest$/, '') === b.replace(/:latest$/, '');
