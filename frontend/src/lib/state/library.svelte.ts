// The library: documents kept up to date from `library:changed`, the selection that
// scopes questions, and the ways to add and remove documents.

import { PATH_ID_PREFIX } from '../bridge.gen';
import * as api from '../api';
import { applyDocumentEvent, mergeListing, pruneSelection, summarize, viewDocuments, type LibrarySort } from '../library';
import type { AddResult, Document } from '../types';
import type { ToastState } from './toasts.svelte';
import { errorText } from '../text';

/** The SHA-256 of a file's bytes in hex (a document's id), or '' where hashing is unavailable. */
async function contentID(f: File): Promise<string> {
  try {
    if (!globalThis.crypto?.subtle) return '';
    const sum = new Uint8Array(await crypto.subtle.digest('SHA-256', await f.arrayBuffer()));
    return Array.from(sum, (b) => b.toString(16).padStart(2, '0')).join('');
  } catch {
    return '';
  }
}

export class LibraryState {
  docs = $state<Document[]>([]);
  /** Documents that scope the next question; empty means all. */
  selected = $state<string[]>([]);
  loaded = $state(false);
  loadError = $state('');
  adding = $state(false);

  summary = $derived(summarize(this.docs));

  /** Filter words and order of the list (remembered across runs). */
  query = $state('');
  sort = $state<LibrarySort>(loadSort());
  visible = $derived(viewDocuments(this.docs, this.query, this.sort));

  #loading = 0;
  #touched = new Set<string>();
  #onRemoved: (id: string) => void;

  constructor(
    private toasts: ToastState,
    onRemoved: (id: string) => void = () => {},
  ) {
    this.#onRemoved = onRemoved;
  }

  byId = (id: string): Document | undefined => this.docs.find((d) => d.id === id);

  /** Subscribes to library events and loads the list; returns the cleanup. */
  connect(): () => void {
    const off = api.on('library:changed', (ev) => {
      if (this.#loading) this.#touched.add(ev.id);
      const had = this.docs.some((d) => d.id === ev.id);
      this.#replaceRetried(ev.id, ev.path);
      this.docs = applyDocumentEvent(this.docs, ev);
      if (ev.status === 'removed' && had) this.#onRemoved(ev.id);
      this.selected = pruneSelection(this.selected, this.docs);
    });
    // Files added that were already in the library, told once per burst (a dropped
    // folder can hold many).
    let known: string[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const offKnown = api.on('library:known', (d) => {
      known.push(d.title || d.path);
      clearTimeout(timer);
      timer = setTimeout(() => {
        this.toasts.show(known.length === 1 ? `Already in your library: ${known[0]}` : `${known.length} files are already in your library.`);
        known = [];
      }, 400);
    });
    void this.refresh();
    return () => {
      off();
      offKnown();
      clearTimeout(timer);
    };
  }

  refresh = async (): Promise<void> => {
    this.#loading++;
    try {
      const listing = await api.listDocuments();
      this.docs = mergeListing(listing, this.docs, this.#touched);
      this.selected = pruneSelection(this.selected, this.docs);
      this.loadError = '';
    } catch (e) {
      this.loadError = errorText(e);
    } finally {
      if (--this.#loading === 0) this.#touched.clear();
      this.loaded = true;
    }
  };

  isSelected = (id: string): boolean => this.selected.includes(id);

  toggle = (id: string): void => {
    this.selected = this.isSelected(id) ? this.selected.filter((x) => x !== id) : [...this.selected, id];
  };

  clearSelection = (): void => {
    this.selected = [];
  };

  remove = async (id: string): Promise<void> => {
    try {
      await api.removeDocument(id);
      // The event usually comes too; this keeps the list right if it does not.
      this.docs = this.docs.filter((d) => d.id !== id);
      this.selected = this.selected.filter((x) => x !== id);
      this.#onRemoved(id);
    } catch (e) {
      this.toasts.error(e, 'Could not remove');
    }
  };

  /** Reads a document again from its file: a newer Carrel keeps more (OCR word boxes). */
  reread = async (doc: Document): Promise<void> => {
    try {
      await api.rereadDocument(doc.id);
      this.toasts.show(`Reading ${doc.title || 'the document'} again…`);
    } catch (e) {
      this.toasts.error(e, 'Could not read it again');
    }
  };

  /** `exact`: each item asked is one file (uploads), so a shortfall means duplicates. */
  #added(r: AddResult, asked: number, exact: boolean) {
    if (r.queued === 0 && asked > 0) this.toasts.show(asked === 1 ? 'Already in your library.' : 'Already in your library, or nothing to add.');
    else if (exact && r.queued < asked) this.toasts.show(`Added ${r.queued}; ${asked - r.queued} already in your library.`);
  }

  /** Browser: File objects (picked or dropped) go up through /api/upload. */
  upload = async (files: File[]): Promise<void> => {
    if (!files.length) return;
    this.adding = true;
    try {
      // A document's id is the SHA-256 of its bytes: a file already in the library is
      // said so at once, not uploaded to be skipped silently.
      const known: string[] = [];
      const fresh: File[] = [];
      for (const f of files) {
        const id = await contentID(f);
        const d = id ? this.byId(id) : undefined;
        if (d && d.status !== 'failed') known.push(d.title || f.name);
        else fresh.push(f);
      }
      if (known.length) {
        this.toasts.show(known.length === 1 ? `Already in your library: ${known[0]}` : `${known.length} files are already in your library.`);
      }
      if (!fresh.length) return;
      this.#added(await api.upload(fresh), fresh.length, true);
      void this.refresh();
    } catch (e) {
      this.toasts.error(e, 'Could not add');
    } finally {
      this.adding = false;
    }
  };

  /** Desktop: native paths from a drop. */
  addPaths = async (paths: string[]): Promise<void> => {
    if (!paths.length) return;
    this.adding = true;
    try {
      this.#added(await api.addPaths(paths), paths.length, false);
      void this.refresh();
    } catch (e) {
      this.toasts.error(e, 'Could not add');
    } finally {
      this.adding = false;
    }
  };

  setSort = (sort: LibrarySort): void => {
    this.sort = sort;
    try {
      localStorage.setItem(SORT_KEY, sort);
    } catch {
      // Storage may be unavailable; the choice lasts this run.
    }
  };

  /** Failed documents being retried, by path → their id. */
  #retrying = new Map<string, string>();

  /**
   * A retried file that changed on disk is a new document (new content, new id): the
   * failed entry it replaces goes, from the library too.
   */
  #replaceRetried(id: string, path: string) {
    const old = this.#retrying.get(path);
    if (!old || old === id) return;
    this.#retrying.delete(path);
    this.docs = this.docs.filter((d) => d.id !== old);
    if (!old.startsWith(PATH_ID_PREFIX)) void api.removeDocument(old).catch(() => {});
  }

  /** Fetches a URL and adds it; progress and the outcome arrive as library events. */
  addURL = async (url: string): Promise<boolean> => {
    try {
      await api.addURL(url.trim());
      return true;
    } catch (e) {
      this.toasts.error(e, 'Could not add the page');
      return false;
    }
  };

  /** Adds a failed document again from where it was (its file may have been fixed). */
  retry = async (doc: Document): Promise<void> => {
    this.#retrying.set(doc.path, doc.id);
    try {
      if (/^https?:\/\//i.test(doc.path)) {
        await api.addURL(doc.path);
        return;
      }
      const r = await api.addPaths([doc.path]);
      if (r.queued === 0) this.toasts.show('Nothing to retry: the file is gone or already in your library.');
      void this.refresh();
    } catch (e) {
      this.toasts.error(e, 'Could not retry');
    }
  };

  /** Desktop: the native open dialog. Cancelling it is not an error worth a notice. */
  addDialog = async (): Promise<void> => {
    this.adding = true;
    try {
      const r = await api.addDialog();
      if (r.queued > 0) void this.refresh();
    } catch (e) {
      this.toasts.error(e, 'Could not add');
    } finally {
      this.adding = false;
    }
  };
}

const SORT_KEY = 'carrel.library.sort';

function loadSort(): LibrarySort {
  try {
    const v = localStorage.getItem(SORT_KEY);
    if (v === 'title' || v === 'status' || v === 'added') return v;
  } catch {
    // No storage (tests, private mode).
  }
  return 'added';
}
