// The E2E fixtures full of HTML/JS payloads, through the answer renderer in jsdom.
import hostileMD from '../../e2e/fixtures/hostile.md?raw';
import hostileTXT from '../../e2e/fixtures/hostile.txt?raw';
import { describe, expect, it } from 'vitest';
import { renderAnswer } from './render';

const fixture = (name: string) => (name === 'hostile.md' ? hostileMD : hostileTXT);
const DANGEROUS = 'script, img, svg, iframe, object, embed, style, link, meta, base, form, input, details, math, body';

describe('hostile documents', () => {
  for (const name of ['hostile.md', 'hostile.txt']) {
    it(`${name} renders as inert text`, () => {
      const citation = { n: 1, doc_id: 'd', doc_title: 't', doc_path: 'p', page: 1, text: 'x' };
      const tpl = document.createElement('template');
      tpl.innerHTML = renderAnswer(fixture(name) + ' [1]', [citation]);
      const root = tpl.content;
      expect(root.querySelectorAll(DANGEROUS)).toHaveLength(0);
      for (const el of root.querySelectorAll('*')) {
        for (const a of el.attributes) expect(a.name).not.toMatch(/^on/);
      }
      for (const a of root.querySelectorAll('a[href]')) expect(a.getAttribute('href')).toMatch(/^https:\/\/example\.com\//);
      expect(root.textContent).toContain("pwn('");
      expect(root.querySelectorAll('button.cite')).toHaveLength(1);
    });
  }
});
