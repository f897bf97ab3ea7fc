import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { EventMap, EventName } from '../types';

// The API is faked: tests push events and decide when Ask() resolves.
const handlers = new Map<string, (d: unknown) => void>();
let resolveAsk: (id: string) => void = () => {};
const cancel = vi.fn().mockResolvedValue(undefined);
vi.mock('../api', () => ({
  on: (name: string, cb: (d: unknown) => void) => {
    handlers.set(name, cb);
    return () => handlers.delete(name);
  },
  ask: () => new Promise<string>((r) => (resolveAsk = r)),
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
    emit('answer:start', { askID: 'a1', question: 'why?', citations: [], mode: 'full' });
    emit('answer:token', { askID: 'a1', text: 'Be' });
    emit('answer:token', { askID: 'other', text: 'not ours' });
    resolveAsk('a1');
    await p;
    expect(chat.turns[0].state).toBe('streaming');
    expect(chat.turns[0].text).toBe('Be');
    emit('answer:token', { askID: 'a1', text: 'cause' });
    expect(chat.turns[0].text).toBe('Because');
    expect(chat.busy).toBe(true);
  });

  it('stops the running answer through Cancel and keeps the partial text', async () => {
    const p = chat.ask('q', ['d1']);
    resolveAsk('a2');
    await p;
    emit('answer:token', { askID: 'a2', text: 'partial' });
    await chat.stop();
    expect(cancel).toHaveBeenCalledWith('a2');
    emit('answer:error', { askID: 'a2', message: 'stopped', partial: 'partial' });
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
    emit('answer:token', { askID: 'a3', text: 'half' });
    chat.interrupt('lost');
    expect(chat.turns[0]).toMatchObject({ state: 'error', error: 'lost', text: 'half' });
    await tick();
  });
});
