// The conversation: turns (question + streamed answer), asking, stopping, retrying.

import * as api from '../api';
import { applyAnswerEvent, AskBuffer, isActive, newTurn, type Turn } from '../answers';
import type { AnswerEvent } from '../types';

export class ChatState {
  turns = $state<Turn[]>([]);
  active = $derived(this.turns.find(isActive) ?? null);
  busy = $derived(this.active !== null);

  #buffer = new AskBuffer();

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
    const t = this.turns.find((t) => t.askID && t.askID === ev.data.askID);
    if (t) applyAnswerEvent(t, ev);
    else this.#buffer.push(ev); // Ask() has not returned this id yet
  }

  ask = async (question: string, scope: string[]): Promise<void> => {
    const q = question.trim();
    if (!q || this.busy) return;
    this.turns.push(newTurn(q, [...scope]));
    const t = this.turns[this.turns.length - 1]; // the reactive proxy
    await this.#start(t);
  };

  async #start(t: Turn) {
    try {
      const askID = await api.ask(t.question, t.scope);
      t.askID = askID;
      if (t.state === 'stopped') {
        // Stop was pressed before the id was known.
        void api.cancel(askID).catch(() => {});
        this.#buffer.take(askID);
        return;
      }
      if (t.state === 'sending') t.state = 'waiting';
      for (const ev of this.#buffer.take(askID)) applyAnswerEvent(t, ev);
    } catch (e) {
      t.state = 'error';
      t.error = e instanceof Error ? e.message : String(e);
    }
  }

  stop = async (): Promise<void> => {
    const t = this.active;
    if (!t) return;
    t.state = 'stopped';
    if (!t.askID) return; // Ask() still in flight; its events will be ignored
    try {
      await api.cancel(t.askID);
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

  clear = (): void => {
    if (!this.busy) this.turns = [];
  };
}
