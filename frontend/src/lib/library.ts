// Pure reduction of the library from `library:changed` events and ListDocuments, and
// how a document's state is shown. No Svelte here: state classes call these.

import type { Document, DocumentEvent } from './types';
import { basename } from './markdown';

/** Newest first, then by title: the order documents are listed in. */
export function sortDocuments(docs: Document[]): Document[] {
  return [...docs].sort((a, b) => (b.added_at > a.added_at ? 1 : b.added_at < a.added_at ? -1 : displayTitle(a).localeCompare(displayTitle(b))));
}

/** Applies one event: upsert by id, or drop on `removed`. Returns a new array. */
export function applyDocumentEvent(docs: Document[], ev: DocumentEvent): Document[] {
  if (!ev.id) return docs;
  const rest = docs.filter((d) => d.id !== ev.id);
  if (ev.status === 'removed') return rest;
  const prev = docs.find((d) => d.id === ev.id);
  const doc: Document = { ...ev, status: ev.status, added_at: ev.added_at || prev?.added_at || new Date().toISOString() };
  return sortDocuments([...rest, doc]);
}

/**
 * Merges a ListDocuments result with events that arrived while it was in flight:
 * for ids touched by those events the event's version wins (it is newer), and ids
 * removed meanwhile stay removed.
 */
export function mergeListing(listing: Document[], current: Document[], touched: Set<string>): Document[] {
  const byId = new Map(listing.map((d) => [d.id, d]));
  for (const id of touched) {
    const live = current.find((d) => d.id === id);
    if (live) byId.set(id, live);
    else byId.delete(id);
  }
  // A URL being fetched is not a document yet: the listing cannot know it.
  for (const d of current) if (d.status === 'fetching' && !byId.has(d.id)) byId.set(d.id, d);
  return sortDocuments([...byId.values()]);
}

export function displayTitle(d: Pick<Document, 'title' | 'path'>): string {
  return d.title.trim() || basename(d.path) || 'Untitled';
}

/**
 * A failure's reason as its library row shows it, under the file's name: without the
 * name again, so that its two lines reach what is wrong ("lecture.pdf is a .pdf file that
 * is not a PDF: it looks like a PNG image; …" → "A .pdf file that is not a PDF: …").
 */
export function failureReason(path: string, reason: string): string {
  const name = basename(path);
  for (const lead of [`${name} is `, `${name}: `]) {
    if (name && reason.startsWith(lead) && reason.length > lead.length) {
      const rest = reason.slice(lead.length);
      return rest[0].toUpperCase() + rest.slice(1);
    }
  }
  return reason;
}

export type ProgressView = {
  /** 0..1, or null for "working, amount unknown" (an indeterminate bar). */
  fraction: number | null;
  label: string;
  busy: boolean;
};

/** How a document's status and progress read in the library. */
export function progressView(d: Document): ProgressView {
  const { done, total } = d.progress;
  const frac = total > 0 ? Math.min(1, Math.max(0, done / total)) : null;
  switch (d.status) {
    case 'queued':
      return { fraction: null, label: 'Waiting…', busy: true };
    case 'fetching':
      return { fraction: null, label: 'Fetching…', busy: true };
    case 'extracting':
      // Past the last page the work left (cutting and indexing passages) has no count:
      // an indeterminate bar, not "page 249 of 249" beside a bar that has not arrived.
      if (total > 0 && done >= total) return { fraction: null, label: 'Indexing passages…', busy: true };
      // A recording counts minutes of speech transcribed.
      if (d.kind === 'audio' || d.kind === 'video')
        return { fraction: frac, label: total > 0 ? `Transcribing minute ${done} of ${total} (${Math.round((frac ?? 0) * 100)}%)` : 'Transcribing…', busy: true };
      return { fraction: frac, label: total > 0 ? `Reading page ${done} of ${total} (${Math.round((frac ?? 0) * 100)}%)` : 'Reading…', busy: true };
    case 'embedding':
      return { fraction: frac, label: total > 0 ? `Indexing ${Math.min(done, total)} of ${total} passages (${Math.round((frac ?? 0) * 100)}%)` : 'Indexing…', busy: true };
    case 'ready':
      return { fraction: 1, label: readyLabel(d), busy: false };
    case 'failed':
      return { fraction: null, label: d.error || 'Could not be read', busy: false };
  }
}

function readyLabel(d: Document): string {
  const parts: string[] = [];
  if (d.pages > 0) parts.push(`${d.pages} ${d.pages === 1 ? 'page' : 'pages'}`);
  if (d.bytes > 0) parts.push(formatBytes(d.bytes));
  return parts.join(' · ') || 'Ready';
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / 1024 / 1024).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

/** `total` counts documents (ready or on their way); files that failed are not documents. */
export type LibrarySummary = { total: number; ready: number; busy: number; failed: number };

export function summarize(docs: Document[]): LibrarySummary {
  const s = { total: 0, ready: 0, busy: 0, failed: 0 };
  for (const d of docs) {
    if (d.status === 'ready') s.ready++;
    else if (d.status === 'failed') s.failed++;
    else s.busy++;
  }
  s.total = s.ready + s.busy;
  return s;
}

/** A path's extension without the dot, in lower case, as Go's filepath.Ext finds it (after the last dot of the last element). */
function fileExt(path: string): string {
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '' : base.slice(dot + 1).toLowerCase();
}

/** The short type label of a document: its file's kind as a student knows it. */
export function kindLabel(d: Pick<Document, 'kind' | 'path' | 'url'>): string {
  if (d.kind === 'thread') return /reddit\.com/i.test(d.url ?? '') ? 'Reddit' : /ycombinator\.com/i.test(d.url ?? '') ? 'HN' : 'Thread';
  if (d.url && d.kind === 'html') return 'Web';
  if (d.url && d.kind === 'video' && /youtube\.com|youtu\.be/i.test(d.url)) return 'YouTube';
  const ext = /\.([a-z0-9]+)$/i.exec(d.path)?.[1]?.toLowerCase() ?? '';
  if (ext === 'md' || ext === 'markdown') return 'Markdown';
  if (ext === 'txt' || ext === 'text') return 'Text';
  if (d.kind === 'pdf' || ext === 'pdf') return 'PDF';
  // A file of no kind Carrel reads (kind ''): its extension, as Go's filepath.Ext gives it.
  return (d.kind || fileExt(d.path)).toUpperCase();
}

/** Whether Retry can help a failed file: an empty file (backend/ingest/errors.go: "X is empty") stays empty. */
export function canRetry(d: Pick<Document, 'bytes' | 'error'>): boolean {
  return !/ is empty\b/.test(d.error ?? '') && !(d.bytes === 0 && /\bempty\b/i.test(d.error ?? ''));
}

/** Drops ids from a selection that no longer name a document that can be asked. */
export function pruneSelection(selected: string[], docs: Document[]): string[] {
  const ok = new Set(docs.filter((d) => d.status !== 'failed').map((d) => d.id));
  const next = selected.filter((id) => ok.has(id));
  return next.length === selected.length ? selected : next;
}

export type LibrarySort = 'added' | 'title' | 'status';

const STATUS_RANK: Record<Document['status'], number> = { failed: 0, fetching: 1, extracting: 1, embedding: 1, queued: 2, ready: 3 };

/**
 * What the library pane lists: documents whose title, file name or kind contain every
 * word of `query` (any case), in the chosen order. Newest first is the stored order.
 */
export function viewDocuments(docs: Document[], query: string, sort: LibrarySort): Document[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const out = words.length
    ? docs.filter((d) => {
        const hay = `${displayTitle(d)} ${basename(d.path)} ${d.kind}`.toLowerCase();
        return words.every((w) => hay.includes(w));
      })
    : [...docs];
  const byTitle = (a: Document, b: Document) =>
    displayTitle(a).localeCompare(displayTitle(b), undefined, { numeric: true, sensitivity: 'base' });
  if (sort === 'title') out.sort(byTitle);
  else if (sort === 'status') out.sort((a, b) => STATUS_RANK[a.status] - STATUS_RANK[b.status] || byTitle(a, b));
  return out;
}

/** The OCR marker of a library entry: '' for a document with no page read by OCR. */
export function ocrMarker(d: Pick<Document, 'ocr_pages' | 'pages'>): { label: string; title: string } {
  const n = d.ocr_pages;
  if (!n) return { label: '', title: '' };
  const all = d.pages > 0 && n >= d.pages;
  // A book with one scanned page is not a scanned book: say how many pages, unless all.
  return {
    label: all ? 'Scanned' : `${n} ${n === 1 ? 'page' : 'pages'} OCR'd`,
    title: all ? `Scanned: every page was read by OCR` : `${n} scanned page${n === 1 ? ' was' : 's were'} read by OCR`,
  };
}
