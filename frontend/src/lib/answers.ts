// Pure reduction of a question/answer turn from `answer:*` events.
//
// Ask() returns the askID while events for it may already be on their way, so events
// whose askID is not yet known are buffered by the caller (see AskBuffer) and replayed.

import type { AnswerEvent, AnswerMode, CachedFrom, Citation, Claim, Message, Usage } from './types';
import { answerMode } from './normalize';

export type TurnState =
  | 'sending' // Ask() in flight: no askID yet
  | 'waiting' // askID known, passages not chosen yet
  | 'streaming' // answer:start seen, tokens arriving
  | 'done'
  | 'error'
  | 'stopped'; // the user pressed Stop

export type Turn = {
  id: string;
  question: string;
  scope: string[];
  ask_id: string;
  state: TurnState;
  text: string;
  tokens: number;
  citations: Citation[];
  mode: AnswerMode | '';
  model: string;
  note: string;
  usage: Usage | null;
  error: string;
  /** A model to download to answer (answer:error with pull). */
  pull: string;
  /** A budget warning. */
  warning: string;
  /** Each sentence with its supporting passage text (answer:done, saved sessions). */
  claims: Claim[];
  /** Where an answer reused from the cache came from; null when a model answered. */
  cached: CachedFrom | null;
};

let seq = 0;
export function newTurn(question: string, scope: string[]): Turn {
  return {
    id: `t${Date.now().toString(36)}${(seq++).toString(36)}`,
    question,
    scope,
    ask_id: '',
    state: 'sending',
    text: '',
    tokens: 0,
    citations: [],
    mode: '',
    model: '',
    note: '',
    usage: null,
    error: '',
    pull: '',
    warning: '',
    claims: [],
    cached: null,
  };
}

export const isActive = (t: Turn): boolean => t.state === 'sending' || t.state === 'waiting' || t.state === 'streaming';

/** Applies one event to a turn (mutating it; Svelte state proxies track the writes). */
export function applyAnswerEvent(t: Turn, ev: AnswerEvent): void {
  switch (ev.name) {
    case 'answer:start':
      if (t.state === 'sending' || t.state === 'waiting') t.state = 'streaming';
      t.citations = ev.data.citations;
      if (ev.data.mode) t.mode = ev.data.mode;
      return;
    case 'answer:token':
      if (t.state === 'sending' || t.state === 'waiting') t.state = 'streaming';
      if (t.state !== 'streaming') return; // late tokens after Stop or done
      t.text += ev.data.text;
      t.tokens++;
      return;
    case 'answer:done': {
      const d = ev.data;
      if (d.answer) t.text = d.answer;
      if (d.citations.length || !t.citations.length) t.citations = d.citations;
      t.usage = d.usage;
      t.model = d.model;
      if (d.mode) t.mode = d.mode;
      t.note = d.note;
      t.warning = d.warning ?? '';
      t.claims = d.claims ?? [];
      t.cached = d.cached_from ?? null;
      if (t.state !== 'stopped') t.state = 'done';
      return;
    }
    case 'answer:error':
      // After Stop the backend reports the cancellation; that is not an error to show.
      if (t.state === 'stopped' || t.state === 'done') return;
      if (ev.data.partial.length >= t.text.length) t.text = ev.data.partial;
      t.error = ev.data.message || 'The answer failed.';
      t.pull = ev.data.pull ?? '';
      t.state = 'error';
      return;
  }
}

/** Holds events for askIDs not yet returned by Ask(); bounded so it cannot grow forever. */
export class AskBuffer {
  private events = new Map<string, AnswerEvent[]>();
  constructor(private maxAsks = 32) {}

  push(ev: AnswerEvent): void {
    const id = ev.data.ask_id;
    let list = this.events.get(id);
    if (!list) {
      if (this.events.size >= this.maxAsks) this.events.delete(this.events.keys().next().value!);
      this.events.set(id, (list = []));
    }
    list.push(ev);
  }

  take(askID: string): AnswerEvent[] {
    const list = this.events.get(askID) ?? [];
    this.events.delete(askID);
    return list;
  }

  get size(): number {
    return this.events.size;
  }
}

/** The session as Markdown with its sources: for copy/export. */
export function turnToMarkdown(t: Turn): string {
  const lines = [`**Q:** ${t.question}`, '', t.text.trim()];
  if (t.note) lines.push('', `> ${t.note}`);
  if (t.citations.length) {
    lines.push('', 'Sources:');
    for (const c of t.citations) {
      const where = c.page > 0 ? `, p. ${c.focus_page ?? c.page}` : '';
      lines.push(`[${c.n}] ${c.doc_title || c.doc_path}${where}`);
    }
  }
  return lines.join('\n');
}

/** A saved exchange (GetSession) as a finished turn. */
export function turnFromMessage(m: Message, scope: string[]): Turn {
  const t = newTurn(m.question, [...scope]);
  t.ask_id = `saved-${m.id}`;
  t.text = m.answer;
  t.citations = m.citations.map(({ n, doc_id, doc_title, doc_path, page, page_end, text }) => ({ n, doc_id, doc_title, doc_path, page, page_end, text }));
  t.claims = m.claims ?? [];
  t.cached = m.cached_from ?? null;
  t.mode = answerMode(m.mode);
  t.model = m.model;
  t.note = m.status === 'truncated' && !m.note ? 'The model stopped early, so this answer may be incomplete.' : m.note;
  t.usage = { prompt_tokens: m.prompt_tokens, completion_tokens: m.completion_tokens, cost_usd: m.cost_usd };
  t.state = m.status === 'stopped' ? 'stopped' : m.status === 'failed' ? 'error' : 'done';
  if (t.state === 'error') t.error = 'This answer failed.';
  return t;
}
