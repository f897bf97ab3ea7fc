import { describe, expect, it, vi } from 'vitest';
import type { SessionEvent } from '../types';

const handlers = new Map<string, (d: unknown) => void>();
vi.mock('../api', () => ({
  on: (name: string, cb: (d: unknown) => void) => {
    handlers.set(name, cb);
    return () => handlers.delete(name);
  },
  listSessions: async () => [{ id: 'old', title: 'Old', updated_at: '2026-01-01T00:00:00Z', messages: 0 }],
  deleteSession: async () => {},
}));

const { SessionsState, fileName } = await import('./sessions.svelte');

const ev = (o: Partial<SessionEvent>): SessionEvent => ({
  id: '', title: '', doc_ids: [], provider: '', model: '', created_at: '', updated_at: '', messages: 0, cost_usd: 0, deleted: false, ...o,
});

describe('SessionsState', () => {
  it('keeps the list current from session:changed, newest first', async () => {
    const chat = { busy: false, sessionID: 'new', clear: vi.fn(), resume: vi.fn() };
    const s = new SessionsState(chat as never, { show: vi.fn(), error: vi.fn() } as never);
    s.connect();
    await s.refresh();
    const emit = handlers.get('session:changed')!;
    emit(ev({ id: 'new', title: 'Ponds', updated_at: '2026-02-01T00:00:00Z', messages: 1 }));
    expect(s.list.map((x) => x.id)).toEqual(['new', 'old']);
    emit(ev({ id: 'new', title: 'Bullfrogs', updated_at: '2026-02-02T00:00:00Z', messages: 2 }));
    expect(s.list.map((x) => `${x.id}:${x.title}:${x.messages}`)).toEqual(['new:Bullfrogs:2', 'old:Old:0']);
    emit(ev({ id: 'old', deleted: true }));
    expect(s.list.map((x) => x.id)).toEqual(['new']);
    await s.remove('new');
    expect(s.list).toEqual([]);
    expect(chat.clear).toHaveBeenCalled(); // the open session was deleted
  });

  it('makes safe file names from titles', () => {
    expect(fileName('What is 1/2: a "half"?')).toBe('What is 1 2 a half');
    expect(fileName('  \u0000 ')).toBe('session');
    expect(fileName('x'.repeat(200))).toHaveLength(80);
  });
});
