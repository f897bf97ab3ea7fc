// Answer rendering: Markdown (marked) → sanitised HTML (DOMPurify) → citation markers
// `[n]` turned into buttons. Answer text comes from a model that read untrusted
// documents, so it is treated as hostile: raw HTML in the Markdown is shown as text,
// DOMPurify keeps only a small set of tags and attributes, and the citation buttons are
// built with DOM calls (never by string concatenation).

import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';
import katex from 'katex';
import { Marked, type TokenizerAndRendererExtension } from 'marked';
import { markTerms } from './match';
import type { Citation } from './types';

for (const [name, lang] of Object.entries({ bash, c, cpp, css, go, java, javascript, json, python, rust, sql, typescript, xml, yaml })) {
  hljs.registerLanguage(name, lang);
}
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['golang'], { languageName: 'go' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['rs'], { languageName: 'rust' });

/** Code with a known language, highlighted (class names only: CSP allows no inline style). */
export function highlightCode(text: string, lang: string): string {
  const language = (lang ?? '').trim().split(/\s+/)[0].toLowerCase();
  const known = !!language && !!hljs.getLanguage(language);
  const body = known ? hljs.highlight(text, { language, ignoreIllegals: true }).value : escapeHTML(text);
  return `<pre><code class="hljs${known ? ` language-${language}` : ''}">${body}</code></pre>\n`;
}

/**
 * TeX → MathML with KaTeX. MathML output needs no inline styles or fonts (the CSP allows
 * neither); a formula KaTeX cannot parse is shown as its source.
 */
export function renderTeX(tex: string, display: boolean): string {
  try {
    return katex.renderToString(tex, {
      output: 'mathml',
      displayMode: display,
      throwOnError: true,
      trust: false,
      strict: 'ignore',
      maxSize: 20,
      maxExpand: 500,
    });
  } catch {
    return `<code class="math-error">${escapeHTML(display ? `$$${tex}$$` : `$${tex}$`)}</code>`;
  }
}

// $…$ and \(…\) inline, $$…$$ and \[…\] as blocks. "$5 and $10" is money, not math:
// the opening $ must be followed and the closing $ preceded by a non-space, and no digit
// may follow the closing $.
const INLINE_MATH = [/^\$(?!\s)((?:\\.|[^\\$\n])+?)(?<!\s)\$(?!\d)/, /^\\\(([\s\S]+?)\\\)/];
const BLOCK_MATH = [/^ {0,3}\$\$([\s\S]+?)\$\$ *(?:\n+|$)/, /^ {0,3}\\\[([\s\S]+?)\\\] *(?:\n+|$)/];

const mathExtensions: TokenizerAndRendererExtension[] = [
  {
    name: 'mathBlock',
    level: 'block',
    start: (src) => src.match(/\$\$|\\\[/)?.index,
    tokenizer(src) {
      for (const re of BLOCK_MATH) {
        const m = re.exec(src);
        if (m) return { type: 'mathBlock', raw: m[0], text: m[1].trim() };
      }
      return undefined;
    },
    renderer: (tok) => `<p class="math-display">${renderTeX(tok.text as string, true)}</p>\n`,
  },
  {
    name: 'mathInline',
    level: 'inline',
    start: (src) => src.match(/\$|\\\(/)?.index,
    tokenizer(src) {
      for (const re of INLINE_MATH) {
        const m = re.exec(src);
        if (m) return { type: 'mathInline', raw: m[0], text: m[1] };
      }
      return undefined;
    },
    renderer: (tok) => renderTeX(tok.text as string, false),
  },
];

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  extensions: mathExtensions,
  renderer: {
    code({ text, lang }) {
      return highlightCode(text, lang ?? '');
    },
    // Raw HTML in an answer is displayed, not interpreted.
    html({ text }) {
      return escapeHTML(text);
    },
    // Images would load remote content; show their alt text instead.
    image({ text }) {
      return escapeHTML(text);
    },
  },
});

export function escapeHTML(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'strong', 'em', 'b', 'i', 'del', 's', 'code', 'pre', 'blockquote',
  'ul', 'ol', 'li', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'a', 'table', 'thead', 'tbody',
  'tr', 'th', 'td', 'sup', 'sub', 'span',
  // MathML as KaTeX writes it.
  'math', 'semantics', 'annotation', 'mrow', 'mi', 'mn', 'mo', 'ms', 'mtext', 'mspace', 'msup', 'msub',
  'msubsup', 'mfrac', 'msqrt', 'mroot', 'mover', 'munder', 'munderover', 'mtable', 'mtr', 'mtd',
  'mstyle', 'mpadded', 'mphantom', 'menclose', 'merror',
];
const ALLOWED_ATTR = ['href', 'title', 'start', 'align', 'class',
  // MathML presentation attributes (no styles, no links).
  'display', 'encoding', 'mathvariant', 'stretchy', 'fence', 'separator', 'lspace', 'rspace', 'accent',
  'accentunder', 'columnalign', 'rowspacing', 'columnspacing', 'width', 'height', 'depth', 'minsize',
  'maxsize', 'movablelimits', 'scriptlevel', 'displaystyle', 'notation', 'linethickness', 'symmetric', 'largeop',
];
/** Class names the renderer itself writes; any other class is dropped. */
const CLASS_OK = /^(hljs(-[\w-]+)?|language-[\w-]+|katex(-[\w-]+)?|math-(display|error))$/;

let hooked = false;
function purifier() {
  if (!hooked) {
    hooked = true;
    // Links may only be web or mail links; they open outside the app (see chat-message).
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node.tagName === 'A') {
        const href = node.getAttribute('href') ?? '';
        if (!/^(https?:|mailto:)/i.test(href)) node.removeAttribute('href');
        node.setAttribute('rel', 'noopener noreferrer');
        node.setAttribute('target', '_blank');
      }
    });
    DOMPurify.addHook('uponSanitizeAttribute', (_node, data) => {
      if (data.attrName === 'class') {
        data.attrValue = data.attrValue.split(/\s+/).filter((c) => CLASS_OK.test(c)).join(' ');
        if (!data.attrValue) data.keepAttr = false;
      }
    });
  }
  return DOMPurify;
}

/** Markdown → sanitised HTML, without citation handling. */
export function renderMarkdown(md: string): string {
  const html = marked.parse(md ?? '') as string;
  return purifier().sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR: [...ALLOWED_ATTR, 'rel', 'target'],
    ALLOW_DATA_ATTR: false,
  }) as string;
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

/**
 * Adds to each quote that is an excerpt (it starts or ends with "…") a button showing its
 * whole passage, or, for the quotes in `whole`, one showing the excerpt again.
 */
function addWholeToggles(root: DocumentFragment, whole: ReadonlySet<number>): void {
  for (const q of root.querySelectorAll('blockquote')) {
    const marker = [...q.querySelectorAll<HTMLElement>('button.cite')].pop();
    if (!marker) continue;
    const n = Number(marker.dataset.cite);
    const text = (q.textContent ?? '').trim();
    const open = whole.has(n);
    if (!open && !text.startsWith('…') && !/…\s*\d*$/.test(text)) continue;
    const b = root.ownerDocument.createElement('button');
    b.type = 'button';
    b.className = 'whole';
    b.dataset.whole = String(n);
    b.dataset.testid = 'whole-passage';
    b.setAttribute('aria-expanded', String(open));
    b.textContent = open ? 'Show the excerpt' : 'Show the whole passage';
    q.append(b);
  }
}

/**
 * The full pipeline: Markdown → sanitised HTML → citation buttons, and, when `terms` are
 * given (a no-model answer's quoted passages), the question's words marked and each
 * excerpt's whole passage a click away (`whole`: the citations shown whole). Returns HTML.
 */
export function renderAnswer(md: string, citations: Citation[], terms?: Set<string>, whole: ReadonlySet<number> = new Set()): string {
  const html = renderMarkdown(terms ? wholeQuotes(md, citations, whole) : md);
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  linkCitations(tpl.content, citations);
  if (terms) {
    markTerms(tpl.content, terms);
    addWholeToggles(tpl.content, whole);
  }
  return tpl.innerHTML;
}
