// The answer cache and memory in a real browser against the real backend and the test
// Ollama: a repeated question is answered from the cache (marked, with where it came
// from), "Ask again fresh" asks the model again; what the user says about themselves is
// remembered, shown in settings, and can be forgotten.

import { assert, screenshot } from './harness.mjs';
import { ask, uploadAndWaitReady, waitAnswerFinished } from './flows.mjs';

export async function cacheFlow({ page, url, file }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  await uploadAndWaitReady(page, file);

  const question = 'What is the quokka energy relation?';
  // The tiny model's random words sometimes loop until Ollama cuts the stream: such an
  // answer says it may be incomplete and is rightly not cached, so ask until one is whole.
  let first;
  for (let i = 0; ; i++) {
    first = await ask(page, question);
    assert((await waitAnswerFinished(page, first)) === 'done', 'the first answer finishes');
    assert((await first.locator('[data-testid=answer-cached]').count()) === 0, 'a model answer is not marked cached');
    const note = (await first.locator('[data-testid=answer-note]').count()) ? await first.locator('[data-testid=answer-note]').innerText() : '';
    if (!/stopped early/.test(note)) break;
    assert(i < 5, 'five answers in a row were cut off');
  }
  const firstText = await first.locator('[data-testid=answer-body]').innerText();

  // The same question, typed differently: reused, marked, from the first session.
  const second = await ask(page, 'what is the quokka energy relation');
  assert((await waitAnswerFinished(page, second)) === 'done', 'the repeated answer finishes');
  const mark = second.locator('[data-testid=answer-cached]');
  // (The first session's title is its first question.)
  await mark.waitFor({ timeout: 10_000 });
  const where = (await mark.locator('[data-testid=answer-cached-where]').innerText()).trim();
  assert(/^from “What is the quokka energy relation\?”, /.test(where), `the mark says where the answer came from (${where})`);
  const tip = (await mark.getAttribute('title')) ?? '';
  assert(/No model was asked/.test(tip) && /similarity/.test(tip), `the mark explains the match (${tip})`);
  assert((await second.locator('[data-testid=answer-body]').innerText()) === firstText, 'the cached answer is the first answer');
  assert((await second.locator('[data-testid=source]').count()) > 0, 'the cached answer keeps its sources');
  await screenshot(page, 'cache-1-cached-answer');

  // Ask again fresh: a new turn answered by the model, not marked.
  const turns = await page.locator('[data-testid=turn]').count();
  await second.locator('[data-testid=ask-fresh]').click();
  const fresh = page.locator('[data-testid=answer]').nth(turns);
  await fresh.waitFor();
  assert((await waitAnswerFinished(page, fresh)) === 'done', 'the fresh answer finishes');
  assert((await fresh.locator('[data-testid=answer-cached]').count()) === 0, 'a fresh answer is not marked cached');
  assert(Number(await fresh.getAttribute('data-tokens')) > 0, 'the fresh answer streamed tokens from the model');
  await screenshot(page, 'cache-2-fresh-answer');

  // Memory: learnt from the user's words, shown in settings, forgotten on request.
  const told = await ask(page, "I'm a second-year physics student. Where does the quokka code live?");
  await waitAnswerFinished(page, told);
  await page.keyboard.press('Control+,');
  await page.locator('[data-testid=settings]').waitFor();
  const section = page.locator('[data-testid=memory-settings]');
  await section.locator('[data-testid=memory-item]').first().waitFor({ timeout: 10_000 });
  await section.scrollIntoViewIfNeeded();
  const remembered = await section.locator('[data-testid=memory-text]').first().inputValue();
  assert(remembered === 'is a second-year physics student', `the memory is the user's own fact (${remembered})`);
  await screenshot(page, 'cache-3-memory');
  await section.locator('[data-testid=memory-delete]').first().click();
  await section.locator('[data-testid=memory-empty]').waitFor({ timeout: 10_000 });
  await section.locator('[data-testid=memory-new]').fill('prefers short answers');
  await section.locator('[data-testid=memory-add]').click();
  await section.locator('[data-testid=memory-item]').first().waitFor({ timeout: 10_000 });
  assert((await section.locator('[data-testid=memory-text]').first().inputValue()) === 'prefers short answers', 'a memory added by hand is listed');
  return { cachedMark: where };
}
