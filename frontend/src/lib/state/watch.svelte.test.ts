import { describe, expect, it, vi } from 'vitest';
import type { WatchedFolder, WatchSynced } from '../types';
import { normalizeDir, WatchState, type WatchApi } from './watch.svelte';

function fakeApi(initial: WatchedFolder[] = []) {
  let listeners: ((d: WatchSynced) => void)[] = [];
  let stored = [...initial];
  const api = {
    listWatched: vi.fn(async () => [...stored]),
    watchFolder: vi.fn(async (dir: string) => {
      if (dir === '/nope') throw new Error('watch /nope: no such folder');
      const w = { dir, active: true, error: '' };
      stored = [...stored.filter((f) => f.dir !== dir), w];
      return w;
    }),
    unwatchFolder: vi.fn(async (dir: string) => {
      stored = stored.filter((f) => f.dir !== dir);
    }),
    onSynced: vi.fn((cb: (d: WatchSynced) => void) => {
      listeners.push(cb);
      return () => (listeners = listeners.filter((l) => l !== cb));
    }),
  } satisfies WatchApi;
  return { api, emit: (d: WatchSynced) => listeners.forEach((l) => l(d)), count: () => listeners.length };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('WatchState', () => {
  it('lists on connect, adds by path, refuses a duplicate, removes', async () => {
    const f = fakeApi([{ dir: '/notes', active: true, error: '' }]);
    const libRefresh = vi.fn();
    const w = new WatchState(libRefresh, f.api);
    const off = w.connect();
    await flush();
    expect(w.folders.map((x) => x.dir)).toEqual(['/notes']);

    expect(await w.add('  /papers/  ')).toBe(true);
    expect(f.api.watchFolder).toHaveBeenCalledWith('/papers');
    expect(w.folders.map((x) => x.dir)).toEqual(['/notes', '/papers']);
    expect(libRefresh).toHaveBeenCalled();

    expect(await w.add('/papers')).toBe(false);
    expect(w.error).toMatch(/already watched/);
    expect(f.api.watchFolder).toHaveBeenCalledTimes(1);

    await w.remove('/notes');
    expect(f.api.unwatchFolder).toHaveBeenCalledWith('/notes');
    expect(w.folders.map((x) => x.dir)).toEqual(['/papers']);
    expect(w.busy).toBe('');
    off();
    expect(f.count()).toBe(0);
  });

  it('shows why a folder could not be watched, and asks for a path', async () => {
    const w = new WatchState(() => {}, fakeApi().api);
    expect(await w.add('   ')).toBe(false);
    expect(w.error).toMatch(/path/);
    expect(await w.add('/nope')).toBe(false);
    expect(w.error).toBe('watch /nope: no such folder');
    expect(w.folders).toEqual([]);
    expect(await w.add('/ok')).toBe(true);
    expect(w.error).toBe('');
  });

  it('refreshes the library and the list on watch:synced', async () => {
    const f = fakeApi([{ dir: '/notes', active: true, error: '' }]);
    const libRefresh = vi.fn();
    const w = new WatchState(libRefresh, f.api);
    w.connect();
    await flush();
    f.api.listWatched.mockClear();
    f.emit({ dir: '/notes', ingested: [{}, {}], removed: ['/notes/old.md'], removed_ids: ['x'] });
    await flush();
    expect(libRefresh).toHaveBeenCalledTimes(1);
    expect(f.api.listWatched).toHaveBeenCalledTimes(1);
    expect(w.lastSync).toEqual({ dir: '/notes', added: 2, removed: 1 });
  });

  it('normalizes folder paths', () => {
    expect(normalizeDir(' /a/b/ ')).toBe('/a/b');
    expect(normalizeDir('C:\\docs\\')).toBe('C:\\docs');
    expect(normalizeDir('/')).toBe('/');
  });
});
