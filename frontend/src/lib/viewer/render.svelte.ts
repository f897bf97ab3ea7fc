// Drawing a page of the PDF: its canvas and text layer built off-screen with pdf.js, the
// OCR layer of a scanned page (ocr-layer.ts), the cited passage highlighted
// (highlight-layer.ts), then all swapped in at once, so zoom or a page change shows no
// blank flash. One drawing at a time: a new one cancels the one in flight, pdf.js's render
// task and text layer with it (the newest page, zoom or passage wins).

import type { PageViewport, PDFDocumentProxy, RenderTask } from 'pdfjs-dist';
import type { PageWords } from '../ocr-rects';
import { pdfjs } from '../pdf';
import type { Drawn } from './find.svelte';
import { highlightPage, type Cited, type HighlightState } from './highlight-layer';
import { ocrLayer, ocrTextLayer } from './ocr-layer';
import { scaleFor, type Zoom } from './zoom';

export type DrawRequest = { doc: PDFDocumentProxy; page: number; zoom: Zoom; width: number; cited: Cited };

/** Where a drawn page goes: the page box and its layers, bottom to top. */
export type Hosts = { page: HTMLElement; canvas: HTMLElement; text: HTMLElement; ocr: HTMLElement };

/** A page now on screen: its scale, and the layer holding its highlight (to scroll to). */
export type Shown = { page: number; scale: number; layer: HTMLElement };

/** The text runs of page n, for finding: OCR words on a scanned page, else pdf.js's text. */
export async function pageItems(doc: PDFDocumentProxy, words: PageWords, n: number): Promise<string[]> {
  if (words.words.length) return words.words.map((w) => w.text);
  const tc = await (await doc.getPage(n)).getTextContent();
  return tc.items.map((it) => ('str' in it ? it.str : ''));
}

/** A canvas for the page at viewport, its pixels kept under ~16 megapixels whatever the zoom. */
function pageCanvas(viewport: PageViewport): { canvas: HTMLCanvasElement; px: number } {
  const dpr = Math.min(window.devicePixelRatio || 1, 3);
  const px = Math.min(dpr, Math.sqrt(16e6 / (viewport.width * viewport.height)));
  const canvas = document.createElement('canvas');
  canvas.width = Math.floor(viewport.width * px);
  canvas.height = Math.floor(viewport.height * px);
  canvas.style.width = `${Math.floor(viewport.width)}px`;
  canvas.style.height = `${Math.floor(viewport.height)}px`;
  canvas.setAttribute('data-testid', 'viewer-canvas');
  canvas.setAttribute('aria-hidden', 'true');
  return { canvas, px };
}

/** One drawing, cancellable between its steps. */
class Job {
  cancelled = false;
  task: RenderTask | null = null;
  text: { cancel(): void } | null = null;

  cancel(): void {
    this.cancelled = true;
    this.task?.cancel();
    this.text?.cancel();
  }
}

export class PageRender {
  rendering = $state(false);
  /** The page drawn last, 0 before the first. */
  rendered = $state(0);
  /** How the cited passage is shown on it. */
  mark = $state<HighlightState>('none');
  /** The supporting sentence is highlighted on it. */
  strong = $state(false);
  /** It was read by OCR (a scan: no text layer). */
  ocr = $state(false);
  error = $state('');
  /** What it holds, for drawing search hits over it. */
  drawn = $state.raw<Drawn | null>(null);
  #job: Job | null = null;

  constructor(private words: (n: number) => Promise<PageWords>) {}

  /**
   * Draws req's page into hosts, cancelling the drawing before; shown is called once it is
   * on screen. Returns the cancel (an effect's cleanup).
   */
  draw(req: DrawRequest, hosts: Hosts, shown: (s: Shown) => void): () => void {
    this.#job?.cancel();
    const job = new Job();
    this.#job = job;
    this.rendering = true;
    this.#draw(req, hosts, job, shown).catch((e: unknown) => {
      if (job.cancelled || (e as { name?: string })?.name === 'RenderingCancelledException') return;
      this.error = 'This page could not be drawn.';
      this.rendering = false;
    });
    return () => job.cancel();
  }

  async #draw({ doc, page: n, zoom, width, cited }: DrawRequest, hosts: Hosts, job: Job, shown: (s: Shown) => void): Promise<void> {
    const lib = await pdfjs();
    const pageNo = Math.min(Math.max(1, n), doc.numPages);
    const words$ = this.words(pageNo);
    const page = await doc.getPage(pageNo);
    if (job.cancelled) return;
    const s = scaleFor(zoom, width, page.getViewport({ scale: 1 }).width);
    const viewport = page.getViewport({ scale: s });

    const { canvas, px } = pageCanvas(viewport);
    job.task = page.render({ canvas, viewport, transform: px !== 1 ? [px, 0, 0, px, 0, 0] : undefined });
    await job.task.promise;
    if (job.cancelled) return;

    const layer = document.createElement('div');
    layer.className = 'textLayer';
    hosts.page.style.setProperty('--total-scale-factor', String(s));
    const tl = new lib.TextLayer({ textContentSource: page.streamTextContent(), container: layer, viewport });
    job.text = tl;
    await tl.render();
    const pw = await words$;
    if (job.cancelled) return;

    // A scanned page has no text layer: its highlight is drawn over the OCR word boxes.
    const ocr = pw.words.length ? ocrLayer() : null;
    const [mark, strong] = highlightPage(cited, n, { items: tl.textContentItemsStr, divs: tl.textDivs }, ocr && { layer: ocr, words: pw, viewport });
    ocr?.append(ocrTextLayer(pw, viewport));

    hosts.page.style.width = `${Math.floor(viewport.width)}px`;
    hosts.page.style.height = `${Math.floor(viewport.height)}px`;
    hosts.canvas.replaceChildren(canvas);
    hosts.text.replaceChildren(layer);
    hosts.ocr.replaceChildren(...(ocr ? [ocr] : []));
    this.drawn = { page: n, items: pw.words.length ? pw.words.map((w) => w.text) : tl.textContentItemsStr, divs: tl.textDivs, words: pw.words, viewport };
    this.mark = mark;
    this.strong = strong;
    this.ocr = pw.ocr;
    this.rendered = n;
    this.rendering = false;
    shown({ page: n, scale: s, layer: ocr ?? layer });
  }
}
