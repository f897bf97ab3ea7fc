import { describe, expect, it } from 'vitest';
import { markerOffsets, spanForMarker } from './claims';
import { linkCitations } from './markdown';
import type { Citation, Claim } from './types';

const cite = (n: number): Citation => ({ n, doc_id: 'd', doc_title: 'D', doc_path: '/d', page: n, text: `passage ${n}` });

describe('markerOffsets', () => {
  it('gives code point offsets of each known number', () => {
    const text = '😀 A [1]. B [2, 3] C [9].';
    expect(markerOffsets(text, (n) => n <= 3)).toEqual([
      { n: 1, at: 4 },
      { n: 2, at: 11 },
      { n: 3, at: 11 },
    ]);
  });
});

describe('spanForMarker', () => {
  // Sentences: "Ponds freeze. [1]" (0–17) and "Fish sleep [1][2]." (18–36).
  const text = 'Ponds freeze. [1] Fish sleep [1][2].';
  const claims: Claim[] = [
    { start: 0, end: 17, supported: true, spans: [{ n: 1, start: 0, end: 10, quote: 'Ice forms.' }] },
    {
      start: 18,
      end: 36,
      supported: true,
      spans: [
        { n: 1, start: 11, end: 20, quote: 'Fish rest' },
        { n: 2, start: 4, end: 9, quote: 'sleep' },
      ],
    },
  ];
  const cs = [cite(1), cite(2)];

  it('finds the claim of the k-th marker of a number', () => {
    expect(spanForMarker(text, claims, cs, 1, 0)?.quote).toBe('Ice forms.');
    expect(spanForMarker(text, claims, cs, 1, 1)?.quote).toBe('Fish rest');
    expect(spanForMarker(text, claims, cs, 2, 0)?.quote).toBe('sleep');
  });

  it('returns null without claims, for an unknown occurrence or an empty span', () => {
    expect(spanForMarker(text, [], cs, 1, 0)).toBeNull();
    expect(spanForMarker(text, undefined, cs, 1, 0)).toBeNull();
    expect(spanForMarker(text, claims, cs, 1, 2)).toBeNull();
    const empty: Claim[] = [{ start: 0, end: 17, supported: true, spans: [{ n: 1, start: 3, end: 3, quote: '' }] }];
    expect(spanForMarker(text, empty, cs, 1, 0)).toBeNull();
  });

  it('agrees with the occurrence numbers linkCitations gives the buttons', () => {
    const root = document.createElement('div');
    root.innerHTML = `<p>Ponds freeze. [1] Fish sleep [1][2].</p>`;
    linkCitations(root, cs);
    const ks = [...root.querySelectorAll<HTMLElement>('button.cite')].map((b) => [b.dataset.cite, b.dataset.k]);
    expect(ks).toEqual([['1', '0'], ['1', '1'], ['2', '0']]);
  });
});
