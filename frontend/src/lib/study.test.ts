import { describe, expect, test } from 'vitest';
import { card, deckStats, dueCounts, lastDays, makeResult, marking, markingNote, modelSummary, pages, question, quizKey, reviewKey, summaryPart } from './study';

const k = (key: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => ({ key, ctrlKey: false, metaKey: false, altKey: false, ...mods });

describe('review keys', () => {
  test('space shows the answer; grades only once it is shown', () => {
    expect(reviewKey(k(' '), false)).toEqual({ kind: 'reveal' });
    expect(reviewKey(k(' '), true)).toBeNull();
    expect(reviewKey(k('3'), false)).toBeNull();
    expect(reviewKey(k('3'), true)).toEqual({ kind: 'grade', grade: 3 });
    expect(reviewKey(k('1'), true)).toEqual({ kind: 'grade', grade: 1 });
    expect(reviewKey(k('5'), true)).toBeNull();
  });
  test('S opens the source at any time; modifiers are the browser’s', () => {
    expect(reviewKey(k('s'), false)).toEqual({ kind: 'source' });
    expect(reviewKey(k('s', { ctrlKey: true }), false)).toBeNull();
    expect(reviewKey(k('Escape'), true)).toEqual({ kind: 'close' });
  });
});

describe('parsing', () => {
  test('a card from the backend, with nulls and junk', () => {
    const c = card({ id: 7, front: 'What is a cell?', back: 'a unit', context: 'A cell is a unit.', page: 3, page_end: 4, suspended: 'yes', schedule: null });
    expect(c.id).toBe(7);
    expect(c.suspended).toBe(false);
    expect(c.schedule.reps).toBe(0);
    expect(pages(c)).toBe('pp. 3–4');
    expect(pages({ ...c, page_end: 3 })).toBe('p. 3');
  });
  test('make result and due counts', () => {
    const r = makeResult({ deck: { id: 'doc:x', cards: 5, due: 5, doc_ids: null }, added: 5, by_kind: { cloze: 3, definition: 'x' } });
    expect(r.deck.doc_ids).toEqual([]);
    expect(r.by_kind).toEqual({ cloze: 3, definition: 0 });
    expect(dueCounts({ a: 2, b: 0, c: 'x' })).toEqual({ a: 2 });
  });
});

describe('quiz', () => {
  test('a question with a bad answer index is a short answer', () => {
    expect(question({ prompt: 'Q', choices: ['a', 'b'], answer: 5 }).answer).toBe(-1);
    expect(question({ prompt: 'Q', choices: ['a', 'b'], answer: 1 }).answer).toBe(1);
    expect(question({ prompt: 'Q', choices: null, answer: 0 }).choices).toEqual([]);
  });
  test('keys choose before the answer, go on after it', () => {
    expect(quizKey(k('2'), 4, false)).toEqual({ kind: 'choose', index: 1 });
    expect(quizKey(k('c'), 4, false)).toEqual({ kind: 'choose', index: 2 });
    expect(quizKey(k('4'), 3, false)).toBeNull();
    expect(quizKey(k('2'), 0, false)).toBeNull();
    expect(quizKey(k('Enter'), 4, true)).toEqual({ kind: 'next' });
    expect(quizKey(k('s'), 4, true)).toEqual({ kind: 'source' });
    expect(quizKey(k('s'), 4, false)).toBeNull();
  });
});

describe('study stats', () => {
  test('the last days fill the days without reviews', () => {
    const s = deckStats({ deck_id: 'doc:x', days: [{ day: '2026-05-03', reviews: 4, again: 1 }], reviews: 4 });
    const days = lastDays(s, 3, new Date(2026, 4, 4));
    expect(days.map((d) => d.day)).toEqual(['2026-05-02', '2026-05-03', '2026-05-04']);
    expect(days.map((d) => d.reviews)).toEqual([0, 4, 0]);
  });
});

describe('model cards', () => {
  test('the summary says what was proposed, kept and dropped, and why', () => {
    const r = makeResult({ added: 2, model: { passages: 3, proposed: 5, kept: 2, dropped: 3, reasons: { unsupported: 2, trivial: 1 }, failed: 1 } });
    expect(modelSummary(r, 'Notes')).toBe('The model proposed 5 cards from 3 passages of Notes: 2 new, 3 dropped (2 unsupported, 1 trivial), 1 replies unusable');
    expect(modelSummary(makeResult({ added: 1 }), 'Notes')).toBe('');
  });
});

describe('short answers and summaries', () => {
  test('a marking says which grader decided, and why', () => {
    const byMeaning = marking({ correct: true, score: 0.2, by: 'meaning', similarity: 0.68, closest: 0.3 });
    expect(byMeaning.judge).toBeNull();
    expect(markingNote(byMeaning)).toBe('Right in other words (meaning 68% like the answer).');
    expect(markingNote(marking({ correct: false, by: '', similarity: -1, judge: { correct: false, reason: 'That is osmosis.' } }))).toBe('The model judged it wrong: That is osmosis.');
    expect(markingNote(marking({ correct: true, by: 'words', similarity: 0.9, judge_error: 'unreachable' }))).toBe('The model could not judge it (unreachable); marked by words.');
    expect(marking(null)).toEqual({ correct: false, score: 0, by: '', similarity: -1, closest: 0, judge: null, judge_error: '' });
  });

  test('a summary section event keeps its claims and overview flag', () => {
    const p = summaryPart({ id: 's1', section: { section: 'Overview', text: 'Cells work [1].', claims: [{ start: 0, end: 15, supported: true, spans: [] }], overview: true }, step: 3, steps: 4 });
    expect(p.section.overview).toBe(true);
    expect(p.section.claims).toHaveLength(1);
    expect(summaryPart({}).section).toEqual({ section: '', text: '', claims: [], overview: false });
  });
});
