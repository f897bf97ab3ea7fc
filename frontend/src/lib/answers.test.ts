import { describe, expect, it } from 'vitest';
import { applyAnswerEvent, AskBuffer, isActive, newTurn, turnToMarkdown } from './answers';
import * as parse from './normalize';
import type { AnswerEvent } from './types';

const start = (askID: string): AnswerEvent => ({
  name: 'answer:start',
  data: parse.answerStart({ ask_id: askID, question: 'q', mode: 'full', citations: [{ n: 1, doc_id: 'd', doc_title: 'D', page: 2, text: 'p' }] }),
});
const token = (askID: string, text: string): AnswerEvent => ({ name: 'answer:token', data: { ask_id: askID, text } });
const done = (askID: string, answer: string, over: Record<string, unknown> = {}): AnswerEvent => ({
  name: 'answer:done',
  data: parse.answerDone({ ask_id: askID, answer, citations: null, usage: { prompt_tokens: 10, completion_tokens: 3 }, model: 'tiny', mode: 'model', ...over }),
});
const error = (askID: string, message: string, partial: string): AnswerEvent => ({ name: 'answer:error', data: { ask_id: askID, message, partial } });

function run(events: AnswerEvent[]) {
  const t = newTurn('q', []);
  t.ask_id = 'a1';
  t.state = 'waiting';
  const states: string[] = [];
  for (const e of events) {
    applyAnswerEvent(t, e);
    states.push(t.state);
  }
  return { t, states };
}

describe('answer events', () => {
  it('streams tokens, then takes the final answer and citations', () => {
    const { t, states } = run([start('a1'), token('a1', 'Wal'), token('a1', 'den'), token('a1', ' [1]'), done('a1', 'Walden [1].')]);
    expect(states).toEqual(['streaming', 'streaming', 'streaming', 'streaming', 'done']);
    expect(t.tokens).toBe(3);
    expect(t.text).toBe('Walden [1].');
    // done carried no citations: those from start are kept
    expect(t.citations).toHaveLength(1);
    expect(t.usage).toEqual({ prompt_tokens: 10, completion_tokens: 3, cost_usd: 0 });
    expect(isActive(t)).toBe(false);
  });

  it('keeps the partial answer on error', () => {
    const { t } = run([start('a1'), token('a1', 'Half an '), error('a1', 'model crashed', 'Half an ans')]);
    expect(t.state).toBe('error');
    expect(t.error).toBe('model crashed');
    expect(t.text).toBe('Half an ans');
  });

  it('keeps the streamed text if the error carries a shorter partial', () => {
    const { t } = run([token('a1', 'Some text'), error('a1', 'boom', '')]);
    expect(t.text).toBe('Some text');
  });

  it('ignores tokens and the cancellation error after Stop', () => {
    const t = newTurn('q', []);
    t.ask_id = 'a1';
    applyAnswerEvent(t, token('a1', 'abc'));
    t.state = 'stopped';
    applyAnswerEvent(t, token('a1', 'def'));
    applyAnswerEvent(t, error('a1', 'context canceled', 'abcdef'));
    expect(t.state).toBe('stopped');
    expect(t.text).toBe('abc');
    expect(t.error).toBe('');
  });

  it('does not read a missing mode on answer:start as no-model', () => {
    const ev: AnswerEvent = { name: 'answer:start', data: parse.answerStart({ ask_id: 'a1', question: 'q', citations: [] }) };
    const { t } = run([ev, token('a1', 'x')]);
    expect(t.mode).toBe('');
    expect(t.state).toBe('streaming');
  });

  it("keeps the answer's own mode, Go's words, and reads an unknown one as ''", () => {
    expect(run([done('a1', 'p [1]', { mode: 'passages' })]).t.mode).toBe('passages');
    expect(run([done('a1', 'x', { mode: 'model' })]).t.mode).toBe('model');
    expect(run([done('a1', 'x', { mode: 'not_found' })]).t.mode).toBe('not_found');
    expect(run([done('a1', 'x', { mode: 'no-model' })]).t.mode).toBe('');
  });

  it('shows the no-model note', () => {
    const { t } = run([done('a1', 'A passage. [1]', { mode: 'passages', note: 'Ollama is not running: start it.' })]);
    expect(t.mode).toBe('passages');
    expect(t.note).toBe('Ollama is not running: start it.');
    expect(turnToMarkdown(t)).toContain('> Ollama is not running');
  });
});

describe('AskBuffer', () => {
  it('holds events until the askID is known, in order', () => {
    const b = new AskBuffer();
    b.push(start('x'));
    b.push(token('x', 'a'));
    b.push(token('y', 'other'));
    expect(b.take('x').map((e) => e.name)).toEqual(['answer:start', 'answer:token']);
    expect(b.take('x')).toEqual([]);
    expect(b.size).toBe(1);
  });

  it('is bounded', () => {
    const b = new AskBuffer(2);
    b.push(token('1', 'a'));
    b.push(token('2', 'a'));
    b.push(token('3', 'a'));
    expect(b.size).toBe(2);
    expect(b.take('1')).toEqual([]);
  });
});

describe('session answer fields', () => {
  it('keeps a budget warning and the model to download', () => {
    const { t } = run([start('a1'), done('a1', 'A', { warning: '82% of the budget is spent' })]);
    expect(t.warning).toBe('82% of the budget is spent');
    const e = run([start('a1'), { name: 'answer:error', data: parse.answerError({ ask_id: 'a1', message: 'model not found', pull: 'llama3.2:3b' }) }]);
    expect(e.t.state).toBe('error');
    expect(e.t.pull).toBe('llama3.2:3b');
  });
});
