// Online sources in the viewer: a web page's snapshot (cleaned HTML kept in the library)
// shown as the page, sanitised, with the cited passage marked in its text; and a
// discussion thread (backend/ingest Thread JSON) shown as its comments, the cited one
// marked, each with a link to its permalink.

import DOMPurify from 'dompurify';
import { findPassage, type Range } from './highlight';

/**
 * The snapshot's body as safe HTML: no scripts, styles, forms, and nothing that loads
 * from the network when shown (images, frames, media), so that opening a citation
 * offline reaches nothing and the page cannot act.
 */
export function sanitizeSnapshot(html: string): string {
  return DOMPurify.sanitize(html, {
    FORBID_TAGS: ['img', 'picture', 'source', 'video', 'audio', 'iframe', 'object', 'embed', 'svg', 'math', 'style', 'link', 'meta', 'base', 'form', 'input', 'button', 'select', 'textarea', 'canvas', 'track'],
    FORBID_ATTR: ['style', 'src', 'srcset', 'action', 'formaction', 'background', 'poster', 'ping'],
    ALLOWED_URI_REGEXP: /^https?:/i,
  });
}

/** The text nodes under root, in document order. */
export function textNodes(root: Node): Text[] {
  const out: Text[] = [];
  const walker = root.ownerDocument!.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) out.push(n as Text);
  return out;
}

/**
 * Marks `passage` in the text under root: each matched stretch of a text node is
 * wrapped in <mark> (class "strong" for the focus). Returns the marks, in order, or an
 * empty list when the passage is not found.
 */
export function markPassage(root: HTMLElement, passage: string, focus: { start: number; end: number } | null = null): HTMLElement[] {
  const nodes = textNodes(root);
  const m = findPassage(
    nodes.map((n) => n.data),
    passage,
    { focus },
  );
  if (!m) return [];
  const byNode = new Map<number, Range[]>();
  for (const r of m.ranges) byNode.set(r.item, [...(byNode.get(r.item) ?? []), r]);
  for (const [i, ranges] of byNode) {
    // Right to left: the node keeps the text before each split, so the offsets still
    // ahead stay valid.
    const node = nodes[i];
    for (const r of [...ranges].sort((x, y) => y.start - x.start)) {
      node.splitText(r.end);
      const hit = node.splitText(r.start);
      const mark = root.ownerDocument!.createElement('mark');
      mark.dataset.testid = 'passage-highlight';
      if (r.strong) {
        mark.className = 'strong';
        mark.dataset.strong = 'true';
      } else if (focus) mark.className = 'light';
      hit.parentNode!.replaceChild(mark, hit);
      mark.appendChild(hit);
    }
  }
  const marks = Array.from(root.querySelectorAll<HTMLElement>('mark[data-testid="passage-highlight"]'));
  return marks;
}

/** A thread as the snapshot keeps it (backend/ingest.Thread). */
export type ThreadItem = { author: string; parent?: string; depth: number; text: string; url: string; time?: number };
export type Thread = { format: string; url: string; site: string; title: string; items: ThreadItem[] };

/** Parses a thread snapshot; null when it is not one. */
export function parseThread(v: unknown): Thread | null {
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  if (o.format !== 'carrel-thread/1' || !Array.isArray(o.items)) return null;
  const s = (x: unknown) => (typeof x === 'string' ? x : '');
  const items = o.items.map((it) => {
    const i = (it ?? {}) as Record<string, unknown>;
    return {
      author: s(i.author),
      parent: s(i.parent) || undefined,
      depth: typeof i.depth === 'number' ? Math.max(0, Math.min(12, i.depth)) : 0,
      text: s(i.text),
      url: /^https?:\/\//i.test(s(i.url)) ? s(i.url) : '',
      time: typeof i.time === 'number' ? i.time : undefined,
    };
  });
  return { format: 'carrel-thread/1', url: s(o.url), site: s(o.site), title: s(o.title), items };
}

/**
 * The thread's items as pages, as ingest numbers them (backend/ingest/thread.go): an
 * item with no text is no page. Page n is pages[n-1].
 */
export function threadPages(t: Thread): ThreadItem[] {
  return t.items.filter((it) => it.text.trim() !== '');
}

/** The header line ingest puts before an item's text (it is part of cited passages). */
export function itemHead(t: Thread, it: ThreadItem): string {
  if (it.depth === 0) return `${t.title}\nPosted by ${it.author}`;
  if (it.parent) return `${it.author}, answering ${it.parent}:`;
  return `${it.author}:`;
}
