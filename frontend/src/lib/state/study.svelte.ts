// Flashcards in the app: cards due per document (the library shows them), making a
// document's cards, and the review session the review screen runs.

import * as api from '../api';
import { docDeckID } from '../study';
import type { StudyCard } from '../types';
import type { ToastState } from './toasts.svelte';

export class StudyState {
  /** Cards due now per document id. */
  due = $state<Record<string, number>>({});
  /** The document whose cards are being made, or ''. */
  making = $state('');
  /** The review screen is open. */
  open = $state(false);
  title = $state('');
  queue = $state<StudyCard[]>([]);
  index = $state(0);
  /** The current card's answer is shown. */
  shown = $state(false);
  reviewed = $state(0);
  error = $state('');
  current = $derived<StudyCard | null>(this.queue[this.index] ?? null);

  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private toasts: ToastState) {}

  /** Keeps the due counts current as documents come and go; returns the cleanup. */
  connect(): () => void {
    void this.refreshDue();
    const off = api.on('library:changed', (ev) => {
      if (ev.status !== 'ready' && ev.status !== 'removed') return;
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => void this.refreshDue(), 300);
    });
    return () => {
      clearTimeout(this.#timer);
      off();
    };
  }

  refreshDue = async (): Promise<void> => {
    try {
      this.due = await api.dueByDocument();
    } catch {
      // The counts stay as they were; the next change tries again.
    }
  };

  /** Makes a document's cards with no model and says how many are new. */
  make = async (docID: string, title: string): Promise<void> => {
    if (this.making) return;
    this.making = docID;
    try {
      const r = await api.makeCards('', [docID]);
      const kinds = Object.entries(r.by_kind)
        .map(([k, n]) => `${n} ${k}`)
        .join(', ');
      this.toasts.show(
        r.added > 0
          ? `${r.added} new cards from ${title}${kinds ? ` (${kinds})` : ''}: ${r.deck.due} due`
          : r.made > 0
            ? `No new cards: ${title}'s ${r.deck.cards} cards are already in its deck`
            : `No cards found in ${title}: it has no definitions, glossary lines or sentences to make them from`,
      );
      await this.refreshDue();
    } catch (e) {
      this.toasts.show(`Could not make cards: ${e instanceof Error ? e.message : String(e)}`, 'error');
    } finally {
      this.making = '';
    }
  };

  /** Opens the review screen on a document's due cards. */
  review = async (docID: string, title: string): Promise<void> => {
    this.error = '';
    this.title = title;
    try {
      this.queue = await api.dueCards(docDeckID(docID), 0);
    } catch (e) {
      this.queue = [];
      this.error = e instanceof Error ? e.message : String(e);
    }
    this.index = 0;
    this.shown = false;
    this.reviewed = 0;
    this.open = true;
  };

  reveal = (): void => {
    if (this.current) this.shown = true;
  };

  /** Grades the current card (1 again … 4 easy) and moves to the next. */
  grade = async (grade: number): Promise<void> => {
    const c = this.current;
    if (!c || !this.shown) return;
    try {
      await api.gradeCard(c.id, grade);
      this.reviewed++;
      this.index++;
      this.shown = false;
      void this.refreshDue();
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  };

  hide = (): void => {
    this.open = false;
  };
}
