// Flashcards with no model: "Make cards" on a document, the due count in the library,
// a review with the keyboard only (space shows the answer, 1-4 grade it), S opening the
// card's source in the viewer with its span highlighted on its page, a quiz taken with
// its score kept, the stats view's study record, and a card edited and suspended.

import { assert, screenshot } from './harness.mjs';
import { openCitationAndCheckViewer, uploadAndWaitReady } from './flows.mjs';

const squash = (s) => (s ?? '').replace(/\s+/g, ' ').trim();

export async function studyFlow({ page, url, pdf }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  const doc = await uploadAndWaitReady(page, pdf);
  const docID = await doc.getAttribute('data-doc-id');
  assert((await doc.locator('[data-testid=document-due]').count()) === 0, 'no cards due before any are made');

  await doc.hover();
  await doc.locator('[data-testid=document-make-cards]').click();
  const toast = page.locator('[data-testid=toast]', { hasText: /new cards from/ });
  await toast.waitFor({ timeout: 30_000 });
  const due = doc.locator('[data-testid=document-due]');
  await due.waitFor({ timeout: 10_000 });
  const made = parseInt(await due.textContent(), 10);
  assert(made >= 2, `the library shows the cards due (${await due.textContent()})`);
  await screenshot(page, 'study-1-due');

  // Review: the keyboard only.
  await due.click();
  const dialog = page.locator('[data-testid=study-review]');
  await dialog.waitFor({ state: 'visible', timeout: 10_000 });
  const front = page.locator('[data-testid=study-front]');
  const first = await page.locator('[data-testid=study-card]').getAttribute('data-card-id');
  assert(squash(await front.textContent()).length > 3, `the card shows its question (${await front.textContent()})`);
  assert((await page.locator('[data-testid=study-back]').count()) === 0, 'the answer is hidden until asked for');
  await page.keyboard.press('3');
  assert((await page.locator('[data-testid=study-back]').count()) === 0, 'a grade before the answer is shown does nothing');
  await page.keyboard.press('Space');
  const back = squash(await page.locator('[data-testid=study-back]').textContent());
  const context = squash(await page.locator('[data-testid=study-context]').textContent());
  assert(back.length > 0 && context.includes(back), `the answer (${back}) is shown with the passage it is in (${context})`);
  await screenshot(page, 'study-2-answer');
  await page.keyboard.press('3');
  await page.waitForFunction((id) => document.querySelector('[data-testid=study-card]')?.dataset.cardId !== id, first, { timeout: 10_000 });
  assert(/1 reviewed/.test(await page.textContent('[data-testid=study-progress]')), 'the review counts the graded card');

  // The second card's source: S opens the viewer at its page with its span highlighted.
  await page.keyboard.press('Space');
  const ctx2 = squash(await page.locator('[data-testid=study-context]').textContent());
  const back2 = squash(await page.locator('[data-testid=study-back]').textContent());
  await page.keyboard.press('s');
  await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
  const highlight = page.locator('[data-testid=viewer-page] [data-testid=passage-highlight]');
  await highlight.first().waitFor({ timeout: 60_000 });
  const lit = (await highlight.allTextContents()).map(squash);
  for (const t of lit) assert(ctx2.includes(t), `highlight ${JSON.stringify(t)} is text of the card's span`);
  const litText = squash(lit.join(' '));
  assert(litText.length >= 0.6 * ctx2.length, `the highlight covers the card's span (${litText.length} of ${ctx2.length} characters)`);
  assert(litText.includes(back2) || ctx2.includes(back2), 'the answer is in what is highlighted');
  await screenshot(page, 'study-3-source');

  // One card graded good is learning, due in ten minutes: one fewer due now.
  await page.waitForFunction(
    ({ id, n }) => parseInt(document.querySelector(`[data-testid=document][data-doc-id="${id}"] [data-testid=document-due]`)?.textContent ?? '0', 10) === n,
    { id: docID, n: made - 1 },
    { timeout: 10_000 },
  );

  // A quiz on the document's cards: a wrong answer first, then the right ones (read from
  // the deck through the API, matched by question); the score is kept with the deck.
  const cards = await page.evaluate(
    async (deck) => (await (await fetch('api/call/DeckCards', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify([deck]) })).json()),
    `doc:${docID}`,
  );
  const answerOf = new Map(cards.map((c) => [squash(c.front), squash(c.back)]));
  await doc.locator('[data-testid=document-quiz]').click();
  const quiz = page.locator('[data-testid=study-quiz]');
  await quiz.waitFor({ state: 'visible', timeout: 10_000 });
  const total = made;
  for (let i = 0; i < total; i++) {
    const prompt = squash(await page.locator('[data-testid=quiz-prompt]').textContent());
    const right = answerOf.get(prompt);
    assert(right, `the question ${JSON.stringify(prompt)} is a card's`);
    const choices = await page.locator('[data-testid=quiz-choice]').count();
    const wrong = i === 0;
    if (choices > 0) {
      const texts = (await page.locator('[data-testid=quiz-choice]').allTextContents()).map((t) => squash(t).replace(/^\d+ /, ''));
      const k = wrong ? texts.findIndex((t) => t !== right) : texts.indexOf(right);
      assert(texts.includes(right), `the right answer is among the choices (${texts})`);
      await page.keyboard.press(String(k + 1));
    } else {
      await page.fill('[data-testid=quiz-input]', wrong ? 'no idea at all' : right);
      await page.keyboard.press('Enter');
    }
    const verdict = page.locator('[data-testid=quiz-verdict]');
    await verdict.waitFor({ timeout: 10_000 });
    assert((await verdict.getAttribute('data-correct')) === String(!wrong), `question ${i + 1} marked ${wrong ? 'wrong' : 'right'}`);
    assert(squash(await page.locator('[data-testid=quiz-answer]').textContent()) === right, 'the verdict shows the card\'s answer');
    assert(squash(await page.locator('[data-testid=quiz-context]').textContent()).includes(right), 'and the passage it is in');
    if (i === 0) await screenshot(page, 'study-4-quiz');
    await page.locator('[data-testid=study-quiz] .sheet').focus();
    await page.keyboard.press('Enter');
  }
  const score = squash(await page.locator('[data-testid=quiz-score]').textContent());
  assert(score === `Score: ${total - 1} of ${total}`, `the quiz ends with its score (${score})`);
  const history = await page.evaluate(
    async (deck) => (await (await fetch('api/call/QuizScores', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify([deck]) })).json()),
    `doc:${docID}`,
  );
  assert(history.length === 1 && history[0].correct === total - 1 && history[0].questions === total, `the score is kept with the deck (${JSON.stringify(history)})`);
  await screenshot(page, 'study-5-score');

  // The stats view has the deck's record: one review, the quiz.
  await page.keyboard.press('Escape');
  await quiz.waitFor({ state: 'hidden', timeout: 10_000 });
  await page.keyboard.press('Control+i');
  const row = page.locator(`[data-testid=study-stats-row][data-deck="doc:${docID}"]`);
  await row.waitFor({ timeout: 10_000 });
  assert((await row.getAttribute('data-reviews')) === '1', `the stats view counts the review (${await row.getAttribute('data-reviews')})`);
  assert((await row.textContent()).includes(`last ${total - 1}/${total}`), `and the quiz (${squash(await row.textContent())})`);
  await screenshot(page, 'study-6-stats');

  // Edit a card in the review, then suspend it: it leaves the reviews and the due count.
  await page.keyboard.press('Escape');
  await page.locator('[data-testid=stats]').waitFor({ state: 'hidden', timeout: 10_000 });
  await due.click();
  await dialog.waitFor({ state: 'visible', timeout: 10_000 });
  const editedID = await page.locator('[data-testid=study-card]').getAttribute('data-card-id');
  await page.click('[data-testid=study-edit]');
  await page.fill('[data-testid=study-edit-front]', 'Where does the wind blow, in the edited card?');
  await page.click('[data-testid=study-edit-save]');
  await page.locator('[data-testid=study-front]', { hasText: 'in the edited card' }).waitFor({ timeout: 10_000 });
  const stored = await page.evaluate(
    async (deck) => (await (await fetch('api/call/DeckCards', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify([deck]) })).json()),
    `doc:${docID}`,
  );
  assert(stored.find((c) => String(c.id) === editedID)?.front === 'Where does the wind blow, in the edited card?', 'the edit is saved');
  await page.click('[data-testid=study-suspend]');
  await page.waitForFunction((id) => document.querySelector('[data-testid=study-card]')?.dataset.cardId !== id, editedID, { timeout: 10_000 });
  await page.keyboard.press('Escape');
  await page.waitForFunction(
    ({ id, n }) => parseInt(document.querySelector(`[data-testid=document][data-doc-id="${id}"] [data-testid=document-due]`)?.textContent ?? '0', 10) === n,
    { id: docID, n: made - 2 },
    { timeout: 10_000 },
  );
  return { made, reviewed: 1, highlighted: litText.length, span: ctx2.length, quiz: score };
}

// Cards from the chat model (the test Ollama's tiny random model): the action shows when a
// model answers, and its toast says what the model proposed and what the check kept.
export async function studyModelFlow({ page, url, pdf, long }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  const doc = await uploadAndWaitReady(page, pdf);
  await doc.hover();
  await doc.locator('[data-testid=document-model-cards]').click();
  const toast = page.locator('[data-testid=toast]', { hasText: /The model proposed \d+ cards from \d+ passages/ });
  await toast.waitFor({ timeout: 120_000 });
  const text = squash(await toast.textContent());
  const m = /proposed (\d+) cards from (\d+) passages of .*?: (\d+) new/.exec(text);
  assert(m && Number(m[2]) > 0, `the toast counts the passages asked (${text})`);
  assert(Number(m[3]) <= Number(m[1]), `no more new cards than proposed (${text})`);
  await screenshot(page, 'study-model-1-toast');

  // A longer paper, stopped midway: the progress row counts the passages asked, Stop
  // ends it and the toast says the cards checked before are kept.
  const paper = await uploadAndWaitReady(page, long);
  await paper.hover();
  await paper.locator('[data-testid=document-model-cards]').click();
  const progress = paper.locator('[data-testid=cards-progress]');
  await progress.waitFor({ timeout: 120_000 });
  const counted = squash(await progress.textContent());
  assert(/Model cards: [1-9]\d* of \d+ passages/.test(counted), `the progress counts the passages asked (${counted})`);
  await screenshot(page, 'study-model-2-progress');
  await paper.locator('[data-testid=cards-stop]').click();
  await page.locator('[data-testid=toast]', { hasText: /Stopped asking the model for cards/ }).waitFor({ timeout: 30_000 });
  await progress.waitFor({ state: 'hidden', timeout: 10_000 });

  // A summary by the model streams into the dialog; Stop ends it at once.
  await paper.hover();
  await paper.locator('[data-testid=document-summarize]').click();
  const dialog = page.locator('[data-testid=study-summary]');
  await dialog.waitFor({ state: 'visible', timeout: 10_000 });
  // Stop is clicked from inside the page at the first streamed token (the tiny model
  // writes a short document's summary in about a second).
  await page.evaluate(() => {
    const obs = new MutationObserver(() => {
      const live = document.querySelector('[data-testid=summary-live]');
      const stop = document.querySelector('[data-testid=summary-stop]');
      if (live && stop && live.textContent.trim()) {
        window.__summaryAtStop = { live: live.textContent, progress: document.querySelector('[data-testid=summary-progress]')?.textContent ?? '' };
        stop.click();
        obs.disconnect();
      }
    });
    obs.observe(document.body, { childList: true, subtree: true, characterData: true });
  });
  await page.click('[data-testid=summary-start]');
  await page.waitForFunction(() => window.__summaryAtStop, null, { timeout: 60_000 });
  const atStop = await page.evaluate(() => window.__summaryAtStop);
  assert(squash(atStop.live).length > 0, 'the model\'s text streams into the dialog');
  const step = squash(atStop.progress);
  assert(/step \d+ of \d+/.test(step), `the dialog counts the model's steps (${step})`);
  await page.locator('[data-testid=summary-progress]', { hasText: /Stopped/ }).waitFor({ timeout: 15_000 });
  await page.locator('[data-testid=summary-start]').waitFor({ timeout: 5_000 });
  await screenshot(page, 'study-model-3-summary-stopped');
  return { toast: text, progress: counted, summaryStep: step };
}

// A summary with no model: "Summarise" on a document opens a new study session whose
// answer is the document's key sentences, each with its marker; the marker opens the
// page with the passage highlighted, as an answer's citation does.
export async function studySummaryFlow({ page, url, pdf }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  const doc = await uploadAndWaitReady(page, pdf);
  await doc.hover();
  await doc.locator('[data-testid=document-summarize]').click();
  const dialog = page.locator('[data-testid=study-summary]');
  await dialog.waitFor({ state: 'visible', timeout: 10_000 });
  await page.click('[data-testid=summary-start]');
  await page.locator('[data-testid=summary-open]').waitFor({ timeout: 60_000 });
  const parts = await page.locator('[data-testid=summary-part]').count();
  assert(parts >= 1, `the dialog shows the summary's sections (${parts})`);
  await screenshot(page, 'study-summary-0-dialog');
  await page.click('[data-testid=summary-open]');
  const answer = page.locator('[data-testid=turn]', { hasText: /Summarise/ }).locator('[data-testid=answer]');
  await answer.waitFor({ timeout: 60_000 });
  const text = squash(await answer.textContent());
  assert(text.length > 40, `the summary is shown (${text})`);
  const markers = await answer.locator('[data-testid=answer-body] button.cite').count();
  assert(markers >= 1, `its sentences carry citation markers (${markers})`);
  await screenshot(page, 'study-summary-1');
  const viewer = await openCitationAndCheckViewer(page, answer, 'study-summary-2', undefined, { pdf });

  // A selection in the viewer (the first lines of the page shown) summarised alone: the
  // dialog names its page, and its summary quotes from that page only.
  const selected = await page.evaluate(() => {
    const pageEl = document.querySelector('[data-testid=viewer-page]');
    const spans = [...(pageEl?.querySelectorAll('.textLayer span') ?? [])].filter((x) => x.firstChild && x.textContent.trim().length > 2);
    if (spans.length < 4) return null;
    const last = spans[Math.min(spans.length - 1, 30)];
    const r = document.createRange();
    r.setStart(spans[0].firstChild, 0);
    r.setEnd(last.firstChild, last.textContent.length);
    const sel = document.getSelection();
    sel.removeAllRanges();
    sel.addRange(r);
    return { page: Number(pageEl.dataset.page), text: sel.toString() };
  });
  assert(selected && selected.text.length > 20, `text is selected in the viewer (${JSON.stringify(selected)})`);
  await page.click('[data-testid=viewer-summarize-selection]');
  await page.locator('[data-testid=study-summary]').waitFor({ state: 'visible', timeout: 10_000 });
  const scope = squash(await page.textContent('[data-testid=summary-scope]'));
  assert(scope.includes(`p. ${selected.page}`), `the dialog summarises the selection on its page (${scope})`);
  await page.click('[data-testid=summary-start]');
  await page.locator('[data-testid=summary-open]').waitFor({ timeout: 60_000 });
  await screenshot(page, 'study-summary-2b-selection');
  const selSessions = await page.evaluate(async () => (await (await fetch('api/call/ListSessions', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[]' })).json()));
  assert(selSessions.length >= 2, `the selection's summary is saved in a session of its own (${selSessions.length} sessions)`);
  await page.click('[data-testid=summary-close]');

  // The summary's session has flashcards of its documents: made and reviewed from the
  // sessions list.
  await page.click('[data-testid=tab-sessions]');
  const session = page.locator('[data-testid=session]', { hasText: 'Summary' }).first();
  await session.waitFor({ timeout: 10_000 });
  await session.hover();
  await session.locator('[data-testid=session-cards]').click();
  await page.locator('[data-testid=study-review]').waitFor({ state: 'visible', timeout: 30_000 });
  const progress = squash(await page.textContent('[data-testid=study-progress]'));
  assert(/0 reviewed · [1-9]\d* left/.test(progress), `the session's cards are due for review (${progress})`);
  await page.keyboard.press('Space');
  assert(squash(await page.locator('[data-testid=study-back]').textContent()).length > 0, 'a session card shows its answer');
  await screenshot(page, 'study-summary-3-session-cards');
  return { markers, ...viewer, sessionCards: progress };
}
