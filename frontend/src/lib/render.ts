// Answer rendering: Markdown (marked) → sanitised HTML (DOMPurify) → citation markers
// `[n]` turned into buttons. Answer text comes from a model that read untrusted
// documents, so it is treated as hostile: raw HTML in the Markdown is shown as text,
// DOMPurify keeps only a small set of tags and attributes, and the citation buttons are
// built with DOM calls (never by string concatenation).
//
// This module holds most of the page's script (KaTeX, highlight.js, marked, DOMPurify):
// it is its own chunk, loaded after the window's first paint (renderer.svelte.ts), since
// an empty window needs none of it.

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
import { escapeHTML, linkCitations, wholeQuotes } from './markdown';
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
