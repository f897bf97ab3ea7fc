import { describe, expect, it } from 'vitest';
import { answerDone, claims, message, status } from './normalize';

describe('claims at the boundary', () => {
  it('keeps the claims of answer:done and saved messages (the viewer needs them for the strong highlight)', () => {
    const raw = [{ start: 0, end: 12, supported: true, spans: [{ n: 1, start: 3, end: 9, quote: 'frogs' }, { n: 0 }] }, { start: 5, end: 5 }, null];
    const want = [{ start: 0, end: 12, supported: true, spans: [{ n: 1, start: 3, end: 9, quote: 'frogs' }] }];
    expect(claims(raw)).toEqual(want);
    expect(answerDone({ ask_id: 'a', claims: raw }).claims).toEqual(want);
    expect(message({ id: 1, claims: raw }).claims).toEqual(want);
    expect(answerDone({ ask_id: 'a' }).claims).toEqual([]);
  });
});

describe('status at the boundary', () => {
  it('keeps a read-only library and the repairs made at open (the header shows them)', () => {
    const s = status({ mode: 'full', read_only: true, read_only_reason: 'On a read-only disk.', notices: ['The word index was rebuilt.', '', 3] });
    expect(s.read_only).toBe(true);
    expect(s.read_only_reason).toBe('On a read-only disk.');
    expect(s.notices).toEqual(['The word index was rebuilt.', '3']);
    const plain = status({ mode: 'full' });
    expect(plain.read_only).toBe(false);
    expect(plain.notices).toEqual([]);
  });
});
