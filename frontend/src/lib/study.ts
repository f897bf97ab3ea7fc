// Flashcards: values from the backend parsed at the boundary (like ./normalize), and the
// review screen's keys.

import { CARD_KIND_VALUES, CARD_ORIGIN_VALUES, DROP_REASON_VALUES, MARK_BY_VALUES } from './bridge.gen';
import { keyedBy, oneOf } from './enum';
import { citations, claims } from './normalize';
import type { CardSchedule, CardsProgress, DayCount, Deck, DeckStats, MakeResult, Marking, Question, QuizScore, StudyCard, Summary, SummaryDone, SummaryError, SummaryPart, SummarySection, SummaryStart, SummaryToken } from './types';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function schedule(v: unknown): CardSchedule {
  const o = obj(v);
  return {
    state: num(o.state),
    due: str(o.due),
    stability: num(o.stability),
    difficulty: num(o.difficulty),
    scheduled_days: num(o.scheduled_days),
    reps: num(o.reps),
    lapses: num(o.lapses),
  };
}

export function card(v: unknown): StudyCard {
  const o = obj(v);
  return {
    id: num(o.id),
    deck_id: str(o.deck_id),
    doc_id: str(o.doc_id),
    // Go's library.CardKind and CardOrigin (neither is shown; unknown ones read as a
    // rule's cloze).
    kind: oneOf(CARD_KIND_VALUES, o.kind, 'cloze'),
    origin: oneOf(CARD_ORIGIN_VALUES, o.origin, 'rule'),
    front: str(o.front),
    back: str(o.back),
    context: str(o.context),
    page: num(o.page),
    page_end: num(o.page_end),
    start: num(o.start),
    end: num(o.end),
    section: str(o.section),
    suspended: o.suspended === true,
    stale: o.stale === true,
    schedule: schedule(o.schedule),
  };
}

export const cards = (v: unknown): StudyCard[] => (Array.isArray(v) ? v.map(card) : []);

export function deck(v: unknown): Deck {
  const o = obj(v);
  return {
    id: str(o.id),
    session_id: str(o.session_id),
    title: str(o.title),
    doc_ids: Array.isArray(o.doc_ids) ? o.doc_ids.map(str) : [],
    cards: num(o.cards),
    due: num(o.due),
  };
}

export function makeResult(v: unknown): MakeResult {
  const o = obj(v);
  let model: MakeResult['model'] = null;
  if (o.model && typeof o.model === 'object') {
    const m = obj(o.model);
    model = { passages: num(m.passages), proposed: num(m.proposed), kept: num(m.kept), dropped: num(m.dropped), reasons: keyedBy(DROP_REASON_VALUES, m.reasons, num), failed: num(m.failed) };
  }
  return { deck: deck(o.deck), passages: num(o.passages), made: num(o.made), added: num(o.added), existing: num(o.existing), by_kind: keyedBy(CARD_KIND_VALUES, o.by_kind, num), model, stopped: o.stopped === true };
}

/** Due cards per document id. */
export function dueCounts(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, n] of Object.entries(obj(v))) if (num(n) > 0) out[k] = num(n);
  return out;
}

/** A document's own deck (backend/study.DeckID). */
export const docDeckID = (docID: string): string => `doc:${docID}`;

export type ReviewAction = { kind: 'reveal' } | { kind: 'grade'; grade: 1 | 2 | 3 | 4 } | { kind: 'source' } | { kind: 'close' };

/**
 * The review screen's keys: space (or Enter) shows the answer, 1–4 grade it once shown
 * (again, hard, good, easy), S opens the card's source, Escape closes. Keys with a
 * modifier are left to the browser.
 */
export function reviewKey(e: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }, shown: boolean): ReviewAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  switch (e.key) {
    case ' ':
    case 'Enter':
      return shown ? null : { kind: 'reveal' };
    case '1':
    case '2':
    case '3':
    case '4':
      return shown ? { kind: 'grade', grade: Number(e.key) as 1 | 2 | 3 | 4 } : null;
    case 's':
    case 'S':
      return { kind: 'source' };
    case 'Escape':
      return { kind: 'close' };
  }
  return null;
}

export const GRADES = [
  { grade: 1, label: 'Again' },
  { grade: 2, label: 'Hard' },
  { grade: 3, label: 'Good' },
  { grade: 4, label: 'Easy' },
] as const;

/** "p. 12" or "pp. 12–13". */
export const pages = (c: StudyCard): string => (c.page_end > c.page ? `pp. ${c.page}–${c.page_end}` : `p. ${c.page}`);

export function question(v: unknown): Question {
  const o = obj(v);
  const choices = Array.isArray(o.choices) ? o.choices.map(str) : [];
  const answer = num(o.answer);
  return { card_id: num(o.card_id), prompt: str(o.prompt), choices, answer: choices.length > 0 && answer >= 0 && answer < choices.length ? answer : -1, card: card(o.card) };
}

export const questions = (v: unknown): Question[] => (Array.isArray(v) ? v.map(question) : []);

export function marking(v: unknown): Marking {
  const o = obj(v);
  const by = oneOf(MARK_BY_VALUES, o.by, '');
  const j = o.judge && typeof o.judge === 'object' ? obj(o.judge) : null;
  return {
    correct: o.correct === true,
    score: num(o.score),
    by,
    similarity: typeof o.similarity === 'number' ? o.similarity : -1,
    closest: num(o.closest),
    judge: j ? { correct: j.correct === true, reason: str(j.reason) } : null,
    judge_error: str(o.judge_error),
  };
}

/** Why a short answer was marked so, for the verdict line ('' when its words decided). */
export function markingNote(m: Marking): string {
  if (m.judge_error) return `The model could not judge it (${m.judge_error}); marked by ${m.by === 'meaning' ? 'meaning' : 'words'}.`;
  if (m.judge) return `The model judged it ${m.judge.correct ? 'right' : 'wrong'}${m.judge.reason ? `: ${m.judge.reason}` : '.'}`;
  if (m.by === 'meaning') return `Right in other words (meaning ${Math.round(m.similarity * 100)}% like the answer).`;
  return '';
}

export function quizScore(v: unknown): QuizScore {
  const o = obj(v);
  return { id: num(o.id), deck_id: str(o.deck_id), questions: num(o.questions), correct: num(o.correct), taken_at: str(o.taken_at) };
}

export type QuizAction = { kind: 'choose'; index: number } | { kind: 'next' } | { kind: 'source' } | { kind: 'close' };

/**
 * The quiz screen's keys outside the answer box: 1–4 (or a–d) choose, Enter or Space go
 * on once answered, S opens the source once answered, Escape closes.
 */
export function quizKey(e: { key: string; ctrlKey: boolean; metaKey: boolean; altKey: boolean }, choices: number, answered: boolean): QuizAction | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  if (e.key === 'Escape') return { kind: 'close' };
  if (answered) {
    if (e.key === 'Enter' || e.key === ' ') return { kind: 'next' };
    if (e.key === 's' || e.key === 'S') return { kind: 'source' };
    return null;
  }
  const i = '1234'.indexOf(e.key) >= 0 ? '1234'.indexOf(e.key) : 'abcd'.indexOf(e.key);
  return e.key.length === 1 && i >= 0 && i < choices ? { kind: 'choose', index: i } : null;
}

export function deckStats(v: unknown): DeckStats {
  const o = obj(v);
  const days: DayCount[] = Array.isArray(o.days) ? o.days.map((d) => ({ day: str(obj(d).day), reviews: num(obj(d).reviews), again: num(obj(d).again) })) : [];
  return {
    deck_id: str(o.deck_id),
    title: str(o.title),
    cards: num(o.cards),
    due: num(o.due),
    reviews: num(o.reviews),
    days,
    retention: num(o.retention),
    recalls: num(o.recalls),
    quizzes: num(o.quizzes),
    last_correct: num(o.last_correct),
    last_of: num(o.last_of),
  };
}

const isoDay = (d: Date): string => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** The last n local days ending today, each with its reviews (0 when none). */
export function lastDays(s: DeckStats, n: number, today = new Date()): DayCount[] {
  const by = new Map(s.days.map((d) => [d.day, d]));
  const out: DayCount[] = [];
  for (let i = n - 1; i >= 0; i--) {
    const d = new Date(today.getFullYear(), today.getMonth(), today.getDate() - i);
    const k = isoDay(d);
    out.push(by.get(k) ?? { day: k, reviews: 0, again: 0 });
  }
  return out;
}

/** One line on what a model proposed and what was kept, for a toast. */
export function modelSummary(r: MakeResult, title: string): string {
  const m = r.model;
  if (!m) return '';
  const why = Object.entries(m.reasons)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  let s = `The model proposed ${m.proposed} cards from ${m.passages} passages of ${title}: ${r.added} new`;
  if (m.dropped > 0) s += `, ${m.dropped} dropped (${why})`;
  if (m.failed > 0) s += `, ${m.failed} replies unusable`;
  return s;
}

// ---- summaries ----

export function summarySection(v: unknown): SummarySection {
  const o = obj(v);
  return { section: str(o.section), text: str(o.text), claims: claims(o.claims), overview: o.overview === true };
}

export function summary(v: unknown): Summary {
  const o = obj(v);
  return {
    doc_id: str(o.doc_id),
    title: str(o.title),
    scope: str(o.scope),
    sections: Array.isArray(o.sections) ? o.sections.map(summarySection) : [],
    passages: citations(o.passages),
    num_ctx: num(o.num_ctx),
    map_calls: num(o.map_calls),
    reduce_calls: num(o.reduce_calls),
    dropped: num(o.dropped),
    stopped: o.stopped === true,
    session_id: str(o.session_id),
    message_id: num(o.message_id),
  };
}

export function summaryStart(v: unknown): SummaryStart {
  const o = obj(v);
  return { id: str(o.id), doc_id: str(o.doc_id), title: str(o.title), scope: str(o.scope), steps: num(o.steps), passages: citations(o.passages) };
}
export function summaryToken(v: unknown): SummaryToken {
  const o = obj(v);
  return { id: str(o.id), text: str(o.text), step: num(o.step), steps: num(o.steps), reducing: o.reducing === true };
}
export function summaryPart(v: unknown): SummaryPart {
  const o = obj(v);
  return { id: str(o.id), section: summarySection(o.section), step: num(o.step), steps: num(o.steps) };
}
export const summaryDone = (v: unknown): SummaryDone => ({ id: str(obj(v).id), summary: summary(obj(v).summary) });
export function summaryError(v: unknown): SummaryError {
  const o = obj(v);
  return { id: str(o.id), message: str(o.message), session_id: str(o.session_id), message_id: num(o.message_id) };
}
export function cardsProgress(v: unknown): CardsProgress {
  const o = obj(v);
  return { key: str(o.key), done: num(o.done), total: num(o.total), kept: num(o.kept) };
}
