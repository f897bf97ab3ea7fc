import { describe, expect, it } from 'vitest';
import { cachedDetail, cachedFrom, cachedWhere, memorySettings } from './recall';

describe('cachedFrom', () => {
  it('is null for a fresh answer and keeps the source of a cached one', () => {
    expect(cachedFrom(null)).toBeNull();
    expect(cachedFrom(undefined)).toBeNull();
    const c = cachedFrom({ session_id: 's', session_title: 'Walden', message_id: 4, question: 'Why?', at: '2026-11-30T14:03:00Z', match: 'words', similarity: 'x' });
    expect(c).toEqual({ session_id: 's', session_title: 'Walden', message_id: 4, question: 'Why?', at: '2026-11-30T14:03:00Z', match: 'words', similarity: 0, saved_usd: 0 });
  });
  it('words where and how', () => {
    const c = cachedFrom({ session_title: 'Walden', at: '2026-11-30T14:03:00Z', match: 'meaning', similarity: 0.97, question: 'Why did Thoreau go?', saved_usd: 0.0123 })!;
    expect(cachedWhere(c, new Date('2026-12-24T10:00:00Z'))).toMatch(/^from “Walden”, .+, .+$/);
    expect(cachedWhere({ ...c, session_title: '', at: 'bad' })).toBe('from an earlier session');
    expect(cachedDetail(c)).toContain('similarity 0.970');
    expect(cachedDetail(c)).toContain('Saved $0.01');
    expect(cachedDetail({ ...c, match: 'words' })).toContain('no embedding model');
  });
});

describe('memorySettings', () => {
  it('drops bad entries and defaults the kind', () => {
    const m = memorySettings({ enabled: false, memories: [{ id: 1, kind: 'goal', text: 'wants to pass' }, { id: 0, text: 'x' }, { id: 2, kind: '<b>', text: 't' }, 'junk'] });
    expect(m.enabled).toBe(false);
    expect(m.memories.map((x) => [x.id, x.kind])).toEqual([
      [1, 'goal'],
      [2, 'context'],
    ]);
    expect(memorySettings(null)).toEqual({ enabled: true, memories: [] });
  });
});

describe('a turn from the cache', () => {
  it('carries its source from answer:done and from a saved message', async () => {
    const { applyAnswerEvent, newTurn, turnFromMessage } = await import('./answers');
    const { answerDone, message } = await import('./normalize');
    const t = newTurn('Why?', []);
    applyAnswerEvent(t, { name: 'answer:done', data: answerDone({ ask_id: 'a', answer: 'x', cached_from: { session_title: 'S', match: 'meaning', similarity: 1 } }) });
    expect(t.cached?.session_title).toBe('S');
    const fresh = newTurn('Why?', []);
    applyAnswerEvent(fresh, { name: 'answer:done', data: answerDone({ ask_id: 'b', answer: 'y' }) });
    expect(fresh.cached).toBeNull();
    const saved = turnFromMessage(message({ id: 3, answer: 'x', cached: { session_id: 's1', question: 'Why did Thoreau go?' } }), []);
    expect(saved.cached?.question).toBe('Why did Thoreau go?');
  });
});
