import { describe, expect, it } from 'vitest';
import { claimFor, claimRange, plainClaim } from './claimrange';
import { renderAnswer } from './render';
import type { Citation, Claim } from './types';

const cite = (n: number): Citation => ({ n, doc_id: 'd', doc_title: 'D', doc_path: '/d', page: n, text: `passage ${n}` });

function render(md: string, n = 3): HTMLElement {
  const body = document.createElement('div');
  body.dataset.testid = 'answer-body';
  body.innerHTML = renderAnswer(md, [1, 2, 3].slice(0, n).map(cite));
  document.body.replaceChildren(body);
  return body;
}

const markers = (el: HTMLElement) => [...el.querySelectorAll<HTMLElement>('button.cite')];

describe('claimRange', () => {
  it('spans the sentence before each marker, markers left out', () => {
    const el = render('Ponds freeze in **winter**. [1] Fish sleep below the ice [1][2]. Frogs wait [3].');
    const ms = markers(el);
    expect(ms.map((m) => claimRange(m)?.toString())).toEqual([
      'Ponds freeze in winter.',
      'Fish sleep below the ice',
      'Fish sleep below the ice',
      'Frogs wait',
    ]);
  });

  it('stays inside its list item or paragraph', () => {
    const el = render('- First point here [1]\n- Second point, longer. Still going [2]\n\nNew paragraph starts [3].');
    expect(markers(el).map((m) => claimRange(m)?.toString())).toEqual(['First point here', 'Still going', 'New paragraph starts']);
  });

  it('starts where the claim says when it spans several sentences', () => {
    const el = render('> Quoted passage. It has two sentences. [1]');
    const m = markers(el)[0];
    expect(claimRange(m)?.toString()).toBe('It has two sentences.');
    expect(claimRange(m, 'Quoted passage. It has two sentences.')?.toString()).toBe('Quoted passage. It has two sentences.');
  });

  it('finds nothing for a marker with no text before it', () => {
    const el = render('[1] starts the answer.');
    expect(claimRange(markers(el)[0])).toBeNull();
  });
});

describe('claimFor', () => {
  it('gives the plain words of the claim holding the k-th marker', () => {
    const text = 'Ponds *freeze*. [1] Fish sleep [1][2].';
    const claims: Claim[] = [
      { start: 0, end: 19, supported: true, spans: [] },
      { start: 20, end: 38, supported: true, spans: [] },
    ];
    const cs = [cite(1), cite(2)];
    expect(claimFor(text, claims, cs, 1, 0)).toBe('Ponds freeze.');
    expect(claimFor(text, claims, cs, 1, 1)).toBe('Fish sleep .');
    expect(claimFor(text, [], cs, 1, 0)).toBe('');
    expect(plainClaim('> **Bold** [link](https://x.y) `code` [2]')).toBe('Bold link code');
  });
});
