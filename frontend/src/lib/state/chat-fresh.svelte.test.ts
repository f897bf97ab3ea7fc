import { describe, expect, it, vi } from 'vitest';
import type { EventMap, EventName } from '../types';
import { cachedFrom } from '../recall';

// The API is faked: "Ask again fresh" must go through AskFresh, with the cached answer's
// standalone question, in the same session and scope.
const handlers = new Map<string, (d: unknown) => void>();
const calls: { method: string; args: unknown[] }[] = [];
vi.mock('../api', () => ({
  on: (name: string, cb: (d: unknown) => void) => {
    handlers.set(name, cb);
    return () => handlers.delete(name);
  },
  askInSession: (...args: unknown[]) => {
    calls.push({ method: 'askInSession', args });
    return Promise.resolve(`a${calls.length}`);
  },
  askFresh: (...args: unknown[]) => {
    calls.push({ method: 'askFresh', args });
    return Promise.resolve(`a${calls.length}`);
  },
  cancel: () => Promise.resolve(),
}));

const { ChatState } = await import('./chat.svelte');
const emit = <K extends EventName>(name: K, data: EventMap[K]) => handlers.get(name)!(data);

describe('ChatState.askFresh', () => {
  it('asks the cached question again past the cache, as a new turn', async () => {
    const chat = new ChatState();
    chat.connect();
    await chat.ask('why did he?', ['d1']);
    const done = {
      ask_id: 'a1', answer: 'Because.', citations: [], usage: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, model: 'm', mode: 'model' as const,
      note: '', session_id: 's1', cached_from: cachedFrom({ session_id: 's0', question: 'Why did Thoreau go to the woods?', match: 'meaning' }),
    };
    emit('answer:done', done);
    expect(chat.turns[0].cached?.session_id).toBe('s0');
    await chat.askFresh(chat.turns[0]);
    expect(calls[1]).toEqual({ method: 'askFresh', args: ['s1', 'Why did Thoreau go to the woods?', ['d1']] });
    expect(chat.turns).toHaveLength(2);
    expect(chat.turns[1].cached).toBeNull();
  });
});
