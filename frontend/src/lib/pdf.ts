// pdf.js, loaded on first use (it is the biggest part of the bundle, and the window
// should open fast). The worker and pdf.js's data files are served by the app itself:
// the worker is a Vite asset, the rest is copied to dist/pdfjs/ (see vite.config.ts).

import type { PDFDocumentProxy } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { fileURL } from './api';

type PdfJs = typeof import('pdfjs-dist');

let lib: Promise<PdfJs> | null = null;

export function pdfjs(): Promise<PdfJs> {
  lib ??= import('pdfjs-dist').then((m) => {
    m.GlobalWorkerOptions.workerSrc = workerUrl;
    return m;
  });
  return lib;
}

const MAX_OPEN = 3;
const open = new Map<string, Promise<PDFDocumentProxy>>();

export class PdfLoadError extends Error {
  constructor(
    message: string,
    readonly kind: 'missing' | 'password' | 'invalid' | 'network',
  ) {
    super(message);
  }
}

/**
 * Opens a library document with pdf.js. The bytes are fetched by us (not by pdf.js's
 * own network layer), which behaves the same under http:// and the webview's custom
 * scheme. The last few documents stay open.
 */
export function loadPdf(docID: string): Promise<PDFDocumentProxy> {
  const hit = open.get(docID);
  if (hit) {
    open.delete(docID);
    open.set(docID, hit); // most recently used last
    return hit;
  }
  const p = (async () => {
    const m = await pdfjs();
    let res: Response;
    try {
      res = await fetch(fileURL(docID));
    } catch {
      throw new PdfLoadError('Could not load the document from Carrel.', 'network');
    }
    if (!res.ok) {
      throw new PdfLoadError(
        res.status === 404 ? 'This document is no longer in the library.' : `Could not load the document (HTTP ${res.status}).`,
        res.status === 404 ? 'missing' : 'network',
      );
    }
    const data = new Uint8Array(await res.arrayBuffer());
    const base = new URL('pdfjs/', document.baseURI).href;
    try {
      return await m.getDocument({
        data,
        cMapUrl: `${base}cmaps/`,
        cMapPacked: true,
        standardFontDataUrl: `${base}standard_fonts/`,
        wasmUrl: `${base}wasm/`,
        iccUrl: `${base}iccs/`,
        isEvalSupported: false,
        enableXfa: false,
      }).promise;
    } catch (e) {
      const name = (e as { name?: string })?.name;
      if (name === 'PasswordException') throw new PdfLoadError('This PDF is password-protected.', 'password');
      throw new PdfLoadError('This file could not be opened as a PDF.', 'invalid');
    }
  })();
  open.set(docID, p);
  p.catch(() => open.delete(docID));
  while (open.size > MAX_OPEN) {
    const [oldest, doc] = open.entries().next().value!;
    open.delete(oldest);
    doc.then((d) => d.destroy()).catch(() => {});
  }
  return p;
}

/** Forget a document (e.g. it was removed from the library). */
export function closePdf(docID: string): void {
  const p = open.get(docID);
  if (!p) return;
  open.delete(docID);
  p.then((d) => d.destroy()).catch(() => {});
}
