import { describe, expect, it } from 'vitest';
import { applyDocumentEvent, failureReason, mergeListing, progressView, pruneSelection, summarize, viewDocuments } from './library';
import { document as parseDocument, documentEvent } from './normalize';
import type { Document, DocumentEvent } from './types';

const doc = (id: string, over: Partial<DocumentEvent> = {}): DocumentEvent =>
  documentEvent({
    id,
    path: `/lib/${id}.pdf`,
    title: id.toUpperCase(),
    kind: 'pdf',
    status: 'queued',
    added_at: '2025-01-01T00:00:00Z',
    ...over,
  });

/** Replays a stream of events the way LibraryState does. */
const replay = (events: DocumentEvent[], start: Document[] = []) => events.reduce(applyDocumentEvent, start);

describe('library events', () => {
  it('follows one document from queued to ready', () => {
    const events = [
      doc('a'),
      doc('a', { status: 'extracting', progress: { done: 0, total: 10 } }),
      doc('a', { status: 'extracting', progress: { done: 5, total: 10 } }),
      doc('a', { status: 'extracting', progress: { done: 10, total: 10 } }),
      doc('a', { status: 'embedding', pages: 10, progress: { done: 20, total: 40 } }),
      doc('a', { status: 'ready', pages: 10, chunks: 40, progress: { done: 40, total: 40 } }),
    ];
    const views: string[] = [];
    let docs: Document[] = [];
    for (const e of events) {
      docs = applyDocumentEvent(docs, e);
      const v = progressView(docs[0]);
      views.push(`${docs[0].status} ${v.fraction === null ? '?' : v.fraction} ${v.label}`);
    }
    expect(docs).toHaveLength(1);
    expect(views).toEqual([
      'queued ? Waiting…',
      'extracting 0 Reading page 0 of 10 (0%)',
      'extracting 0.5 Reading page 5 of 10 (50%)',
      'extracting ? Indexing passages…',
      'embedding 0.5 Indexing 20 of 40 passages (50%)',
      'ready 1 10 pages',
    ]);
  });

  it('keeps the failure reason of a failed document', () => {
    const docs = replay([doc('a'), doc('a', { status: 'failed', error: 'encrypted: a password is needed' })]);
    const v = progressView(docs[0]);
    expect(docs[0].status).toBe('failed');
    expect(v.label).toBe('encrypted: a password is needed');
    expect(v.busy).toBe(false);
  });

  it('drops removed documents and ignores unknown removals', () => {
    const docs = replay([doc('a'), doc('b'), doc('a', { status: 'removed' }), doc('zzz', { status: 'removed' })]);
    expect(docs.map((d) => d.id)).toEqual(['b']);
  });

  it('lists newest first and keeps the added time of earlier events', () => {
    const docs = replay([
      doc('old', { added_at: '2024-01-01T00:00:00Z' }),
      doc('new', { added_at: '2025-06-01T00:00:00Z' }),
      doc('old', { status: 'ready', added_at: '' }),
    ]);
    expect(docs.map((d) => d.id)).toEqual(['new', 'old']);
    expect(docs[1].added_at).toBe('2024-01-01T00:00:00Z');
  });

  it('clamps progress and handles unknown totals', () => {
    expect(progressView(parseDocument({ ...doc('a'), status: 'embedding', progress: { done: 12, total: 10 } })).fraction).toBe(1);
    expect(progressView(parseDocument({ ...doc('a'), status: 'embedding' })).fraction).toBeNull();
  });

  it('summarises counts', () => {
    const docs = replay([doc('a', { status: 'ready' }), doc('b', { status: 'failed' }), doc('c', { status: 'embedding' })]);
    // A file that failed is not a document of the library.
    expect(summarize(docs)).toEqual({ total: 2, ready: 1, busy: 1, failed: 1 });
  });
});

describe('labels', () => {
  it('names the kind as a student knows it', async () => {
    const { kindLabel, canRetry } = await import('./library');
    expect(kindLabel({ kind: 'text', path: '/n/exam-notes.md' })).toBe('Markdown');
    expect(kindLabel({ kind: 'text', path: '/n/a.txt' })).toBe('Text');
    expect(kindLabel({ kind: 'pdf', path: '/n/walden.pdf' })).toBe('PDF');
    // A file of no kind Carrel reads: Go sends its extension as its kind, read as ''; the
    // label is that extension all the same.
    for (const path of ['/n/data.XYZ', '/n/notes.md~', '/n/a.tar_gz']) {
      const d = documentEvent({ id: 'x', path, kind: path.slice(path.lastIndexOf('.') + 1).toLowerCase(), status: 'failed' });
      expect(d.kind).toBe('');
      expect(kindLabel(d)).toBe(path.slice(path.lastIndexOf('.') + 1).toUpperCase());
    }
    expect(kindLabel(documentEvent({ id: 'y', path: '/n.d/README', kind: '', status: 'failed' }))).toBe('');
    expect(canRetry({ bytes: 0, error: 'notes.pdf is empty (0 bytes); check that it was saved or downloaded completely' })).toBe(false);
    expect(canRetry({ bytes: 120, error: 'a .pdf file that is not a PDF' })).toBe(true);
  });
});

describe('listing merged with live events', () => {
  it('prefers events that arrived while the listing was in flight', () => {
    const listing = [parseDocument(doc('a', { status: 'extracting' })), parseDocument(doc('b', { status: 'ready' }))];
    // During the call: a finished, b was removed, c was added.
    const live = replay([doc('a', { status: 'ready' }), doc('c')]);
    const merged = mergeListing(listing, live, new Set(['a', 'b', 'c']));
    expect(Object.fromEntries(merged.map((d) => [d.id, d.status]))).toEqual({ a: 'ready', c: 'queued' });
  });

  it('takes the listing as is when nothing happened meanwhile', () => {
    const listing = [parseDocument(doc('a', { status: 'ready' }))];
    expect(mergeListing(listing, [], new Set())).toEqual(listing);
  });
});

describe('normalising backend values', () => {
  it('fills defaults for missing fields and null slices', () => {
    const d = documentEvent({ id: 'x', progress: null, status: 'weird' });
    expect(d).toMatchObject({ id: 'x', title: '', status: 'queued', progress: { done: 0, total: 0 } });
  });

  it('prunes a selection of documents that left or failed', () => {
    const docs = replay([doc('a', { status: 'ready' }), doc('b', { status: 'failed' })]);
    expect(pruneSelection(['a', 'b', 'gone'], docs)).toEqual(['a']);
    const same = ['a'];
    expect(pruneSelection(same, docs)).toBe(same);
  });
});

describe('viewDocuments', () => {
  const d = (id: string, title: string, status: Document['status'], added_at: string, path = `/x/${id}.pdf`): Document => ({
    id, path, title, kind: 'pdf', pages: 1, chunks: 1, bytes: 1, status, error: '', progress: { done: 0, total: 0 }, added_at, ocr_pages: 0,
  });
  const docs = [
    d('c', 'Chapter 10', 'ready', '2026-01-03'),
    d('b', 'chapter 2', 'failed', '2026-01-02'),
    d('a', '', 'embedding', '2026-01-01', '/x/walden-notes.md'),
  ];
  it('keeps the stored order by default and sorts by title (numbers as numbers) or status', () => {
    expect(viewDocuments(docs, '', 'added').map((x) => x.id)).toEqual(['c', 'b', 'a']);
    expect(viewDocuments(docs, '', 'title').map((x) => x.id)).toEqual(['b', 'c', 'a']);
    expect(viewDocuments(docs, '', 'status').map((x) => x.id)).toEqual(['b', 'a', 'c']);
  });
  it('filters by every word, in titles and file names, any case', () => {
    expect(viewDocuments(docs, 'CHAPTER', 'added').map((x) => x.id)).toEqual(['c', 'b']);
    expect(viewDocuments(docs, 'chapter 10', 'added').map((x) => x.id)).toEqual(['c']);
    expect(viewDocuments(docs, 'walden', 'added').map((x) => x.id)).toEqual(['a']);
    expect(viewDocuments(docs, 'nothing', 'added')).toEqual([]);
  });
});

describe('OCR marker', () => {
  it('marks a document with pages read by OCR, and no other', async () => {
    const { ocrMarker } = await import('./library');
    expect(ocrMarker(parseDocument({ id: 'a', pages: 4, ocr_pages: 4 }))).toEqual({ label: 'Scanned', title: 'Scanned: every page was read by OCR' });
    expect(ocrMarker(parseDocument({ id: 'w', pages: 249, ocr_pages: 1 })).label).toBe("1 page OCR'd");
    expect(ocrMarker(parseDocument({ id: 'b', pages: 10, ocr_pages: 1 })).title).toBe('1 scanned page was read by OCR');
    expect(ocrMarker(parseDocument({ id: 'c', pages: 10, ocr_pages: 3 })).title).toBe('3 scanned pages were read by OCR');
    expect(ocrMarker(parseDocument({ id: 'd', pages: 10 })).label).toBe('');
    expect(parseDocument({ id: 'e', ocr_pages: 'x' }).ocr_pages).toBe(0);
  });
});

describe('failure reasons', () => {
  it('drop the file name the row already shows', () => {
    expect(failureReason('/t/lecture.pdf', 'lecture.pdf is a .pdf file that is not a PDF: it looks like a PNG image; rename it or export it as PDF')).toBe(
      'A .pdf file that is not a PDF: it looks like a PNG image; rename it or export it as PDF',
    );
    expect(failureReason('/t/empty-notes.pdf', 'empty-notes.pdf is empty (0 bytes); check that it was saved')).toBe('Empty (0 bytes); check that it was saved');
    expect(failureReason('/t/a.pdf', 'a.pdf: encrypted, enter its password')).toBe('Encrypted, enter its password');
    // Another file's name, or none: as it is.
    expect(failureReason('/t/b.pdf', 'a.pdf is empty')).toBe('a.pdf is empty');
    expect(failureReason('', 'could not read it')).toBe('could not read it');
  });
});
