// What the viewer shows: a document, a page, and the passage to highlight there.

import type { Citation } from '../types';

export type ViewTarget = {
  docID: string;
  title: string;
  path: string;
  kind: string;
  page: number;
  passage: string;
  /** Increases on every open, so opening the same citation again scrolls to it again. */
  seq: number;
};

export class ViewerState {
  target = $state<ViewTarget | null>(null);
  open = $state(true);
  #seq = 0;

  show = (t: Omit<ViewTarget, 'seq'>): void => {
    this.target = { ...t, seq: ++this.#seq };
    this.open = true;
  };

  showCitation = (c: Citation, kind: string): void => {
    this.show({ docID: c.doc_id, title: c.doc_title, path: c.doc_path, kind, page: c.page, passage: c.text });
  };

  toggle = (): void => {
    this.open = !this.open;
  };

  /** Called when a document leaves the library. */
  forget = (docID: string): void => {
    if (this.target?.docID === docID) this.target = null;
  };
}
