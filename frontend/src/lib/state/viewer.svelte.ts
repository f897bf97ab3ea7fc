// What the viewer shows: a document, a page, and the passage to highlight there.

import type { Citation, ClaimSpan, Document, StudyCard } from '../types';

export type ViewTarget = {
  docID: string;
  title: string;
  path: string;
  kind: string;
  page: number;
  passage: string;
  /** Last page of the passage when it crosses a page break (else page, or 0). */
  pageEnd?: number;
  /** The page to open at, within page..pageEnd (absent: page): where the search matched. */
  openAt?: number;
  /** Byte offset in page's text where the passage starts (a recording maps it to a time). */
  start?: number;
  /** The sentence of the passage supporting the clicked claim: code point offsets in passage. */
  focus?: { start: number; end: number; quote: string } | null;
  /** Increases on every open, so opening the same citation again scrolls to it again. */
  seq: number;
};

export class ViewerState {
  target = $state<ViewTarget | null>(null);
  /** Collapsed to a rail until a source is opened (an empty viewer only takes room). */
  open = $state(false);
  #seq = 0;

  show = (t: Omit<ViewTarget, 'seq'>): void => {
    this.target = { ...t, seq: ++this.#seq };
    this.open = true;
  };

  /** Opens a citation; `span` (from the answer's claims) is the part to highlight strongly. */
  showCitation = (c: Citation, kind: string, span?: ClaimSpan | null): void => {
    this.show({
      docID: c.doc_id,
      title: c.doc_title,
      path: c.doc_path,
      kind,
      page: c.page,
      pageEnd: Math.max(c.page, c.page_end ?? 0),
      openAt: c.focus_page,
      start: c.start ?? 0,
      passage: c.text,
      focus: span && span.end > span.start ? { start: span.start, end: span.end, quote: span.quote } : null,
    });
  };

  /** Opens a flashcard's passage (its context) on its pages; doc is its document if listed. */
  showCard = (c: StudyCard, title: string, doc?: Document): void => {
    this.show({
      docID: c.doc_id,
      title,
      path: doc?.path ?? '',
      kind: doc?.kind ?? '',
      page: c.page,
      pageEnd: Math.max(c.page, c.page_end),
      passage: c.context,
    });
  };

  toggle = (): void => {
    this.open = !this.open;
  };

  /** Nothing shown, collapsed (a new or another session: its pages are not this one's). */
  close = (): void => {
    this.target = null;
    this.open = false;
  };

  /** Called when a document leaves the library. */
  forget = (docID: string): void => {
    if (this.target?.docID === docID) this.target = null;
  };
}
