import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventMap, EventName, Message } from '../types';

// The API is faked: tests push events and decide when Ask() resolves.
const handlers = new Map<string, (d: unknown) => void>();
let resolveAsk: (id: string) => void = () => {};
const cancel = vi.fn().mockResolvedValue(undefined);
const asked: string[] = [];
vi.mock('../api', () => ({
  on: (name: string, cb: (d: unknown) => void) => {
    handlers.set(name, cb);
    return () => handlers.delete(name);
  },
  askInSession: (sessionID: string) => {
    asked.push(sessionID);
    return new Promise<string>((r) => (resolveAsk = r));
  },
  cancel: (id: string) => cancel(id),
}));

const { ChatState } = await import('./chat.svelte');
const emit = <K extends EventName>(name: K, data: EventMap[K]) => handlers.get(name)!(data);
const tick = () => new Promise((r) => setTimeout(r, 0));

describe('ChatState', () => {
  let chat: InstanceType<typeof ChatState>;
  beforeEach(() => {
    handlers.clear();
    cancel.mockClear();
    chat = new ChatState();
    chat.connect();
  });

  it('replays events that arrived before Ask() returned the id', async () => {
    const p = chat.ask('why?', []);
    expect(chat.turns[0].state).toBe('sending');
    emit('answer:start', { ask_id: 'a1', question: 'why?', citations: [], mode: 'model' });
    emit('answer:token', { ask_id: 'a1', text: 'Be' });
    emit('answer:token', { ask_id: 'other', text: 'not ours' });
    resolveAsk('a1');
    await p;
    expect(chat.turns[0].state).toBe('streaming');
    expect(chat.turns[0].text).toBe('Be');
    emit('answer:token', { ask_id: 'a1', text: 'cause' });
    expect(chat.turns[0].text).toBe('Because');
    expect(chat.busy).toBe(true);
  });

  it('stops the running answer through Cancel and keeps the partial text', async () => {
    const p = chat.ask('q', ['d1']);
    resolveAsk('a2');
    await p;
    emit('answer:token', { ask_id: 'a2', text: 'partial' });
    await chat.stop();
    expect(cancel).toHaveBeenCalledWith('a2');
    emit('answer:error', { ask_id: 'a2', message: 'stopped', partial: 'partial' });
    expect(chat.turns[0]).toMatchObject({ state: 'stopped', text: 'partial', error: '' });
    expect(chat.busy).toBe(false);
  });

  it('cancels on the backend when Stop came before Ask() returned', async () => {
    const p = chat.ask('q', []);
    await chat.stop();
    expect(cancel).not.toHaveBeenCalled();
    resolveAsk('a4');
    await p;
    expect(cancel).toHaveBeenCalledWith('a4');
    expect(chat.turns[0].state).toBe('stopped');
  });

  it('refuses a second question while one is running, and ignores blank ones', async () => {
    void chat.ask('first', []);
    await chat.ask('second', []);
    await chat.ask('   ', []);
    expect(chat.turns.map((t) => t.question)).toEqual(['first']);
  });

  it('ends a running answer when the event stream was interrupted', async () => {
    const p = chat.ask('q', []);
    resolveAsk('a3');
    await p;
    emit('answer:token', { ask_id: 'a3', text: 'half' });
    chat.interrupt('lost');
    expect(chat.turns[0]).toMatchObject({ state: 'error', error: 'lost', text: 'half' });
    await tick();
  });
});

describe('ChatState sessions', () => {
  it('learns the session id from the first saved answer and continues it; clear starts anew', async () => {
    handlers.clear();
    asked.length = 0;
    const chat = new ChatState();
    chat.connect();
    const p = chat.ask('first?', []);
    resolveAsk('s-a1');
    await p;
    emit('answer:done', { ask_id: 's-a1', answer: 'A', citations: [], usage: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, model: 'm', mode: 'model', note: '', session_id: 'sess-1' });
    expect(chat.sessionID).toBe('sess-1');
    const p2 = chat.ask('second?', []);
    resolveAsk('s-a2');
    await p2;
    expect(asked).toEqual(['', 'sess-1']);
    emit('answer:done', { ask_id: 's-a2', answer: 'B', citations: [], usage: { prompt_tokens: 0, completion_tokens: 0, cost_usd: 0 }, model: 'm', mode: 'model', note: '', session_id: 'sess-1' });
    chat.clear();
    expect(chat.sessionID).toBe('');
    expect(chat.turns).toHaveLength(0);
  });

  it('resumes a saved session as finished turns', () => {
    const chat = new ChatState();
    const msg = (id: number, status: 'done' | 'stopped' | 'truncated' | 'failed'): Message => ({
      id, session_id: 's', question: `q${id}`, standalone: '', answer: `a${id} [1]`, status, mode: 'passages', note: '', provider: 'ollama', model: 'm',
      prompt_tokens: 1, completion_tokens: 2, cost_usd: 0, created_at: '',
      citations: [{ n: 1, doc_id: 'd', doc_title: 'D', doc_path: '/d', page: 3, text: 'p', page_end: 3, start: 0, end: 1, section: '' }],
    });
    chat.resume({ id: 's', title: 'T', doc_ids: ['d'], provider: '', model: '', created_at: '', updated_at: '', cost_usd: 0, scope: ['D'],
      messages: [msg(1, 'done'), msg(2, 'stopped'), msg(3, 'truncated'), msg(4, 'failed')] });
    expect(chat.sessionID).toBe('s');
    expect(chat.turns.map((t) => t.state)).toEqual(['done', 'stopped', 'done', 'error']);
    expect(chat.turns[0]).toMatchObject({ question: 'q1', text: 'a1 [1]', mode: 'passages', scope: ['d'] });
    expect(chat.turns[0].citations[0]).toEqual({ n: 1, doc_id: 'd', doc_title: 'D', doc_path: '/d', page: 3, page_end: 3, text: 'p' });
    expect(chat.turns[2].note).toMatch(/stopped early/);
    expect(chat.busy).toBe(false);
  });
});
