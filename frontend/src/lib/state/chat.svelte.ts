// The conversation: turns (question + streamed answer), asking, stopping, retrying.

import * as api from '../api';
import { applyAnswerEvent, AskBuffer, isActive, newTurn, turnFromMessage, type Turn } from '../answers';
import type { AnswerEvent, SessionDetail } from '../types';
import { errorText } from '../text';

export class ChatState {
  turns = $state<Turn[]>([]);
  active = $derived(this.turns.find(isActive) ?? null);
  busy = $derived(this.active !== null);
  /** The study session the conversation is saved in; '' until its first answer is saved. */
  sessionID = $state('');

  #buffer = new AskBuffer();
  /** Called when the conversation shown changes to another session (or a new one). */
  onSwitch: () => void = () => {};

  /** Subscribes to answer events; returns the cleanup. */
  connect(): () => void {
    const offs = [
      api.on('answer:start', (data) => this.#apply({ name: 'answer:start', data })),
      api.on('answer:token', (data) => this.#apply({ name: 'answer:token', data })),
      api.on('answer:done', (data) => this.#apply({ name: 'answer:done', data })),
      api.on('answer:error', (data) => this.#apply({ name: 'answer:error', data })),
    ];
    return () => offs.forEach((off) => off());
  }

  #apply(ev: AnswerEvent) {
    const t = this.turns.find((t) => t.ask_id && t.ask_id === ev.data.ask_id);
    if (t) {
      applyAnswerEvent(t, ev);
      // A new session gets its id when its first answer is saved.
      if ((ev.name === 'answer:done' || ev.name === 'answer:error') && ev.data.session_id && !this.sessionID) {
        this.sessionID = ev.data.session_id;
      }
    } else this.#buffer.push(ev); // Ask() has not returned this id yet
  }

  ask = async (question: string, scope: string[]): Promise<void> => {
    const q = question.trim();
    if (!q || this.busy) return;
    this.turns.push(newTurn(q, [...scope]));
    const t = this.turns[this.turns.length - 1]; // the reactive proxy
    await this.#start(t);
  };

  async #start(t: Turn, fresh = false) {
    try {
      const askID = fresh ? await api.askFresh(this.sessionID, t.question, t.scope) : await api.askInSession(this.sessionID, t.question, t.scope);
      t.ask_id = askID;
      if (t.state === 'stopped') {
        // Stop was pressed before the id was known.
        void api.cancel(askID).catch(() => {});
        this.#buffer.take(askID);
        return;
      }
      if (t.state === 'sending') t.state = 'waiting';
      for (const ev of this.#buffer.take(askID)) this.#apply(ev);
    } catch (e) {
      t.state = 'error';
      t.error = errorText(e);
    }
  }

  stop = async (): Promise<void> => {
    const t = this.active;
    if (!t) return;
    t.state = 'stopped';
    if (!t.ask_id) return; // Ask() still in flight; its events will be ignored
    try {
      await api.cancel(t.ask_id);
    } catch {
      // Already finished: nothing to stop.
    }
  };

  /** Asks the same question again (same scope) as a new turn. */
  retry = async (turn: Turn): Promise<void> => {
    if (this.busy) return;
    await this.ask(turn.question, turn.scope);
  };

  /**
   * Asks a cached answer's question again without the cache, as a new turn: the model
   * answers, and its answer replaces the cached one. The question asked is the one the
   * cached answer was given for (standalone, so it needs no rewriting from history).
   */
  askFresh = async (turn: Turn): Promise<void> => {
    if (this.busy) return;
    const q = (turn.cached?.question || turn.question).trim();
    if (!q) return;
    this.turns.push(newTurn(q, [...turn.scope]));
    await this.#start(this.turns[this.turns.length - 1], true);
  };

  /**
   * The event stream dropped and came back: events of a running answer may be lost, so
   * it is ended here (keeping what arrived) rather than left spinning forever.
   */
  interrupt = (message: string): void => {
    for (const t of this.turns) {
      if (t.state === 'waiting' || t.state === 'streaming') {
        t.state = 'error';
        t.error = message;
      }
    }
  };

  /** A new session: the next question starts one. */
  clear = (): void => {
    if (this.busy) return;
    this.turns = [];
    this.sessionID = '';
    this.onSwitch();
  };

  /** Shows a saved session; the next question continues it. */
  resume = (s: SessionDetail): void => {
    if (this.busy) return;
    const other = s.id !== this.sessionID;
    this.turns = s.messages.map((m) => turnFromMessage(m, s.doc_ids));
    this.sessionID = s.id;
    if (other) this.onSwitch();
  };
}
