// Citations in answers: markers `[n]` turned into buttons, citation labels, and a no-model
// answer's quotes shown whole. The Markdown, math and code rendering of answers is in
// render.ts, loaded after the window's first paint (renderer.svelte.ts).

import type { Citation } from './types';

export function escapeHTML(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `[1]`, `[2, 3]`, `[2; 3]` — a bracketed list of citation numbers. */
const MARKER = /\[(\d{1,3}(?:\s*[,;]\s*\d{1,3})*)\]/g;
const HAS_MARKER = /\[\d{1,3}(?:\s*[,;]\s*\d{1,3})*\]/;

/** Maps citation number → citation: by its `n`, falling back to its position (n = index + 1). */
export function citationIndex(citations: Citation[]): Map<number, Citation> {
  const m = new Map<number, Citation>();
  citations.forEach((c, i) => {
    const n = c.n > 0 ? c.n : i + 1;
    if (!m.has(n)) m.set(n, c);
  });
  return m;
}

export function citationLabel(c: Citation, n: number): string {
  const title = c.doc_title || basename(c.doc_path) || 'document';
  return c.page > 0 ? `Source ${n}: ${title}, page ${c.focus_page ?? c.page}` : `Source ${n}: ${title}`;
}

export function basename(path: string): string {
  return path.split(/[\\/]/).filter(Boolean).pop() ?? '';
}

const SKIP = new Set(['CODE', 'PRE', 'A', 'BUTTON', 'math', 'MATH']);

/**
 * Replaces citation markers in the text nodes of `root` with buttons. Markers whose
 * number has no citation stay as text. Returns the number of buttons made.
 */
export function linkCitations(root: ParentNode & Node, citations: Citation[]): number {
  const byN = citationIndex(citations);
  if (byN.size === 0) return 0;
  const doc = root.ownerDocument ?? document;
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(node) {
      for (let p = node.parentNode; p && p !== root; p = p.parentNode) {
        if (SKIP.has((p as Element).tagName)) return NodeFilter.FILTER_REJECT;
      }
      return HAS_MARKER.test(node.nodeValue ?? '') ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP;
    },
  });
  const nodes: Text[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n as Text);

  let made = 0;
  const seen = new Map<number, number>(); // occurrences of each number so far
  for (const node of nodes) {
    const text = node.nodeValue ?? '';
    const frag = doc.createDocumentFragment();
    let last = 0;
    MARKER.lastIndex = 0;
    for (let m = MARKER.exec(text); m; m = MARKER.exec(text)) {
      const nums = m[1].split(/\s*[,;]\s*/).map(Number);
      if (!nums.some((n) => byN.has(n))) continue;
      frag.append(text.slice(last, m.index));
      const group = doc.createElement('span');
      group.className = 'cite-group';
      for (const n of nums) {
        const c = byN.get(n);
        if (!c) {
          group.append(`[${n}]`);
          continue;
        }
        const b = doc.createElement('button');
        b.type = 'button';
        b.className = 'cite';
        b.dataset.cite = String(n);
        const k = seen.get(n) ?? 0;
        seen.set(n, k + 1);
        b.dataset.k = String(k);
        b.dataset.testid = 'citation';
        b.setAttribute('aria-label', citationLabel(c, n));
        b.textContent = String(n);
        group.append(b);
        made++;
      }
      frag.append(group);
      last = m.index + m[0].length;
    }
    if (last === 0) continue;
    frag.append(text.slice(last));
    node.replaceWith(frag);
  }
  return made;
}

/** Whether a source is a Markdown file (its passages keep their lines when quoted). */
export function isMarkdownSource(path: string): boolean {
  return /\.(md|markdown|mdown|mkd)$/i.test(path ?? '');
}

/**
 * A no-model answer's quotes (`> …window… [n]`, one block each) with the quotes of the
 * citations in `whole` replaced by their whole passage: the excerpt shows why a passage
 * was picked, the whole passage is a click away.
 */
export function wholeQuotes(md: string, citations: Citation[], whole: ReadonlySet<number>): string {
  if (!whole.size) return md;
  const byN = citationIndex(citations);
  return md
    .split(/\n{2,}/)
    .map((block) => {
      const m = /^> [\s\S]*\[(\d{1,3})\]$/.exec(block);
      const c = m && whole.has(Number(m[1])) ? byN.get(Number(m[1])) : undefined;
      if (!c) return block;
      const body = isMarkdownSource(c.doc_path)
        ? c.text.trim().split('\n').join('\n> ')
        : c.text.split(/\s+/).filter(Boolean).join(' ');
      return `> ${body} [${m![1]}]`;
    })
    .join('\n\n');
}

