import { describe, expect, it } from 'vitest';
import { linkCitations } from './markdown';
import { renderAnswer, renderMarkdown } from './render';
import type { Citation } from './types';

const cite = (n: number, over: Partial<Citation> = {}): Citation => ({
  n,
  doc_id: `doc${n}`,
  doc_title: `Doc ${n}`,
  doc_path: `/lib/doc${n}.pdf`,
  page: n + 2,
  text: `passage ${n}`,
  ...over,
});

function dom(html: string): HTMLElement {
  const div = document.createElement('div');
  div.innerHTML = html;
  return div;
}

describe('citation markers', () => {
  it('turns known markers into buttons carrying the number and a label', () => {
    const el = dom(renderAnswer('Walden is a pond [1]. It is deep [2].', [cite(1), cite(2)]));
    const buttons = [...el.querySelectorAll('button.cite')] as HTMLButtonElement[];
    expect(buttons.map((b) => b.dataset.cite)).toEqual(['1', '2']);
    expect(buttons[0].textContent).toBe('1');
    expect(buttons[0].getAttribute('aria-label')).toBe('Source 1: Doc 1, page 3');
    expect(buttons[0].getAttribute('data-testid')).toBe('citation');
    expect(buttons[0].type).toBe('button');
    expect(el.textContent).toContain('Walden is a pond');
  });

  it('leaves unknown markers as text', () => {
    const el = dom(renderAnswer('Known [1], unknown [7], zero [0].', [cite(1)]));
    expect(el.querySelectorAll('button.cite')).toHaveLength(1);
    expect(el.textContent).toContain('[7]');
    expect(el.textContent).toContain('[0]');
  });

  it('leaves all markers as text when there are no citations', () => {
    const el = dom(renderAnswer('Nothing cited [1].', []));
    expect(el.querySelectorAll('button')).toHaveLength(0);
    expect(el.textContent!.trim()).toBe('Nothing cited [1].');
  });

  it('splits grouped markers and keeps the unknown members as text', () => {
    const el = dom(renderAnswer('Both [1, 2] and [2;9].', [cite(1), cite(2)]));
    const nums = [...el.querySelectorAll('button.cite')].map((b) => (b as HTMLElement).dataset.cite);
    expect(nums).toEqual(['1', '2', '2']);
    expect(el.textContent).toContain('[9]');
  });

  it('handles adjacent markers and markers at the start of a line', () => {
    const el = dom(renderAnswer('[1] starts.\n\nEnds[1][2]', [cite(1), cite(2)]));
    expect(el.querySelectorAll('button.cite')).toHaveLength(3);
  });

  it('does not touch markers inside code', () => {
    const el = dom(renderAnswer('Use `arr[1]` here [1].\n\n```\nx[1]\n```', [cite(1)]));
    expect(el.querySelectorAll('button.cite')).toHaveLength(1);
    expect(el.querySelector('code')!.textContent).toBe('arr[1]');
  });

  it('matches citations by their n, falling back to position', () => {
    const el = dom(renderAnswer('A [3] B [2]', [cite(3), { ...cite(0), n: 0 }, ]));
    const nums = [...el.querySelectorAll('button.cite')].map((b) => (b as HTMLElement).dataset.cite);
    // n=3 by its field; the second citation has no n, so it is number 2 by position.
    expect(nums).toEqual(['3', '2']);
  });

  it('escapes a hostile document title in the label', () => {
    const el = dom(renderAnswer('X [1]', [cite(1, { doc_title: '"><img src=x onerror=alert(1)>' })]));
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('button')!.getAttribute('aria-label')).toContain('<img');
  });

  it('works on an existing DOM tree', () => {
    const el = dom('<p>See [1] and [2]</p>');
    expect(linkCitations(el, [cite(1)])).toBe(1);
  });
});

describe('sanitising', () => {
  const payloads = [
    '<img src=x onerror="alert(1)">',
    '<script>alert(1)</script>',
    '<svg onload=alert(1)><circle/></svg>',
    '<iframe src="javascript:alert(1)"></iframe>',
    '<a href="javascript:alert(1)">click</a>',
    '[click](javascript:alert(1))',
    '![x](http://evil.example/pixel.png)',
    '<div style="background:url(http://evil.example)">x</div>',
    '<form action="http://evil.example"><input name=a></form>',
  ];

  for (const p of payloads) {
    it(`neutralises ${p}`, () => {
      const html = renderAnswer(`Answer text ${p} and more [1].`, [cite(1)]);
      const el = dom(html);
      expect(el.querySelector('script, img, svg, iframe, form, input, style, object, embed')).toBeNull();
      for (const node of el.querySelectorAll('*')) {
        for (const attr of node.attributes) {
          expect(attr.name.startsWith('on')).toBe(false);
          expect(attr.name).not.toBe('style');
          expect(attr.value.toLowerCase()).not.toContain('javascript:');
        }
      }
      // The citation after the payload still works.
      expect(el.querySelectorAll('button.cite')).toHaveLength(1);
    });
  }

  it('shows raw HTML as text instead of dropping it', () => {
    const el = dom(renderMarkdown('Tag <b>bold</b> and <script>x()</script>'));
    expect(el.querySelector('b, script')).toBeNull();
    expect(el.textContent).toContain('<b>bold</b>');
  });

  it('keeps ordinary Markdown', () => {
    const el = dom(renderMarkdown('# Title\n\n- **one**\n- _two_\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n[site](https://example.org)'));
    expect(el.querySelector('h1')!.textContent).toBe('Title');
    expect(el.querySelectorAll('li')).toHaveLength(2);
    expect(el.querySelector('strong')).not.toBeNull();
    expect(el.querySelector('table td')!.textContent).toBe('1');
    const a = el.querySelector('a')!;
    expect(a.getAttribute('href')).toBe('https://example.org');
    expect(a.getAttribute('rel')).toBe('noopener noreferrer');
  });
});

describe('math and code', () => {
  it('renders $…$ and $$…$$ as MathML, with no inline styles', () => {
    const el = dom(renderAnswer('Energy $E=mc^2$ [1].\n\n$$\\frac{a}{b}$$', [cite(1)]));
    const maths = el.querySelectorAll('math');
    expect(maths).toHaveLength(2);
    expect(maths[0].querySelector('msup')).not.toBeNull();
    expect(maths[1].getAttribute('display')).toBe('block');
    expect(maths[1].querySelector('mfrac')).not.toBeNull();
    expect(el.querySelectorAll('[style]')).toHaveLength(0);
    expect(el.querySelectorAll('button.cite')).toHaveLength(1);
  });

  it('accepts \\( \\) and \\[ \\] delimiters', () => {
    const el = dom(renderAnswer('Inline \\(x_1\\) and\n\n\\[\\sqrt{2}\\]', []));
    expect(el.querySelectorAll('math')).toHaveLength(2);
    expect(el.querySelector('msqrt')).not.toBeNull();
  });

  it('leaves money alone', () => {
    const el = dom(renderAnswer('It cost $5 and then $10 more.', []));
    expect(el.querySelectorAll('math')).toHaveLength(0);
    expect(el.textContent).toContain('$5 and then $10');
  });

  it('shows TeX it cannot parse as code, and never makes links from it', () => {
    const bad = dom(renderAnswer('Broken $\\frac{1$ here.', []));
    expect(bad.querySelector('code.math-error')?.textContent).toBe('$\\frac{1$');
    const link = dom(renderAnswer('$\\href{javascript:alert(1)}{x}$', []));
    expect(link.querySelectorAll('a, [href]')).toHaveLength(0);
  });

  it('highlights fenced code by language with class names only', () => {
    const el = dom(renderAnswer('```go\nfunc main() { return }\n```\n\n```nosuchlang\n<b>x</b>\n```', []));
    const [go, other] = [...el.querySelectorAll('pre code')];
    expect(go.className).toBe('hljs language-go');
    expect(go.querySelector('.hljs-keyword')?.textContent).toBe('func');
    expect(other.className).toBe('hljs');
    expect(other.textContent).toBe('<b>x</b>');
    expect(el.querySelectorAll('[style], b')).toHaveLength(0);
  });

  it('drops class names the renderer does not write', () => {
    const html = renderMarkdown('`x`');
    expect(html).not.toContain('class=');
    const el = dom(renderAnswer('$x$', []));
    for (const n of el.querySelectorAll('[class]')) expect(n.className).toMatch(/^(katex|hljs|math-)/);
  });
});

describe('whole passages of a no-model answer', () => {
  const walden = cite(1, {
    doc_path: '/lib/walden.pdf',
    text: 'Solitude. This is a delicious evening,\nwhen the whole body is one sense. I find it wholesome to be alone the greater part of the time. To be in company is soon wearisome.',
  });
  const note = cite(2, { doc_path: '/notes/exam.md', text: '# Biology\n\nCells.\n\n## Exam tips\n\n- Be ready early\n- Bring two pens' });
  const md = '#### Close matches\n\n**Walden**, page 3\n\n> … I find it wholesome to be alone the greater part of the time. … [1]\n\n**Biology**\n\n> ## Exam tips\n> \n> - Be ready early … [2]';
  const terms = new Set(['wholesom', 'alon', 'exam', 'tip']);

  it('offers the whole passage under each excerpt, and shows it when asked', () => {
    const el = dom(renderAnswer(md, [walden, note], terms));
    const toggles = [...el.querySelectorAll<HTMLButtonElement>('button[data-whole]')];
    expect(toggles.map((b) => [b.dataset.whole, b.getAttribute('aria-expanded'), b.closest('blockquote') !== null])).toEqual([
      ['1', 'false', true],
      ['2', 'false', true],
    ]);
    const open = dom(renderAnswer(md, [walden, note], terms, new Set([1])));
    const q = open.querySelectorAll('blockquote')[0];
    expect(q.textContent).toContain('Solitude. This is a delicious evening, when the whole body is one sense.');
    expect(q.textContent).not.toContain('…');
    expect([...q.querySelectorAll('mark.match')].map((m) => m.textContent)).toEqual(['wholesome', 'alone']);
    expect(q.querySelector('button.cite')?.getAttribute('data-cite')).toBe('1');
    expect(q.querySelector('button[data-whole]')?.textContent).toBe('Show the excerpt');
    // The other quote is still its excerpt.
    expect(open.querySelectorAll('blockquote')[1].textContent).not.toContain('Bring two pens');
  });

  it('renders a Markdown source\'s whole passage as Markdown', () => {
    const el = dom(renderAnswer(md, [walden, note], terms, new Set([2])));
    const q = el.querySelectorAll('blockquote')[1];
    expect([...q.querySelectorAll('h1, h2')].map((h) => h.textContent)).toEqual(['Biology', 'Exam tips']);
    expect([...q.querySelectorAll('li')].map((li) => li.textContent?.trim())).toEqual(['Be ready early', expect.stringContaining('Bring two pens')]);
    expect(q.textContent).not.toContain('##');
  });

  it('offers nothing for a quote that is its whole passage, nor in model answers', () => {
    const short = cite(1, { text: 'Bring two pens.' });
    expect(dom(renderAnswer('> Bring two pens. [1]', [short], terms)).querySelector('button[data-whole]')).toBeNull();
    expect(dom(renderAnswer(md, [walden, note])).querySelector('button[data-whole]')).toBeNull();
  });
});
