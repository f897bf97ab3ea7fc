// Watched folders (docs/bridge.md "Watched folders"): the list, adding one by path,
// stopping one, and refreshing the library when a folder's changes were taken in.

import * as realApi from '../api';
import type { WatchedFolder, WatchSynced } from '../types';
import { errorText } from '../text';

export type WatchApi = {
  listWatched: () => Promise<WatchedFolder[]>;
  watchFolder: (dir: string) => Promise<WatchedFolder>;
  unwatchFolder: (dir: string) => Promise<void>;
  onSynced: (cb: (d: WatchSynced) => void) => () => void;
};

const defaultApi: WatchApi = {
  listWatched: realApi.listWatched,
  watchFolder: realApi.watchFolder,
  unwatchFolder: realApi.unwatchFolder,
  onSynced: (cb) => realApi.on('watch:synced', cb),
};

const errText = (e: unknown) => (errorText(e));

/** The same folder however it was typed: no trailing separator, surrounding blanks trimmed. */
export function normalizeDir(dir: string): string {
  const t = dir.trim();
  return t.length > 1 ? t.replace(/[\\/]+$/, '') || t : t;
}

export class WatchState {
  folders = $state<WatchedFolder[]>([]);
  /** Folder being added or removed ('' when idle). */
  busy = $state('');
  error = $state('');
  /** The last sync, for a one-line note. */
  lastSync = $state<{ dir: string; added: number; removed: number } | null>(null);

  constructor(
    private onLibraryChanged: () => void | Promise<void>,
    private api: WatchApi = defaultApi,
  ) {}

  connect(): () => void {
    const off = this.api.onSynced((d) => {
      this.lastSync = { dir: d.dir, added: d.ingested?.length ?? 0, removed: d.removed?.length ?? 0 };
      void this.onLibraryChanged();
      void this.refresh();
    });
    void this.refresh();
    return off;
  }

  refresh = async (): Promise<void> => {
    try {
      this.folders = await this.api.listWatched();
    } catch (e) {
      this.error = errText(e);
    }
  };

  /** Watches a folder by path; false (with `error` set) when it could not be. */
  add = async (input: string): Promise<boolean> => {
    const dir = normalizeDir(input);
    this.error = '';
    if (!dir) {
      this.error = 'Type the path of a folder.';
      return false;
    }
    if (this.folders.some((f) => normalizeDir(f.dir) === dir && f.active)) {
      this.error = 'That folder is already watched.';
      return false;
    }
    this.busy = dir;
    try {
      const w = await this.api.watchFolder(dir);
      const rest = this.folders.filter((f) => normalizeDir(f.dir) !== normalizeDir(w.dir || dir));
      this.folders = [...rest, w.dir ? w : { dir, active: true, error: '' }];
      void this.onLibraryChanged();
      return true;
    } catch (e) {
      this.error = errText(e);
      return false;
    } finally {
      this.busy = '';
    }
  };

  /** Stops watching; the folder's documents stay in the library. */
  remove = async (dir: string): Promise<void> => {
    this.error = '';
    this.busy = dir;
    try {
      await this.api.unwatchFolder(dir);
      this.folders = this.folders.filter((f) => f.dir !== dir);
    } catch (e) {
      this.error = errText(e);
    } finally {
      this.busy = '';
    }
  };
}
