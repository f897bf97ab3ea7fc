// A spoken MP3 (espeak-ng, internal/testaudio) is added, transcribed by PocketSphinx, and
// cited: the source shows its time, and clicking the citation opens the transcript at the
// cited line, highlighted, with the player moved to that line's time.

import { execFileSync } from 'node:child_process';
import { assert, repoDir, screenshot } from './harness.mjs';
import { ask, uploadAndWaitReady, waitAnswerFinished } from './flows.mjs';

export const AUDIO_QUESTION = 'When does the train leave the station?';
const SENTENCE = 4; // "The train leaves the station at nine o'clock …"

/** The test recordings and each sentence's time span (go run ./internal/testaudio/cmd/testaudio). */
export function testAudio() {
  return JSON.parse(execFileSync('go', ['run', './internal/testaudio/cmd/testaudio'], { cwd: repoDir, encoding: 'utf8' }));
}

export async function audioFlow({ page, url, audio }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  const doc = await uploadAndWaitReady(page, audio.mp3, 'audio-1-transcribing');
  assert((await doc.getAttribute('data-status')) === 'ready', 'the MP3 is transcribed and ready');

  const answer = await ask(page, AUDIO_QUESTION);
  const state = await waitAnswerFinished(page, answer);
  assert(state === 'done', `answer finished (state ${state}: ${await answer.textContent()})`);
  // The source names a time, not a page.
  const time = answer.locator('[data-testid=source-time]').first();
  await time.waitFor({ timeout: 10_000 });
  const label = (await time.textContent()) ?? '';
  const lm = /^\[(\d+):(\d\d)\]$/.exec(label.trim());
  assert(lm, `the source shows its time as [m:ss] (${label})`);
  const labelAt = Number(lm[1]) * 60 + Number(lm[2]);
  assert(labelAt >= Math.floor(audio.spans[SENTENCE][0]) - 1 && labelAt <= audio.spans[SENTENCE][1], `the source's time ${label.trim()} is within the sentence asked about`);

  // The inline marker stands for the sentence matching the question: its line is cited.
  const marker = answer.locator('[data-testid=answer-body] button.cite').first();
  await marker.click();
  const view = page.locator('[data-testid=transcript-view]');
  await view.waitFor({ timeout: 10_000 });
  const cited = view.locator('[data-testid=transcript-line][data-cited=true]');
  await cited.waitFor({ timeout: 10_000 });
  const line = await cited.evaluate((el) => ({ text: el.textContent ?? '', start: Number(el.dataset.start), bg: getComputedStyle(el).backgroundColor }));
  const [from, to] = audio.spans[SENTENCE];
  assert(/train|station/.test(line.text), `the cited line is the sentence asked about (${JSON.stringify(line.text)})`);
  assert(line.start >= from - 0.5 && line.start <= to, `the cited line starts at ${line.start} s, within the sentence's ${from.toFixed(1)}–${to.toFixed(1)} s`);
  assert(line.bg !== 'rgba(0, 0, 0, 0)' && line.bg !== 'transparent', `the cited line is highlighted (background ${line.bg})`);
  const sub = await page.locator('[data-testid=viewer] .sub').textContent();
  const m = /Cited at (\d+):(\d\d)/.exec(sub ?? '');
  assert(m && Math.abs(Number(m[1]) * 60 + Number(m[2]) - Math.floor(line.start)) <= 1, `the viewer says when the cited line was said (${sub}; the line at ${line.start} s)`);
  const source = await view.locator('[data-testid=transcript-source]').textContent();
  assert(/PocketSphinx/.test(source ?? ''), `the viewer says which recogniser made the text (${source})`);
  assert(await view.locator('[data-testid=transcript-advice]').isVisible(), 'the viewer says how to get a better transcript');

  // The player, fed from the library's files/ route, is moved to the cited line's time.
  const player = view.locator('[data-testid=media-player]');
  await page.waitForFunction(
    ({ el, at }) => el.readyState >= 1 && Math.abs(el.currentTime - at) < 0.6,
    { el: await player.elementHandle(), at: line.start },
    { timeout: 15_000, polling: 100 },
  ).catch(async () => {
    const p = await player.evaluate((el) => ({ readyState: el.readyState, currentTime: el.currentTime, error: el.error?.message ?? el.error?.code ?? null, src: el.currentSrc }));
    throw new Error(`the player did not move to ${line.start} s: ${JSON.stringify(p)}`);
  });
  const p = await player.evaluate((el) => ({ currentTime: el.currentTime, duration: el.duration }));
  assert(Math.abs(p.duration - audio.spans[audio.spans.length - 1][1]) < 1, `the player has the whole recording (${p.duration} s)`);
  await screenshot(page, 'audio-2-cited-line');

  // A click on another line's time moves the player there.
  const first = view.locator('[data-testid=transcript-line]').first();
  await first.locator('button.time').click();
  await page.waitForFunction((el) => el.currentTime < 2, await player.elementHandle(), { timeout: 5_000 });
  return `cited line at ${line.start} s (${JSON.stringify(line.text.trim())}), player at ${p.currentTime.toFixed(2)} s of ${p.duration.toFixed(1)} s; source ${label.trim()}`;
}
