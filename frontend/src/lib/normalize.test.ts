import { describe, expect, it } from 'vitest';
import { answerDone, citation, claims, cloudSettings, documentEvent, message, meter, session, status, suggestion } from './normalize';

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

describe('citations at the boundary', () => {
  it('keeps the page a passage over several pages matched on, only when it lies on the passage', () => {
    const base = { n: 1, doc_id: 'd', doc_title: 'Slides', doc_path: '/s.pdf', page: 21, page_end: 25, text: 'demo' };
    expect(citation({ ...base, focus_page: 24 }).focus_page).toBe(24);
    expect(citation({ ...base, focus_page: 21 }).focus_page).toBeUndefined(); // its first page: nothing to say
    expect(citation({ ...base, focus_page: 26 }).focus_page).toBeUndefined(); // off the passage: ignored
    expect(citation({ ...base, page_end: 0, focus_page: 22 }).focus_page).toBeUndefined();
    expect(citation(base).focus_page).toBeUndefined(); // saved before focus pages were kept
  });
});

describe('enumerated values at the boundary', () => {
  it('keeps the Go values and reads anything else as before', () => {
    expect(status({ mode: 'lexical' }).mode).toBe('lexical');
    expect(status({ mode: 'turbo' }).mode).toBe('no-model');
    expect(documentEvent({ status: 'removed', kind: 'epub' })).toMatchObject({ status: 'removed', kind: 'epub' });
    expect(documentEvent({ status: 'lost', kind: 'xyz' })).toMatchObject({ status: 'queued', kind: '' });
    expect(suggestion({ role: 'embed' }).role).toBe('embed');
    expect(suggestion({ role: 'judge' }).role).toBe('chat');
    expect(session({ provider: 'anthropic' }).provider).toBe('anthropic');
    expect(session({ provider: 'gemini' }).provider).toBe('');
    expect(meter({ provider: 'openai' }).provider).toBe('openai');
    expect(message({ mode: 'not_found', provider: 'ollama' })).toMatchObject({ mode: 'not_found', provider: 'ollama' });
    expect(message({ mode: 'guess' }).mode).toBe('');
    expect(cloudSettings({ provider: 'openai' }).provider).toBe('openai');
    expect(cloudSettings({ provider: '' }).provider).toBe('ollama');
  });
});
