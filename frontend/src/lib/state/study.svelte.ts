// Flashcards in the app: cards due per document (the library shows them), making a
// document's cards, and the review session the review screen runs.

import * as api from '../api';
import { STOPPED_MESSAGE } from '../bridge.gen';
import { docDeckID, markingNote, modelSummary } from '../study';
import type { CardsProgress, Question, QuizScore, Selection, StudyCard, Summary, SummaryDone, SummaryError, SummaryPart, SummarySection, SummaryStart, SummaryToken } from '../types';

type SummaryEv =
  | { kind: 'start'; e: SummaryStart }
  | { kind: 'token'; e: SummaryToken }
  | { kind: 'section'; e: SummaryPart }
  | { kind: 'done'; e: SummaryDone }
  | { kind: 'error'; e: SummaryError };
import type { ToastState } from './toasts.svelte';
import { errorText } from '../text';

export class StudyState {
  /** Cards due now per document id. */
  due = $state<Record<string, number>>({});
  /** Cards (not suspended) in each document's own deck, by document id. */
  cards = $state<Record<string, number>>({});
  /** The document whose cards are being made, or ''. */
  making = $state('');
  /** The model's progress making the current document's cards (null before the first passage). */
  cardsProgress = $state<CardsProgress | null>(null);
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
    const offs = [
      api.on('cards:progress', (p) => {
        if (this.making && p.key === `cards:${this.making}`) this.cardsProgress = p;
      }),
      api.on('summary:start', (e) => this.#summaryEvent('start', e)),
      api.on('summary:token', (e) => this.#summaryEvent('token', e)),
      api.on('summary:section', (e) => this.#summaryEvent('section', e)),
      api.on('summary:done', (e) => this.#summaryEvent('done', e)),
      api.on('summary:error', (e) => this.#summaryEvent('error', e)),
    ];
    return () => {
      clearTimeout(this.#timer);
      off();
      for (const o of offs) o();
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
    this.cardsProgress = null;
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
      const msg = errorText(e);
      if (/context canceled/.test(msg)) this.toasts.show(`Stopped asking the model for cards from ${title}: the cards checked before are kept`);
      else this.toasts.show(`Could not make cards: ${msg}`, 'error');
      void this.refreshDue();
    } finally {
      this.making = '';
      this.cardsProgress = null;
    }
  };

  /** Stops the model making the current document's cards (those checked so far are kept). */
  stopCards = async (): Promise<void> => {
    if (!this.making) return;
    try {
      await api.cancel(`cards:${this.making}`);
    } catch {
      // Already done.
    }
  };

  // ---- summaries ----

  /** The summary dialog is open, on sumDoc. */
  sumOpen = $state(false);
  sumDoc = $state<{ id: string; title: string } | null>(null);
  /** The document's outline sections, for the scope. */
  sumSections = $state<string[]>([]);
  /** '' for the whole document, else the section's title. */
  sumScope = $state('');
  /** A selection in the viewer to summarise, instead of a section. */
  sumSelection = $state<Selection | null>(null);
  sumID = $state('');
  sumRunning = $state(false);
  sumStep = $state(0);
  sumSteps = $state(0);
  sumPassages = $state(0);
  sumReducing = $state(false);
  /** The model's text of the step running now, as it streams. */
  sumLive = $state('');
  /** Sections done (the overview first once made). */
  sumParts = $state<SummarySection[]>([]);
  sumResult = $state<Summary | null>(null);
  sumError = $state('');
  sumStopped = $state(false);
  /** The session the summary was saved in ('' until saved). */
  sumSession = $state('');

  /**
   * Events that arrive before StartSummary's id does (with no model a summary can be done
   * before the call returns) wait here, and are replayed once the id is known.
   */
  #early: SummaryEv[] = [];

  #summaryEvent(kind: SummaryEv['kind'], e: SummaryEv['e']): void {
    if (!this.sumID) {
      if (this.sumRunning) this.#early.push({ kind, e } as SummaryEv);
      return;
    }
    if (e.id !== this.sumID) return;
    switch (kind) {
      case 'start': {
        const x = e as SummaryStart;
        this.sumSteps = x.steps;
        this.sumPassages = x.passages.length;
        return;
      }
      case 'token': {
        const x = e as SummaryToken;
        if (x.step !== this.sumStep || x.reducing !== this.sumReducing) this.sumLive = '';
        this.sumStep = x.step;
        this.sumSteps = Math.max(this.sumSteps, x.steps);
        this.sumReducing = x.reducing;
        this.sumLive += x.text;
        return;
      }
      case 'section': {
        const x = e as SummaryPart;
        this.sumLive = '';
        this.sumStep = x.step;
        this.sumSteps = Math.max(this.sumSteps, x.steps);
        this.sumParts = x.section.overview ? [x.section, ...this.sumParts] : [...this.sumParts, x.section];
        return;
      }
      case 'done': {
        const x = e as SummaryDone;
        this.sumRunning = false;
        this.sumLive = '';
        this.sumResult = x.summary;
        this.sumSession = x.summary.session_id;
        return;
      }
      case 'error': {
        const x = e as SummaryError;
        this.sumRunning = false;
        this.sumLive = '';
        this.sumError = x.message === STOPPED_MESSAGE ? '' : x.message;
        this.sumStopped = x.message === STOPPED_MESSAGE;
        this.sumSession = x.message_id ? x.session_id : '';
      }
    }
  }

  /** Opens the summary dialog on a document (and a selection of it). */
  openSummary = async (docID: string, title: string, selection: Selection | null = null): Promise<void> => {
    if (this.sumRunning && this.sumDoc?.id !== docID) return;
    if (!this.sumRunning) this.#resetSummary();
    this.sumDoc = { id: docID, title };
    this.sumSelection = selection;
    this.sumScope = '';
    this.sumOpen = true;
    try {
      this.sumSections = await api.documentSections(docID);
    } catch {
      this.sumSections = [];
    }
  };

  #resetSummary(): void {
    this.sumID = '';
    this.sumStep = this.sumSteps = this.sumPassages = 0;
    this.sumReducing = false;
    this.sumLive = '';
    this.sumParts = [];
    this.sumResult = null;
    this.sumError = '';
    this.sumStopped = false;
    this.sumSession = '';
  }

  /** Starts the summary of the dialog's scope; it streams into sumLive and sumParts. */
  startSummary = async (): Promise<void> => {
    const d = this.sumDoc;
    if (!d || this.sumRunning) return;
    this.#resetSummary();
    this.sumRunning = true;
    this.#early = [];
    try {
      this.sumID = await api.startSummary({
        doc_id: d.id,
        session_id: '',
        section: this.sumSelection ? undefined : this.sumScope || undefined,
        selection: this.sumSelection,
      });
      const early = this.#early;
      this.#early = [];
      for (const ev of early) this.#summaryEvent(ev.kind, ev.e);
    } catch (e) {
      this.sumRunning = false;
      this.sumError = errorText(e);
    }
  };

  stopSummary = async (): Promise<void> => {
    if (!this.sumID || !this.sumRunning) return;
    try {
      await api.cancel(this.sumID);
    } catch {
      // Already done.
    }
  };

  hideSummary = (): void => {
    this.sumOpen = false;
  };

  /** Opens the review screen on a document's due cards. */
  review = (docID: string, title: string): Promise<void> => this.reviewDeck(docDeckID(docID), title);

  /** Makes the cards of a study session's documents (no model) and reviews those due. */
  reviewSession = async (sessionID: string, title: string): Promise<void> => {
    try {
      await api.makeCards(sessionID, []);
    } catch (e) {
      this.toasts.show(`Could not make cards: ${errorText(e)}`, 'error');
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
      this.error = errorText(e);
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
      this.error = errorText(e);
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
      this.error = errorText(err);
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
      this.error = errorText(err);
    }
  };

  // ---- quiz ----

  quizOpen = $state(false);
  quizDeck = $state('');
  questions = $state<Question[]>([]);
  qi = $state(0);
  /** The current question's answer once given: right or not, what was given, and why (a short answer's marking). */
  answered = $state<{ correct: boolean; given: string; note?: string } | null>(null);
  /** Short answers are judged by the local chat model too (kept across quizzes). */
  judge = $state(typeof localStorage !== 'undefined' && localStorage.getItem('carrel.quiz.judge') === '1');
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
      this.error = errorText(e);
    }
    this.quizOpen = true;
  };

  /** Answers the current question: a choice's index, or a short answer's text. */
  answer = async (given: number | string): Promise<void> => {
    const q = this.question;
    if (!q || this.answered) return;
    let correct: boolean;
    let text: string;
    let note = '';
    if (typeof given === 'number') {
      if (given < 0 || given >= q.choices.length) return;
      correct = given === q.answer;
      text = q.choices[given];
    } else {
      text = given.trim();
      if (!text) return;
      try {
        const m = await api.markAnswer(q.card_id, text, this.judge);
        correct = m.correct;
        note = markingNote(m);
      } catch (e) {
        this.error = errorText(e);
        return;
      }
    }
    if (correct) this.right++;
    this.answered = { correct, given: text, note };
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
      this.error = errorText(e);
    }
  };

  setJudge = (on: boolean): void => {
    this.judge = on;
    try {
      localStorage.setItem('carrel.quiz.judge', on ? '1' : '0');
    } catch {
      // Private mode: the choice lasts this session.
    }
  };

  hideQuiz = (): void => {
    this.quizOpen = false;
  };
}
