// Flashcards in the app: cards due per document (the library shows them), making a
// document's cards, and the review session the review screen runs.

import * as api from '../api';
import { docDeckID, modelSummary } from '../study';
import type { Question, QuizScore, StudyCard } from '../types';
import type { ToastState } from './toasts.svelte';

export class StudyState {
  /** Cards due now per document id. */
  due = $state<Record<string, number>>({});
  /** Cards (not suspended) in each document's own deck, by document id. */
  cards = $state<Record<string, number>>({});
  /** The document whose cards are being made, or ''. */
  making = $state('');
  /** The document being summarised, or ''. */
  summarizing = $state('');
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
      const [due, decks] = await Promise.all([api.dueByDocument(), api.studyDecks()]);
      this.due = due;
      const cards: Record<string, number> = {};
      for (const d of decks) if (d.id === docDeckID(d.doc_ids[0] ?? '') && d.cards > 0) cards[d.doc_ids[0]] = d.cards;
      this.cards = cards;
    } catch {
      // The counts stay as they were; the next change tries again.
    }
  };

  /** Makes a document's cards (with no model, or with the chat model) and says how many are new. */
  make = async (docID: string, title: string, withModel = false): Promise<void> => {
    if (this.making) return;
    this.making = docID;
    try {
      if (withModel) {
        const r = await api.makeModelCards('', [docID]);
        this.toasts.show(modelSummary(r, title), 'info', 8000);
        await this.refreshDue();
        return;
      }
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

  /** Summarises a document into a new study session and returns the session's id ('' on failure). */
  summarize = async (docID: string, title: string): Promise<string> => {
    if (this.summarizing) return '';
    this.summarizing = docID;
    try {
      const r = await api.summarize(docID, '');
      if (r.sections === 0) this.toasts.show(`Nothing to summarise in ${title}`);
      return r.session_id;
    } catch (e) {
      this.toasts.show(`Could not summarise ${title}: ${e instanceof Error ? e.message : String(e)}`, 'error');
      return '';
    } finally {
      this.summarizing = '';
    }
  };

  /** Opens the review screen on a document's due cards. */
  review = (docID: string, title: string): Promise<void> => this.reviewDeck(docDeckID(docID), title);

  /** Makes the cards of a study session's documents (no model) and reviews those due. */
  reviewSession = async (sessionID: string, title: string): Promise<void> => {
    try {
      await api.makeCards(sessionID, []);
    } catch (e) {
      this.toasts.show(`Could not make cards: ${e instanceof Error ? e.message : String(e)}`, 'error');
      return;
    }
    void this.refreshDue();
    await this.reviewDeck(`session:${sessionID}`, title);
  };

  /** Opens the review screen on a deck's due cards. */
  reviewDeck = async (deckID: string, title: string): Promise<void> => {
    this.error = '';
    this.title = title;
    try {
      this.queue = await api.dueCards(deckID, 0);
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

  /** Sets the current card's question and answer. */
  edit = async (front: string, back: string): Promise<boolean> => {
    const c = this.current;
    if (!c) return false;
    try {
      const e = await api.editCard(c.id, front, back);
      this.queue[this.index] = e;
      this.error = '';
      return true;
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
      return false;
    }
  };

  /** Suspends (out of reviews until put back) or deletes the current card; the next one shows. */
  drop = async (how: 'suspend' | 'delete'): Promise<void> => {
    const c = this.current;
    if (!c) return;
    try {
      if (how === 'suspend') await api.suspendCard(c.id, true);
      else await api.deleteCard(c.id);
      this.queue = this.queue.filter((x) => x.id !== c.id);
      this.shown = false;
      this.error = '';
      this.toasts.show(how === 'suspend' ? 'Card suspended: it is out of your reviews' : 'Card deleted');
      void this.refreshDue();
    } catch (err) {
      this.error = err instanceof Error ? err.message : String(err);
    }
  };

  // ---- quiz ----

  quizOpen = $state(false);
  quizDeck = $state('');
  questions = $state<Question[]>([]);
  qi = $state(0);
  /** The current question's answer once given: right or not, and what was given. */
  answered = $state<{ correct: boolean; given: string } | null>(null);
  right = $state(0);
  /** The deck's quiz history, read when a quiz ends. */
  scores = $state<QuizScore[]>([]);
  finished = $state(false);
  question = $derived<Question | null>(this.questions[this.qi] ?? null);

  /** Starts a quiz of up to n questions on a document's cards. */
  startQuiz = async (docID: string, title: string, n = 10): Promise<void> => {
    this.quizDeck = docDeckID(docID);
    this.title = title;
    this.error = '';
    this.qi = 0;
    this.right = 0;
    this.answered = null;
    this.finished = false;
    this.scores = [];
    try {
      this.questions = await api.quiz(this.quizDeck, n);
    } catch (e) {
      this.questions = [];
      this.error = e instanceof Error ? e.message : String(e);
    }
    this.quizOpen = true;
  };

  /** Answers the current question: a choice's index, or a short answer's text. */
  answer = async (given: number | string): Promise<void> => {
    const q = this.question;
    if (!q || this.answered) return;
    let correct: boolean;
    let text: string;
    if (typeof given === 'number') {
      if (given < 0 || given >= q.choices.length) return;
      correct = given === q.answer;
      text = q.choices[given];
    } else {
      text = given.trim();
      if (!text) return;
      try {
        correct = (await api.markAnswer(q.card_id, text)).correct;
      } catch (e) {
        this.error = e instanceof Error ? e.message : String(e);
        return;
      }
    }
    if (correct) this.right++;
    this.answered = { correct, given: text };
  };

  /** Goes on to the next question, or ends the quiz and keeps its score. */
  next = async (): Promise<void> => {
    if (!this.answered) return;
    this.answered = null;
    if (this.qi + 1 < this.questions.length) {
      this.qi++;
      return;
    }
    this.finished = true;
    this.qi = this.questions.length;
    try {
      await api.recordQuiz(this.quizDeck, this.questions.length, this.right);
      this.scores = await api.quizScores(this.quizDeck);
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
  };

  hideQuiz = (): void => {
    this.quizOpen = false;
  };
}
