// The document shown and where in it: opening it with pdf.js, the page number and the
// page box, and the page a citation opens at.

import type { PDFDocumentProxy } from 'pdfjs-dist';
import { loadPdf } from '../pdf';
import { errorText } from '../text';

/** Page n rounded and kept within 1..count. */
export const clampPage = (n: number, count: number): number => Math.min(Math.max(1, Math.round(n) || 1), Math.max(1, count));

/**
 * The page a citation opens at: where the search matched when that is a later page of the
 * passage, else the cited page; within the document once its length is known.
 */
export function openingPage(targetPage: number, openAt: number, lastPage: number, count: number): number {
  const p = openAt > targetPage && openAt <= lastPage ? openAt : targetPage;
  return count ? Math.min(Math.max(1, p || 1), count) : p || 1;
}

export class PdfPages {
  doc = $state.raw<PDFDocumentProxy | null>(null);
  count = $state(0);
  loading = $state(true);
  error = $state('');
  /** What the page box holds: the page shown, or what the user is typing there. */
  input = $state('1');
  #current = $state(1);

  /** The page shown. */
  get current(): number {
    return this.#current;
  }

  /** Showing another page puts its number in the page box (the same page leaves the box alone). */
  set current(n: number) {
    if (n === this.#current) return;
    this.#current = n;
    this.input = String(n);
  }

  /** Opens the document; returns what keeps a load still under way from landing. */
  open(id: string): () => void {
    let live = true;
    this.loading = true;
    this.error = '';
    this.doc = null;
    this.count = 0;
    loadPdf(id).then(
      (d) => {
        if (!live) return;
        this.doc = d;
        this.count = d.numPages;
        this.loading = false;
      },
      (e: unknown) => {
        if (!live) return;
        this.error = errorText(e);
        this.loading = false;
      },
    );
    return () => {
      live = false;
    };
  }

  go = (n: number): void => {
    if (!this.count) return;
    this.current = clampPage(n, this.count);
  };

  /** The page box's number, or back to the page shown when it is not one. */
  commitInput = (): void => {
    const n = parseInt(this.input, 10);
    if (Number.isFinite(n)) this.go(n);
    else this.input = String(this.current);
  };
}
