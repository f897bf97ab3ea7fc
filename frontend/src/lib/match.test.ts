import { describe, expect, it } from 'vitest';
import { markTerms, questionTerms, stem } from './match';

describe('match', () => {
  it('stems like the backend (backend/chat/window_test.go TestStem)', () => {
    const same = [['bullfrogs', 'bullfrog'], ['phrases', 'phrase'], ['phrased', 'phrase'], ['studies', 'study'], ['running', 'run'],
      ['scanned', 'scan'], ['classes', 'class'], ['Alone', 'alone'], ['evenings', 'evening']];
    for (const [a, b] of same) expect(stem(a), `${a} ~ ${b}`).toBe(stem(b));
    for (const [a, b] of [['pond', 'ponder'], ['bus', 'bu'], ['class', 'clas']]) expect(stem(a)).not.toBe(stem(b));
  });

  it('keeps content words only', () => {
    expect([...questionTerms('Is it wholesome to be alone?')].sort()).toEqual(['alon', 'wholesom']);
  });

  it('marks the question words inside quotes, not in titles, code or markers', () => {
    const div = document.createElement('div');
    div.innerHTML = '<p><strong>Walden, alone</strong></p><blockquote><p>I find it <em>wholesome</em> to be alone. <code>alone</code> <span class="cite-group"><button>1</button></span></p></blockquote>';
    const n = markTerms(div, questionTerms('Is it wholesome to be alone?'));
    expect(n).toBe(2);
    expect([...div.querySelectorAll('mark.match')].map((m) => m.textContent)).toEqual(['wholesome', 'alone']);
    expect(div.querySelector('strong')!.innerHTML).toBe('Walden, alone');
    expect(div.querySelector('blockquote')!.textContent).toBe('I find it wholesome to be alone. alone 1');
  });

  it('marks "evening" but not "even" (the stem strips -ing: "even" is a stop word, as in the backend)', () => {
    const div = document.createElement('div');
    div.innerHTML = '<blockquote><p>A delicious evening, even as far off as the railroad; evenings too.</p></blockquote>';
    markTerms(div, questionTerms('What happens on a delicious evening?'));
    expect([...div.querySelectorAll('mark.match')].map((m) => m.textContent)).toEqual(['delicious', 'evening', 'evenings']);
  });
});
