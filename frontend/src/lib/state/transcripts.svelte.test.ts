import { describe, expect, it, vi } from 'vitest';

vi.mock('../api', () => ({
  transcript: vi.fn(async (id: string) => {
    if (id !== 'rec') throw new Error('no transcript');
    return { doc_id: 'rec', segments: [{ start: 0, end: 5, page: 1, from: 0, to: 10, text: 'first line' }, { start: 65, end: 70, page: 1, from: 11, to: 20, text: 'next line' }] };
  }),
}));

import * as api from '../api';
import { TranscriptsState } from './transcripts.svelte';

describe('TranscriptsState', () => {
  // (That asking writes no state while a template renders is checked by e2e/audio.mjs:
  // the answer's sources render labels as the transcript loads.)
  it('loads each transcript once and labels passages with their time', async () => {
    const s = new TranscriptsState();
    expect(s.label('rec', 1, 11)).toBe(''); // loading
    await vi.waitFor(() => expect(s.get('rec')).not.toBeNull());
    expect(s.label('rec', 1, 11)).toBe('1:05');
    expect(s.label('rec', 1, 0)).toBe('0:00');
    // A point in the passage: its second line.
    expect(s.label('rec', 1, 0, 'first line\nnext line', 11)).toBe('1:05');
    expect(s.get('other')).toBeNull(); // not a recording
    expect(vi.mocked(api.transcript).mock.calls.filter((c) => c[0] === 'rec')).toHaveLength(1);
  });
});
