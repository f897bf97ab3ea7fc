// Browser flows against the real backend. Each takes a started backend and a page.

import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { assert, screenshot } from './harness.mjs';

const READY_TIMEOUT = 180_000; // ingest with real embeddings on 2 shared cores
const ANSWER_TIMEOUT = 180_000;

export async function uploadAndWaitReady(page, pdfPath, shot, { drop = false } = {}) {
  if (drop) await dropFile(page, pdfPath);
  else await page.setInputFiles('[data-testid=file-input]', pdfPath);
  // The row of this file, not the list's first: a second upload returned the first row
  // while it was still the earlier document (ready already), and the new row then pushed
  // it down under the pointer (CI: a hover-only button "covered" by another row's text).
  const name = basename(pdfPath);
  const doc = page.locator('[data-testid=document]').filter({
    has: page.locator(`[data-testid=document-title][title$=${JSON.stringify('/' + name)}]`),
  });
  await doc.waitFor({ timeout: 30_000 });
  if (shot) await screenshot(page, shot);
  await page.waitForFunction(
    (suffix) => {
      const t = [...document.querySelectorAll('[data-testid=document-title]')].find((e) => e.title.endsWith(suffix));
      const d = t?.closest('[data-testid=document]');
      const s = d?.getAttribute('data-status');
      if (s === 'failed') throw new Error(`ingest failed: ${d.querySelector('[data-testid=document-error]')?.textContent}`);
      return s === 'ready';
    },
    '/' + name,
    { timeout: READY_TIMEOUT, polling: 250 },
  );
  return doc;
}

/**
 * Drags a file over the window and drops it, as a file manager would in a browser: the
 * overlay must show while it is over the window and be gone after the drop.
 */
async function dropFile(page, path) {
  const dt = await page.evaluateHandle(
    ({ b64, name }) => {
      const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'application/pdf' }));
      return dt;
    },
    { b64: readFileSync(path).toString('base64'), name: basename(path) },
  );
  const overlay = page.locator('[data-testid=drop-overlay]');
  await page.dispatchEvent('main, body', 'dragenter', { dataTransfer: dt });
  await page.dispatchEvent('main, body', 'dragover', { dataTransfer: dt });
  await overlay.waitFor({ state: 'visible', timeout: 5_000 });
  await page.dispatchEvent('main, body', 'drop', { dataTransfer: dt });
  await overlay.waitFor({ state: 'hidden', timeout: 5_000 });
}

/** Records every distinct state of the last answer, to prove tokens streamed in. */
async function watchAnswers(page) {
  await page.evaluate(() => {
    const w = window;
    w.__answerSamples = [];
    const seen = new Set();
    const sample = () => {
      const all = document.querySelectorAll('[data-testid=answer]');
      const a = all[all.length - 1];
      if (!a) return;
      const streaming = a.querySelector('[data-testid=answer-streaming]');
      const s = { state: a.dataset.state, tokens: Number(a.dataset.tokens), chars: streaming ? streaming.textContent.length : -1 };
      const key = `${s.state}/${s.tokens}/${s.chars}`;
      if (!seen.has(key)) {
        seen.add(key);
        w.__answerSamples.push(s);
      }
    };
    w.__answerObserver?.disconnect();
    w.__answerObserver = new MutationObserver(sample);
    w.__answerObserver.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

export async function ask(page, question) {
  await watchAnswers(page);
  const before = await page.locator('[data-testid=turn]').count();
  await page.fill('[data-testid=ask-input]', question);
  await page.keyboard.press('Enter');
  await page.locator('[data-testid=turn]').nth(before).waitFor();
  return page.locator('[data-testid=answer]').nth(before);
}

export async function waitAnswerFinished(page, answer) {
  await page.waitForFunction(
    (el) => ['done', 'error', 'stopped'].includes(el.dataset.state),
    await answer.elementHandle(),
    { timeout: ANSWER_TIMEOUT, polling: 100 },
  );
  return answer.getAttribute('data-state');
}

/** Fraction of pixels that are not (near) white: > 0 when pdf.js drew something. */
async function inkOnCanvas(page) {
  return page.evaluate(() => {
    const c = document.querySelector('[data-testid=viewer-canvas]');
    if (!c || !c.width) return 0;
    const ctx = c.getContext('2d');
    const { data } = ctx.getImageData(0, 0, c.width, c.height);
    let ink = 0;
    for (let i = 0; i < data.length; i += 16) if (data[i] < 200 || data[i + 1] < 200 || data[i + 2] < 200) ink++;
    return ink / (data.length / 16);
  });
}

/** Letters and digits only, lower case: page text and passage text compare alike. */
const squash = (s) => (s ?? '').normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * The page a passage starts on, from known data: the PDF's pages as poppler's pdftotext
 * reads them (an extractor that is not Carrel's), not the marker's own label.
 */
const pdfPages = new Map();
/** The PDF's pages' texts by pdftotext (squashed), read once. */
function pdfText(pdf) {
  if (!pdfPages.has(pdf)) {
    const text = execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    pdfPages.set(pdf, text.split('\f').map(squash));
  }
  return pdfPages.get(pdf);
}

export function knownPage(pdf, passage) {
  const pages = pdfText(pdf);
  const p = squash(passage);
  for (const n of [60, 40, 25]) {
    const key = p.slice(0, n);
    const hits = pages.flatMap((t, i) => (t.includes(key) ? [i + 1] : []));
    if (hits.length === 1) return hits[0];
  }
  throw new Error(`the passage is on no single page of ${pdf} by pdftotext: ${passage.slice(0, 80)}`);
}

export async function openCitationAndCheckViewer(page, answer, shot, selector = '[data-testid=answer-body] button.cite', { strong = false, pdf } = {}) {
  const marker = answer.locator(selector).first();
  await marker.waitFor({ timeout: 10_000 });
  const label = (await marker.getAttribute('aria-label')) ?? '';
  const labelPage = Number(/page (\d+)/.exec(label)?.[1] ?? '0');
  // The cited passage, as the answer carries it (the tooltip's full text).
  await marker.hover();
  const tip0 = page.locator('[data-testid=citation-tooltip]');
  await tip0.waitFor({ timeout: 5_000 });
  const cited = (await tip0.getAttribute('data-passage')) ?? '';
  await page.mouse.move(0, 0);
  // The expected page comes from known data (pdftotext's pages of the PDF), never from the
  // marker's own label, which must agree with it: without the PDF there is nothing to check
  // the label against.
  assert(pdf, 'the PDF is given, to know the cited page from its text');
  const pageNo = knownPage(pdf, cited);
  assert(labelPage === pageNo, `the marker names the page the passage is on: ${pageNo} by pdftotext (${label})`);

  if (selector.includes('button.cite')) {
    // Hover on an inline marker shows the passage.
    await marker.hover();
    const tip = page.locator('[data-testid=citation-tooltip]');
    await tip.waitFor({ timeout: 5_000 });
    const tipText = (await tip.textContent()) ?? '';
    var fullPassage = (await tip.getAttribute('data-passage')) ?? tipText;
    assert(tipText.trim().length > 20, `tooltip shows the passage (got ${JSON.stringify(tipText)})`);
    await screenshot(page, `${shot}-tooltip`);
  }
  fullPassage ??= cited;

  await marker.click();
  await page.locator(`[data-testid=viewer-page][data-page="${pageNo}"]`).waitFor({ timeout: 60_000 });
  const input = await page.inputValue('[data-testid=viewer-page-input]');
  assert(input === String(pageNo), `viewer shows cited page ${pageNo} (page box says ${input})`);
  const count = (await page.textContent('[data-testid=viewer-page-count]'))?.trim();
  assert(/^of \d+$/.test(count ?? ''), `page count shown (${count})`);
  const ink = await inkOnCanvas(page);
  assert(ink > 0.005, `canvas is drawn (ink ${ink.toFixed(4)})`);
  const highlights = await page.locator('[data-testid=passage-highlight]').count();
  assert(highlights > 0, 'the cited passage is highlighted on the page');
  const hlVisible = await page.locator('[data-testid=passage-highlight]').first().isVisible();
  assert(hlVisible, 'the highlight is visible');
  if (typeof fullPassage === 'string') {
    // Every highlighted piece is text of the cited passage; a marker whose sentence has a
    // supporting span highlights that sentence strongly, inside the passage.
    const all = await page.locator('[data-testid=viewer-page] [data-testid=passage-highlight]').allTextContents();
    const passage = squash(fullPassage);
    for (const t of all) assert(passage.includes(squash(t)), `highlight ${JSON.stringify(t)} is text of the passage`);
    let strongText = (await page.locator('[data-testid=viewer-page] [data-strong=true]').allTextContents()).join(' ');
    if (strong && squash(strongText).length <= 10 && (await page.locator('[data-testid=highlight-continue]').count())) {
      // The quoted window may begin near the end of the cited page: the rest of it is on
      // the page the passage continues on.
      await page.click('[data-testid=highlight-continue]');
      await page.locator(`[data-testid=viewer-page][data-page="${pageNo + 1}"] [data-testid=passage-highlight]`).first().waitFor({ timeout: 30_000 });
      strongText += ' ' + (await page.locator('[data-testid=viewer-page] [data-strong=true]').allTextContents()).join(' ');
      await page.click('[data-testid=viewer-prev]');
      await page.locator(`[data-testid=viewer-page][data-page="${pageNo}"] [data-testid=passage-highlight]`).first().waitFor({ timeout: 30_000 });
    }
    if (strong) assert(squash(strongText).length > 10, `the supporting sentence is highlighted strongly (${JSON.stringify(strongText)})`);
    if (strongText) assert(passage.includes(squash(strongText)), `the strong highlight ${JSON.stringify(strongText)} is inside the passage`);
    // The highlight covers the passage's part on this page, not one word: its text is at
    // least 60% of what the page holds of the passage.
    const pageText = squash(await page.locator('[data-testid=viewer-page][data-page="' + pageNo + '"]').first().textContent());
    const lit = squash(all.join(''));
    let onPage = 0;
    for (let n = Math.min(passage.length, pageText.length); n >= 20 && !onPage; n -= 10) {
      // The longest head or tail of the passage the page holds.
      if (pageText.includes(passage.slice(0, n)) || pageText.includes(passage.slice(-n))) onPage = n;
    }
    assert(onPage >= 20, `the page holds the passage (${passage.slice(0, 60)})`);
    assert(lit.length >= 0.6 * onPage, `the highlight covers the span (${lit.length} of ${onPage} characters lit)`);
  }

  await page.waitForTimeout(500); // let the smooth scroll settle for the screenshot
  await screenshot(page, `${shot}-viewer`);
  return { pageNo, highlights, ink };
}

// ---- flows --------------------------------------------------------------------------

export async function fullFlow({ page, url, pdf, question }) {
  await page.goto(url);
  const badge = page.locator('[data-testid=mode-badge]');
  await badge.waitFor({ timeout: 30_000 });
  // Both models are set and served: the mode must be the full one (chat model and
  // meaning search), not lexical.
  await page.waitForFunction(() => document.querySelector('[data-testid=mode-badge]')?.getAttribute('data-mode') === 'full', null, { timeout: 60_000 })
    .catch(() => {});
  const mode = await badge.getAttribute('data-mode');
  assert(mode === 'full', `both models set: the mode is full (mode ${mode}: ${await badge.textContent()} — ${await badge.getAttribute('title')})`);
  await screenshot(page, 'full-1-start');

  await uploadAndWaitReady(page, pdf, 'full-2-ingesting');
  await screenshot(page, 'full-3-ready');

  const answer = await ask(page, question);
  // Streaming or already over: a fast machine may finish the tiny model's answer between
  // two polls, and a failed answer never streams (its state and text are asserted below).
  await page.waitForFunction(
    (el) => ['streaming', 'done', 'error', 'stopped'].includes(el.dataset.state),
    await answer.elementHandle(),
    { timeout: ANSWER_TIMEOUT, polling: 50 },
  ).catch(() => {});
  await screenshot(page, 'full-4-streaming');
  const state = await waitAnswerFinished(page, answer).catch(async (e) => {
    throw new Error(`the answer did not finish (state ${await answer.getAttribute('data-state')}: ${await answer.textContent()}): ${e.message}`);
  });
  assert(state === 'done', `answer finished (state ${state}: ${await answer.textContent()})`);
  assert((await answer.locator('[data-testid=answer-mode]').count()) === 0, 'the model wrote the answer (not search mode)');

  const samples = await page.evaluate(() => window.__answerSamples);
  const streamed = samples.filter((s) => s.state === 'streaming' && s.tokens > 0);
  const distinct = new Set(streamed.map((s) => s.tokens));
  assert(distinct.size >= 3, `several token updates were visible before done (saw ${distinct.size}: ${JSON.stringify(streamed.slice(0, 8))})`);
  const lengths = streamed.map((s) => s.chars).filter((n) => n >= 0);
  assert(lengths.length >= 3 && lengths[lengths.length - 1] > lengths[0], 'the visible text grew while streaming');

  // The tiny test model writes random words, which citation grounding rightly leaves
  // unmarked; the answer's numbered sources are then the citations to follow. (Inline
  // markers, hover and click are asserted in the no-model flow, where they always exist.)
  const markers = await answer.locator('[data-testid=answer-body] button.cite').count();
  const sources = await answer.locator('[data-testid=source]').count();
  assert(markers + sources > 0, `the answer carries citations (${await answer.textContent()})`);
  await screenshot(page, 'full-5-answer');

  const viewer = await openCitationAndCheckViewer(page, answer, 'full-6',
    markers > 0 ? '[data-testid=answer-body] button.cite' : '[data-testid=source]', { pdf });

  // Stop: a second question, stopped while it streams; the partial answer stays. (Not the
  // same question: that one is answered from the answer cache at once.)
  // The click is made from inside the page at the first streamed token (a MutationObserver,
  // no round trip to the test), so a short answer cannot finish before it: the state must
  // be 'stopped', never 'done'.
  await page.evaluate(() => {
    const obs = new MutationObserver(() => {
      const all = document.querySelectorAll('[data-testid=answer]');
      const a = all[all.length - 1];
      if (a?.dataset.state === 'streaming' && Number(a.dataset.tokens) > 0) {
        obs.disconnect();
        document.querySelector('[data-testid=stop-button]')?.click();
      }
    });
    obs.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
  const second = await ask(page, `${question} Answer again, in more detail.`);
  const stopped = await waitAnswerFinished(page, second);
  assert(stopped === 'stopped', `Stop ends the answer while it streams (state ${stopped})`);
  await page.waitForTimeout(500);
  assert((await second.getAttribute('data-state')) === stopped, 'no late tokens or errors after Stop');
  await page.locator('[data-testid=send-button]').waitFor();
  await screenshot(page, 'full-7-stopped');

  return { mode, tokens: distinct.size, markers, ...viewer, stopped };
}

export async function noModelFlow({ page, url, pdf, question }) {
  await page.goto(url);
  const badge = page.locator('[data-testid=mode-badge]');
  await badge.waitFor({ timeout: 30_000 });
  const text = (await badge.textContent())?.trim();
  assert(text === 'Search mode', `badge says Search mode (got ${text})`);
  const notice = (await page.locator('[data-testid=mode-notice]').textContent())?.trim() ?? '';
  assert(/Search mode/.test(notice) && /add a model/i.test(notice), `search mode is explained once (${notice})`);
  assert(!/127\.0\.0\.1|ollama serve/i.test(notice), `no terminal commands in the notice (${notice})`);

  await uploadAndWaitReady(page, pdf, null, { drop: true });
  const answer = await ask(page, question);
  const state = await waitAnswerFinished(page, answer);
  assert(state === 'done', `answer finished (state ${state}: ${await answer.textContent()})`);
  // Said once, in the header: no warning under the answer.
  assert((await answer.locator('[data-testid=answer-note]').count()) === 0, 'no no-model warning under the answer');
  assert((await page.locator('[data-testid=mode-notice]').count()) === 1, 'one notice');
  const note = (await answer.locator('[data-testid=answer-mode]').textContent())?.trim() ?? '';
  const body = (await answer.locator('[data-testid=answer-body]').textContent()) ?? '';
  assert(body.trim().length > 40, 'the answer is made of passages');
  const markers = await answer.locator('[data-testid=answer-body] button.cite').count();
  assert(markers > 0, 'the passages carry citation markers');
  await screenshot(page, 'no-model-1-answer');
  // A no-model answer's claims are its quoted passages: the marker highlights the quoted
  // text strongly, inside the passage.
  const viewer = await openCitationAndCheckViewer(page, answer, 'no-model-2', undefined, { strong: true, pdf });
  return { note, markers, ...viewer };
}

/** Records every value the download bars show, to prove they moved. */
async function watchPull(page) {
  await page.evaluate(() => {
    const w = window;
    w.__pullSamples = [];
    w.__layerSamples = [];
    const sample = () => {
      const bar = document.querySelector('[data-testid=pull] [data-testid=pull-bar]');
      if (bar) {
        const v = Number(bar.getAttribute('aria-valuenow'));
        if (w.__pullSamples[w.__pullSamples.length - 1] !== v) w.__pullSamples.push(v);
      }
      for (const l of document.querySelectorAll('[data-testid=pull-layer]')) {
        w.__layerSamples.push({ digest: l.dataset.digest, completed: Number(l.dataset.completed), total: Number(l.dataset.total) });
      }
    };
    w.__pullObserver?.disconnect();
    w.__pullObserver = new MutationObserver(sample);
    w.__pullObserver.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

export async function pullFlow({ page, url, pullName }) {
  await page.goto(url);
  const badge = page.locator('[data-testid=mode-badge]');
  await badge.waitFor({ timeout: 30_000 });
  assert((await badge.getAttribute('data-mode')) === 'no-model', 'an Ollama without models means no model');

  // First run: the notice offers to set up models.
  await page.click('[data-testid=setup-models]');
  const panel = page.locator('[data-testid=settings]');
  await panel.waitFor();
  await page.locator('[data-testid=ollama-state][data-reachable=true]').waitFor({ timeout: 15_000 });
  assert((await page.locator('[data-testid=installed-model]').count()) === 0, 'no models installed yet');
  await page.locator('[data-testid=missing-chat]').waitFor();
  const suggested = await page.locator('[data-testid=suggested-model]').count();
  assert(suggested >= 2, `small models are suggested (${suggested})`);
  await screenshot(page, 'pull-1-empty');

  await watchPull(page);
  await page.fill('[data-testid=pull-name]', pullName);
  await page.check('[data-testid=pull-insecure]');
  await page.click('[data-testid=pull-button]');
  await page.waitForFunction(
    () => {
      const p = document.querySelector('[data-testid=pull]');
      if (p?.dataset.state === 'failed') throw new Error(`pull failed: ${p.textContent}`);
      return p?.dataset.state === 'done';
    },
    null,
    { timeout: 60_000, polling: 50 },
  );
  await screenshot(page, 'pull-2-done');
  const bars = await page.evaluate(() => window.__pullSamples);
  const layers = await page.evaluate(() => window.__layerSamples);
  assert(bars.length >= 2 && bars[bars.length - 1] === 100 && bars.some((v) => v < 100), `the progress bar moved to 100% (${JSON.stringify(bars)})`);
  const digests = new Set(layers.map((l) => l.digest));
  const big = layers.filter((l) => l.total > 100_000);
  assert(digests.size >= 2 && big.length > 0, `a bar per layer, the model layer among them (${digests.size} layers, ${JSON.stringify(layers.slice(-4))})`);

  // The model appears in the list and can be used for chat.
  const installed = page.locator(`[data-testid=installed-model][data-role=chat][data-name="${pullName}"]`);
  await installed.waitFor({ timeout: 15_000 });
  await installed.locator('[data-testid=use-model]').click();
  await installed.locator('[data-testid=in-use]').waitFor({ timeout: 15_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=mode-badge]')?.getAttribute('data-mode') === 'lexical', null, { timeout: 15_000 });
  await screenshot(page, 'pull-3-used');
  await page.click('[data-testid=settings-close]');
  await panel.waitFor({ state: 'hidden' });
  const models = (await page.textContent('[data-testid=models]')) ?? '';
  assert(models.includes(pullName), `the header names the new chat model (${models})`);
  return { bars, layers: digests.size };
}

/** Elements that document text must never become, anywhere in the app. */
const DANGEROUS = 'script, img, svg, iframe, object, embed, style, link, meta, base, form, input, details, math';

export async function securityFlow({ page, url, files }) {
  // A payload that runs calls pwn(); the harness also fails on any CSP violation, which
  // an injected inline handler or script would cause even where the policy blocks it.
  await page.addInitScript(() => {
    window.__pwned = [];
    window.pwn = (what) => window.__pwned.push(String(what));
    window.__opened = [];
  });
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  // window.open is how the browser build opens links outside the app: record, do not open.
  await page.evaluate(() => {
    window.open = (u) => {
      window.__opened.push(String(u));
      return null;
    };
  });

  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForFunction(
    (n) => {
      const docs = [...document.querySelectorAll('[data-testid=document]')];
      const failed = docs.find((d) => d.dataset.status === 'failed');
      if (failed) throw new Error(`ingest failed: ${failed.textContent}`);
      return docs.length === n && docs.every((d) => d.dataset.status === 'ready');
    },
    files.length,
    { timeout: READY_TIMEOUT, polling: 250 },
  );
  const docTitles = (await page.textContent('[data-testid=document-list]')) ?? '';
  // The app's own icons are <svg class="icon">; nothing else of these may appear.
  const bad = async (sel) => page.locator(`${sel} :is(${DANGEROUS}):not(svg.icon)`).count();
  assert((await bad('[data-testid=document-title]')) === 0, 'document titles are text');
  assert(!docTitles.includes('pwn(') || docTitles.includes('<script>'), 'a hostile title shows as text');

  // Words of the note's first payload paragraph, whose quote window holds the links.
  const answer = await ask(page, 'Zanzibar payload one: see the guide, its script, onerror and link');
  const state = await waitAnswerFinished(page, answer);
  assert(state === 'done', `answer finished (${state})`);
  const body = answer.locator('[data-testid=answer-body]');
  const text = (await body.textContent()) ?? '';
  assert(/onerror/.test(text) && /<script>|pwn\(/.test(text), `the payloads are shown as text (${text.slice(0, 300)})`);
  assert((await bad('[data-testid=answer]')) === 0, 'no dangerous elements in the answer');
  assert((await answer.locator('[data-testid=answer-body] svg').count()) === 0, 'no svg at all in the answer text');
  const hrefs = await answer.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  assert(hrefs.every((h) => h === null || /^(https?:|mailto:)/.test(h)), `only web links keep an href (${JSON.stringify(hrefs)})`);
  await screenshot(page, 'security-1-answer');

  // Hover: the tooltip shows the passage as text.
  const marker = answer.locator('[data-testid=answer-body] button.cite').first();
  await marker.evaluate((b) => b.scrollIntoView({ block: 'center' }));
  await marker.hover();
  const tip = page.locator('[data-testid=citation-tooltip]');
  await tip.waitFor({ timeout: 5_000 });
  assert((await bad('[data-testid=citation-tooltip]')) === 0, 'no dangerous elements in the tooltip');
  await screenshot(page, 'security-2-tooltip');

  // Click: the text viewer shows the file as text with the passage highlighted.
  await marker.click();
  await page.locator('[data-testid=text-view] [data-testid=passage-highlight]').first().waitFor({ timeout: 15_000 });
  const viewText = (await page.textContent('[data-testid=text-view]')) ?? '';
  assert(viewText.includes('pwn('), 'the text viewer shows the raw payloads');
  assert((await bad('[data-testid=text-view]')) === 0, 'no dangerous elements in the text viewer');
  await screenshot(page, 'security-3-viewer');

  // Links: a web link opens outside the app; a javascript: link does nothing.
  const before = page.url();
  const web = answer.locator('a[href^="https://example.com/zanzibar"]').first();
  assert((await web.count()) === 1, 'the answer carries the document\'s web link');
  await web.click();
  const opened = await page.evaluate(() => window.__opened);
  assert(opened.length === 1 && opened[0].startsWith('https://example.com/zanzibar'), `the link went to the system browser (${JSON.stringify(opened)})`);
  const dead = answer.locator('a:not([href])');
  assert((await dead.count()) > 0, 'javascript: links are kept as dead text');
  await dead.first().click();
  await page.waitForTimeout(500);
  assert(page.url() === before, `the app never navigated (${page.url()})`);
  const pwned = await page.evaluate(() => window.__pwned);
  assert(pwned.length === 0, `no payload ran (${JSON.stringify(pwned)})`);
  return { links: hrefs.filter(Boolean).length, opened: opened.length, chars: text.length };
}

/** Keyboard shortcuts, math in answers, library filter and sort, retry of a failed document. */
export async function feelFlow({ page, url, files, broken, fixed, inbox }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  const keys = await page.locator('[data-testid=chat-empty] kbd').count();
  assert(keys >= 5, `the empty chat lists the shortcuts (${keys})`);

  await page.setInputFiles('[data-testid=file-input]', [...files, broken]);
  await page.waitForFunction(
    (n) => {
      const docs = [...document.querySelectorAll('[data-testid=document]')];
      return docs.length === n && docs.every((d) => d.dataset.status === 'ready' || d.dataset.status === 'failed');
    },
    files.length + 1,
    { timeout: READY_TIMEOUT, polling: 250 },
  );
  const failed = page.locator('[data-testid=document][data-status=failed]');
  assert((await failed.count()) === 1, 'the broken PDF failed');
  await screenshot(page, 'feel-1-library');

  // Filter and sort.
  await page.fill('[data-testid=library-filter]', 'quokka');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=document]').length === 1);
  await page.fill('[data-testid=library-filter]', 'no such words');
  await page.locator('[data-testid=library-no-match]').waitFor();
  await page.fill('[data-testid=library-filter]', '');
  await page.selectOption('[data-testid=library-sort]', 'status');
  // Failures are not documents: they sit in their own group below the list.
  const listed = await page.locator('[data-testid=document-list] [data-testid=document]').evaluateAll((ds) => ds.map((d) => d.dataset.status));
  assert(listed.length === files.length && !listed.includes('failed'), `the document list holds the documents only (${listed})`);
  assert((await page.locator('[data-testid=library-failures] [data-testid=document][data-status=failed]').count()) === 1, 'the failure is in its own group');
  const tabCount = (await page.locator('[data-testid=tab-library] .count').textContent())?.trim();
  assert(tabCount === String(files.length), `the count is of documents, not failures (${tabCount})`);
  await page.selectOption('[data-testid=library-sort]', 'title');
  const titles = await page.locator('[data-testid=document-list] [data-testid=document-title]').allTextContents();
  const sorted = [...titles].sort((a, b) => a.trim().localeCompare(b.trim(), undefined, { numeric: true, sensitivity: 'base' }));
  assert(JSON.stringify(titles) === JSON.stringify(sorted), `sorted by title (${JSON.stringify(titles)})`);

  // Retry: the file is fixed where it lies, Retry adds it again, and it becomes ready.
  copyFileSync(fixed, join(inbox, basename(broken)));
  await failed.locator('[data-testid=document-retry]').click();
  await page.waitForFunction(
    (n) => {
      const docs = [...document.querySelectorAll('[data-testid=document]')];
      return docs.length === n && docs.every((d) => d.dataset.status === 'ready');
    },
    files.length + 1,
    { timeout: READY_TIMEOUT, polling: 250 },
  );
  await page.reload(); // the failed entry is gone from the library itself, not only from the page
  await page.locator('[data-testid=document]').first().waitFor();
  assert((await page.locator('[data-testid=document][data-status=failed]').count()) === 0, 'the failed entry was replaced');

  // Ctrl+K focuses the question box from anywhere.
  await page.click('[data-testid=library-filter]');
  await page.keyboard.press('Control+k');
  assert(await page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'ask-input'), 'Ctrl+K focuses the ask box');

  // Math in an answer (no model: the answer is the passages, with their TeX).
  const answer = await ask(page, 'quokka energy relation sum, zanzibar anchor');
  assert((await waitAnswerFinished(page, answer)) === 'done', 'answer finished');
  const maths = await answer.locator('[data-testid=answer-body] math').count();
  assert(maths >= 2, `TeX is typeset as MathML (${maths})`);
  const body = (await answer.locator('[data-testid=answer-body]').textContent()) ?? '';
  assert(body.includes('$5 or $10'), 'money is not math');
  await screenshot(page, 'feel-2-math');

  // ] and [ step through the sources in the viewer (outside text fields).
  await page.locator('[data-testid=chat]').click({ position: { x: 5, y: 5 } });
  const sources = await answer.locator('[data-testid=source]').count();
  const current = () => answer.locator('[data-testid=source][aria-current=true]').getAttribute('data-cite');
  await page.keyboard.press(']');
  await answer.locator('[data-testid=source][aria-current=true]').waitFor();
  assert((await current()) === '1', 'first ] opens source 1');
  if (sources > 1) {
    await page.keyboard.press(']');
    await page.waitForFunction(() => document.querySelector('[data-testid=source][aria-current=true]')?.getAttribute('data-cite') === '2');
    await page.keyboard.press('Alt+ArrowUp');
    await page.waitForFunction(() => document.querySelector('[data-testid=source][aria-current=true]')?.getAttribute('data-cite') === '1');
  }

  // Ctrl+N starts a new session; Ctrl+, opens the models panel and Escape closes it.
  await page.keyboard.press('Control+n');
  await page.locator('[data-testid=chat-empty]').waitFor();
  await page.keyboard.press('Control+,');
  await page.locator('[data-testid=settings]').waitFor();

  // Cloud settings: choose OpenAI and a budget; both are saved, and the cost meter appears.
  await page.check('[data-testid=provider-openai]');
  await page.locator('[data-testid=cloud-model]').waitFor();
  await page.fill('[data-testid=budget]', '5');
  await page.click('[data-testid=budget-save]');
  await page.locator('[data-testid=meter]').waitFor({ timeout: 10_000 });
  const meter = (await page.textContent('[data-testid=meter]'))?.replace(/\s+/g, ' ').trim();
  assert(/Total \$0\.00 of \$5\.00/.test(meter ?? ''), `the meter shows the budget (${meter})`);
  await screenshot(page, 'feel-3-cloud');
  await page.reload();
  await page.keyboard.press('Control+,');
  await page.locator('[data-testid=provider-openai]:checked').waitFor();
  assert((await page.inputValue('[data-testid=budget]')) === '5', 'the budget was saved');
  await page.check('[data-testid=provider-ollama]');
  await page.locator('[data-testid=cloud-model]').waitFor({ state: 'detached' });
  await page.keyboard.press('Escape');
  await page.locator('[data-testid=settings]').waitFor({ state: 'hidden' });
  return { maths, sources, meter };
}

/** Sessions: asked questions are saved; list, rename, new, resume, export, delete. */
export async function sessionsFlow({ page, url, files }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  await page.click('[data-testid=tab-sessions]');
  await page.locator('[data-testid=sessions-empty]').waitFor();
  await page.click('[data-testid=tab-library]');
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForFunction(
    (n) => [...document.querySelectorAll('[data-testid=document]')].filter((d) => d.dataset.status === 'ready').length === n,
    files.length,
    { timeout: READY_TIMEOUT, polling: 250 },
  );

  // Two questions in one session.
  for (const q of ['quokka energy relation', 'quokka sum for every count']) {
    const a = await ask(page, q);
    assert((await waitAnswerFinished(page, a)) === 'done', `answer to ${q}`);
  }
  await page.click('[data-testid=tab-sessions]');
  const sessions = page.locator('[data-testid=session]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=session]').length === 1);
  const first = sessions.first();
  assert((await first.getAttribute('aria-current')) === 'true', 'the open session is marked');
  const meta = (await first.textContent()) ?? '';
  assert(/2 questions/.test(meta), `one session with both questions (${meta})`);

  // Rename.
  await first.hover();
  await first.locator('[data-testid=session-rename]').click();
  await page.fill('[data-testid=session-title-input]', 'Quokka physics');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-testid=session-title]')?.textContent === 'Quokka physics');

  // A new session (the button), one question: two sessions, the new one first.
  await page.click('[data-testid=new-session]');
  await page.locator('[data-testid=chat-empty]').waitFor();
  const a3 = await ask(page, 'zanzibar anchor');
  assert((await waitAnswerFinished(page, a3)) === 'done', 'answer in the new session');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=session]').length === 2);
  await screenshot(page, 'sessions-1-list');

  // Resume the first: both exchanges come back with their sources, and it continues there.
  await page.locator('[data-testid=session]', { hasText: 'Quokka physics' }).locator('[data-testid=session-open]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=turn]').length === 2);
  const questions = await page.locator('[data-testid=question]').allTextContents();
  assert(questions[0].includes('quokka energy relation') && questions[1].includes('quokka sum'), `resumed questions (${questions})`);
  assert((await page.locator('[data-testid=source]').count()) > 0, 'resumed answers keep their sources');
  const a4 = await ask(page, 'quokka price');
  assert((await waitAnswerFinished(page, a4)) === 'done', 'answer in the resumed session');
  await page.waitForFunction(() => /3 questions/.test(document.querySelector('[data-testid=session]')?.textContent ?? ''));
  await screenshot(page, 'sessions-2-resumed');

  // Export: a Markdown file with the questions and references.
  const row = page.locator('[data-testid=session]', { hasText: 'Quokka physics' });
  await row.hover();
  const [download] = await Promise.all([page.waitForEvent('download'), row.locator('[data-testid=session-export]').click()]);
  const path = await download.path();
  const md = readFileSync(path, 'utf8');
  assert(download.suggestedFilename() === 'Quokka physics.md', `file name (${download.suggestedFilename()})`);
  assert(md.includes('quokka energy relation') && md.includes('quokka price'), `the export has the questions (${md.slice(0, 200)})`);

  // Delete the other one (two clicks: confirm).
  const other = page.locator('[data-testid=session]', { hasNotText: 'Quokka physics' });
  await other.hover();
  await other.locator('[data-testid=session-delete]').click();
  await other.locator('[data-testid=session-delete]').click();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=session]').length === 1);
  await page.reload();
  // The session open at the reload opens again, with its three exchanges.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=turn]').length === 3, null, { timeout: 15_000 });
  await page.click('[data-testid=tab-sessions]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=session]').length === 1);
  assert((await page.locator('[data-testid=session]').first().getAttribute('aria-current')) === 'true', 'and is marked open');
  return { bytes: md.length };
}

/** The stats view: empty at first, then the questions asked, per day, with latency bars. */
export async function statsFlow({ page, url, files }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  // Ctrl+I opens it; with no answers it says so.
  await page.keyboard.press('Control+i');
  await page.locator('[data-testid=stats]').waitFor();
  await page.locator('[data-testid=stats-empty]').waitFor({ timeout: 10_000 });
  await screenshot(page, 'stats-1-empty');
  await page.keyboard.press('Escape');
  await page.locator('[data-testid=stats]').waitFor({ state: 'hidden' });

  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForFunction(
    (n) => [...document.querySelectorAll('[data-testid=document]')].filter((d) => d.dataset.status === 'ready').length === n,
    files.length,
    { timeout: READY_TIMEOUT, polling: 250 },
  );
  const questions = ['quokka energy relation', 'quokka sum for every count', 'what is the quokka price'];
  for (const q of questions) {
    const a = await ask(page, q);
    assert((await waitAnswerFinished(page, a)) === 'done', `answer to ${q}`);
  }

  // The header button opens it; the counts are the questions just asked, all today.
  await page.click('[data-testid=stats-button]');
  await page.locator('[data-testid=stats]').waitFor();
  await page.waitForFunction((n) => document.querySelector('[data-testid=stat-questions]')?.textContent?.trim() === String(n), questions.length, { timeout: 10_000 });
  const today = await page.evaluate(() => {
    const d = new Date();
    const p = (n) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
  });
  const bars = await page.locator('[data-testid=day-bar]').evaluateAll((gs) => gs.map((g) => ({ day: g.dataset.day, q: Number(g.dataset.questions), hits: Number(g.dataset.hits) })));
  assert(bars.length === 14, `14 days of bars (${bars.length})`);
  const last = bars[bars.length - 1];
  assert(last.day === today && last.q === questions.length, `today's bar counts the questions (${JSON.stringify(last)})`);
  assert(bars.slice(0, -1).every((b) => b.q === 0), 'no answers on other days');
  const barHeight = await page.locator(`[data-testid=day-bar][data-day="${today}"] rect.miss`).evaluate((r) => Number(r.getAttribute('height')));
  assert(barHeight > 10, `today's bar is drawn (${barHeight})`);
  const hits = (await page.textContent('[data-testid=stat-hits]'))?.trim() ?? '';
  assert(/^\d+/.test(hits), `cache hits shown (${hits})`);
  const latency = await page.locator('[data-testid=latency-bar]').evaluateAll((gs) => gs.map((g) => ({ row: g.dataset.row, kind: g.dataset.kind, p50: Number(g.dataset.p50) })));
  const rows = new Set(latency.map((l) => l.row));
  assert(rows.has('retrieval') && rows.has('total'), `latency bars for retrieval and whole answers (${JSON.stringify(latency)})`);
  assert(latency.every((l) => l.p50 >= 0), 'latencies are durations');
  const label = (await page.getAttribute('[data-testid=chart-days]', 'aria-label')) ?? '';
  assert(label.includes(`${questions.length} answers`), `the chart describes itself (${label})`);
  await screenshot(page, 'stats-2-answers');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForTimeout(200);
  await screenshot(page, 'stats-3-dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Open, it follows new answers.
  await page.keyboard.press('Escape');
  const a = await ask(page, 'quokka code');
  assert((await waitAnswerFinished(page, a)) === 'done', 'fourth answer');
  await page.keyboard.press('Control+i');
  await page.waitForFunction((n) => document.querySelector('[data-testid=stat-questions]')?.textContent?.trim() === String(n), questions.length + 1, { timeout: 10_000 });
  return { questions: questions.length + 1, latency: latency.length, hits };
}

/**
 * Next/previous citation: ] and [ (and Alt+↓/↑ from the question box) walk the answer's
 * inline markers in order; each highlights its sentence in the chat and opens its source
 * with the passage highlighted.
 */
export async function citeStepFlow({ page, url, pdf, question }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  await uploadAndWaitReady(page, pdf);
  const answer = await ask(page, question);
  assert((await waitAnswerFinished(page, answer)) === 'done', 'answer finished');
  const markers = await answer.locator('[data-testid=answer-body] button.cite').evaluateAll((bs) => bs.map((b) => b.dataset.cite));
  assert(markers.length >= 2, `the answer has inline markers (${JSON.stringify(markers)})`);
  const bodyText = squash(await answer.locator('[data-testid=answer-body]').textContent());

  const claimNow = () =>
    page.evaluate(() => {
      const h = CSS.highlights.get('carrel-claim');
      const ranges = h ? [...h] : [];
      const current = document.querySelector('[data-testid=answer-body] button.cite.current-cite');
      const all = [...document.querySelectorAll('[data-testid=answer-body] button.cite')];
      return {
        text: ranges.map((r) => r.toString()).join(' '),
        index: all.indexOf(current),
        announce: document.querySelector('[data-testid=claim-announce]')?.textContent?.trim() ?? '',
      };
    });
  const viewerNow = async () => {
    await page.locator('[data-testid=viewer-page] [data-testid=passage-highlight]').first().waitFor({ timeout: 60_000 });
    let strong = (await page.locator('[data-testid=viewer-page] [data-strong=true]').allTextContents()).join(' ');
    const all = (await page.locator('[data-testid=viewer-page] [data-testid=passage-highlight]').allTextContents()).join(' ');
    if (squash(strong).length <= 10 && (await page.locator('[data-testid=highlight-continue]').count())) {
      // The cited sentence begins at the foot of the cited page: its rest is on the next.
      const shown = Number(await page.inputValue('[data-testid=viewer-page-input]'));
      await page.click('[data-testid=highlight-continue]');
      await page.locator(`[data-testid=viewer-page][data-page="${shown + 1}"] [data-testid=passage-highlight]`).first().waitFor({ timeout: 30_000 });
      strong += ' ' + (await page.locator('[data-testid=viewer-page] [data-strong=true]').allTextContents()).join(' ');
    }
    return { strong, all };
  };

  // ] from the chat: the first marker.
  await page.locator('[data-testid=chat]').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press(']');
  await page.waitForFunction(() => document.querySelector('[data-testid=answer-body] button.cite.current-cite'));
  const first = await claimNow();
  assert(first.index === 0, `] marks the first marker (${first.index})`);
  assert(squash(first.text).length > 15, `the cited sentence is highlighted in the chat (${JSON.stringify(first.text)})`);
  assert(bodyText.includes(squash(first.text)), `the highlight is the answer's own text (${JSON.stringify(first.text)})`);
  assert(first.announce.startsWith(`Citation 1 of ${markers.length}`), `screen readers hear it (${first.announce})`);
  const v1 = await viewerNow();
  assert(squash(v1.all).length > 10, 'the source opens with its passage highlighted');
  // A no-model answer quotes its passages: the sentence highlighted in the viewer is the
  // quoted text highlighted in the chat.
  const strong1 = squash(v1.strong);
  assert(strong1.length > 10 && (squash(first.text).includes(strong1.slice(0, 40)) || strong1.includes(squash(first.text).slice(0, 40))),
    `the viewer's strong highlight is the cited sentence (chat ${JSON.stringify(first.text.slice(0, 80))}, viewer ${JSON.stringify(v1.strong.slice(0, 80))})`);
  await screenshot(page, 'cite-1-first');

  // ] again: the next marker, in order.
  await page.keyboard.press(']');
  await page.waitForFunction(() => {
    const all = [...document.querySelectorAll('[data-testid=answer-body] button.cite')];
    return all.indexOf(document.querySelector('button.cite.current-cite')) === 1;
  });
  const second = await claimNow();
  assert(second.announce.startsWith(`Citation 2 of ${markers.length}`), `second marker (${second.announce})`);
  assert(bodyText.includes(squash(second.text)) && squash(second.text).length > 15, `second sentence highlighted (${JSON.stringify(second.text)})`);
  await viewerNow();
  await screenshot(page, 'cite-2-second');

  // Alt+↑ from the question box goes back; [ before the first wraps to the last.
  await page.click('[data-testid=ask-input]');
  await page.keyboard.press('Alt+ArrowUp');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=answer-body] button.cite')].indexOf(document.querySelector('button.cite.current-cite')) === 0);
  assert((await claimNow()).text === first.text, 'back to the first sentence');
  await page.locator('[data-testid=chat]').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('[');
  await page.waitForFunction((n) => [...document.querySelectorAll('[data-testid=answer-body] button.cite')].indexOf(document.querySelector('button.cite.current-cite')) === n - 1, markers.length);

  // A click on a marker marks its sentence too.
  await answer.locator('[data-testid=answer-body] button.cite').nth(1).click();
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid=answer-body] button.cite')].indexOf(document.querySelector('button.cite.current-cite')) === 1);
  assert((await claimNow()).text === second.text, 'a click marks the same sentence as the shortcut');
  return { markers: markers.length, first: first.text.slice(0, 60), second: second.text.slice(0, 60) };
}

/** Settings: chunk sizes per document type, and switching the library folder. */
export async function settingsFlow({ page, url, files, library, config, scratch }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForFunction(
    (n) => [...document.querySelectorAll('[data-testid=document]')].filter((d) => d.dataset.status === 'ready').length === n,
    files.length,
    { timeout: READY_TIMEOUT, polling: 250 },
  );
  await page.keyboard.press('Control+,');
  await page.locator('[data-testid=settings]').waitFor();

  // ---- chunking ----
  const section = page.locator('[data-testid=chunk-settings]');
  // The number fields are under an Advanced fold, closed at first.
  assert(!(await section.locator('[data-testid=chunk-field-target]').isVisible()), 'chunk sizes are folded away at first');
  await section.locator('[data-testid=chunk-advanced] summary').click();
  await section.locator('[data-testid=chunk-field-target]').waitFor();
  // The header's section links scroll the long panel to a section.
  await page.click('[data-testid=jump-chunk-settings]');
  await page.waitForFunction(() => {
    const r = document.querySelector('[data-testid=chunk-settings] h3')?.getBoundingClientRect();
    const d = document.querySelector('[data-testid=settings]')?.getBoundingClientRect();
    return !!r && !!d && r.top >= d.top && r.bottom <= d.bottom;
  }, null, { timeout: 5_000 });
  const note = (await section.locator('[data-testid=chunk-note]').textContent()) ?? '';
  assert(/added afterwards/.test(note), `the note says when sizes apply (${note})`);
  const fields = await section.locator('input[type=number]').evaluateAll((is) => is.map((i) => i.dataset.testid));
  for (const f of ['target', 'min', 'max', 'overlap']) assert(fields.includes(`chunk-field-${f}`), `a field for ${f} (${fields})`);
  await page.selectOption('[data-testid=chunk-type]', 'paper');
  const defTarget = await page.inputValue('[data-testid=chunk-field-target]');
  // A smallest size above the target is marked at once, and nothing is saved.
  await page.fill('[data-testid=chunk-field-min]', String(Number(defTarget) + 100));
  const inline = (await section.locator('[data-testid=chunk-error-min]').textContent())?.trim() ?? '';
  assert(/target/i.test(inline), `min above target is shown inline (${inline})`);
  await page.fill('[data-testid=chunk-field-overlap]', '0.9');
  assert(/0\.5/.test((await section.locator('[data-testid=chunk-error-overlap]').textContent()) ?? ''), 'overlap out of range shown inline');
  await screenshot(page, 'settings-1-chunk-errors');
  await page.click('[data-testid=chunk-reset]');
  assert((await section.locator('[data-testid^=chunk-error-]').count()) === 0, 'reset clears the errors');
  await page.fill('[data-testid=chunk-field-target]', '1500');
  await page.fill('[data-testid=chunk-field-max]', '2100');
  await page.click('[data-testid=chunk-save]');
  await section.getByText('Saved.').waitFor();
  const saved = JSON.parse(readFileSync(join(library, 'chunking.json'), 'utf8'));
  assert(saved.paper?.target === 1500 && saved.paper?.max === 2100 && Object.keys(saved).length === 1, `chunking.json holds the change (${JSON.stringify(saved)})`);
  await page.reload();
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  await page.keyboard.press('Control+,');
  await section.locator('[data-testid=chunk-advanced] summary').click();
  await page.selectOption('[data-testid=chunk-type]', 'paper');
  assert((await page.inputValue('[data-testid=chunk-field-target]')) === '1500', 'the saved size is shown after a reload');
  await page.click('[data-testid=chunk-reset]');
  await page.click('[data-testid=chunk-save]');
  await section.getByText('Saved.').waitFor();
  assert(!existsSync(join(library, 'chunking.json')), 'all defaults remove chunking.json');

  // Re-chunk: with small sizes saved for every kind of document, the library's documents
  // are cut again into more passages.
  const call = (method, ...args) =>
    page.evaluate(
      async ([m, a]) => (await fetch(`api/call/${m}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(a) })).json(),
      [method, args],
    );
  const passages = async () => (await call('ListDocuments')).reduce((n, d) => n + d.chunks, 0);
  const before = await passages();
  const cs = await call('ChunkSettings');
  const small = Object.fromEntries(
    cs.doc_types.map((t) => [
      t,
      Object.fromEntries(Object.entries(cs.profiles[t]).map(([k, v]) => [k, k.endsWith('target') ? 120 : k.endsWith('min') ? 40 : k.endsWith('max') ? 200 : v])),
    ]),
  );
  await call('SetChunkSettings', small);
  await page.click('[data-testid=chunk-rechunk]');
  const done = (await section.locator('[data-testid=chunk-rechunked]').textContent()) ?? '';
  assert(new RegExp(`Re-chunked ${files.length} documents`).test(done), `re-chunking says what it did (${done})`);
  const after = await passages();
  assert(after > before, `smaller sizes cut the library into more passages (${before} → ${after})`);
  await screenshot(page, 'settings-1b-rechunked');
  await call('SetChunkSettings', cs.defaults);

  // ---- library folder ----
  const folder = page.locator('[data-testid=library-folder]');
  await folder.scrollIntoViewIfNeeded();
  assert((await folder.locator('[data-testid=library-dir]').textContent())?.trim() === library, 'the library folder is shown');
  const tryFolder = async (dir, mode) => {
    await page.fill('[data-testid=library-target]', dir);
    await page.check(`[data-testid=library-mode-${mode}]`);
    await page.click('[data-testid=library-apply]');
  };
  // Errors are clear: not a full path; a folder with other things in it.
  await tryFolder('Study/library', 'open');
  await folder.locator('[data-testid=library-error]').getByText('not a full path').waitFor();
  const busy = join(scratch, 'busy');
  mkdirSync(busy, { recursive: true });
  writeFileSync(join(busy, 'essay.txt'), 'not a library');
  await tryFolder(busy, 'open');
  await folder.locator('[data-testid=library-error]').getByText('not a Carrel library').waitFor();
  await screenshot(page, 'settings-2-folder-error');

  // Open a new, empty folder: a new library, remembered for the next start.
  const fresh = join(scratch, 'fresh');
  await tryFolder(fresh, 'open');
  await page.waitForFunction((d) => document.querySelector('[data-testid=library-dir]')?.textContent?.trim() === d, fresh, { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=document]').length === 0);
  const remembered = JSON.parse(readFileSync(join(config, 'Carrel', 'library.json'), 'utf8'));
  assert(remembered.dir === fresh, `the choice is remembered (${JSON.stringify(remembered)})`);
  assert(existsSync(join(library, 'library.db')), 'the old library stays where it was');

  // Back to the first library: its documents are there again; then move it.
  await tryFolder(library, 'open');
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=document]').length === n, files.length, { timeout: 30_000 });
  const moved = join(scratch, 'moved', 'carrel');
  await tryFolder(moved, 'move');
  await page.waitForFunction((d) => document.querySelector('[data-testid=library-dir]')?.textContent?.trim() === d, moved, { timeout: 30_000 });
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=document][data-status=ready]').length === n, files.length, { timeout: 30_000 });
  assert(!existsSync(library), 'the moved library left its old folder');
  await screenshot(page, 'settings-3-moved');
  // The moved library answers, and its uploads open in the viewer.
  await page.keyboard.press('Escape');
  const a = await ask(page, 'quokka energy relation');
  assert((await waitAnswerFinished(page, a)) === 'done', 'the moved library answers');
  await a.locator('[data-testid=source]').first().click();
  await page.locator('[data-testid=text-view] [data-testid=passage-highlight]').first().waitFor({ timeout: 15_000 });
  return { fields: fields.length, moved };
}

/** First run with Ollama installed but stopped: Start Ollama starts it for real. */
export async function startOllamaFlow({ page, url, chatModel }) {
  await page.goto(url);
  const badge = page.locator('[data-testid=mode-badge]');
  await badge.waitFor({ timeout: 30_000 });
  assert((await badge.getAttribute('data-mode')) === 'no-model', 'no Ollama running: no model');
  await page.click('[data-testid=setup-models]');
  await page.locator('[data-testid=ollama-state][data-reachable=false]').waitFor({ timeout: 15_000 });
  const start = page.locator('[data-testid=start-ollama]');
  await start.waitFor();
  await screenshot(page, 'start-ollama-1-stopped');
  await start.click();
  await page.locator('[data-testid=ollama-state][data-reachable=true]').waitFor({ timeout: 60_000 });
  // The started server's models are listed, and the configured chat model is in use.
  const inUse = page.locator('[data-testid=installed-model][data-role=chat]:has([data-testid=in-use])');
  await inUse.waitFor({ timeout: 15_000 });
  const used = await inUse.getAttribute('data-name');
  assert(used === chatModel || used === `${chatModel}:latest`, `the chat model ${chatModel} is listed and in use (${used})`);
  const names = await page.locator('[data-testid=installed-model]').evaluateAll((ls) => ls.map((l) => l.dataset.name));
  await page.waitForFunction(() => document.querySelector('[data-testid=mode-badge]')?.getAttribute('data-mode') !== 'no-model', null, { timeout: 30_000 });
  const mode = await badge.getAttribute('data-mode');
  await screenshot(page, 'start-ollama-2-running');
  return { models: names, mode };
}

/** Scope: selected documents show as chips by the question box; the question searches only them. */
export async function scopeFlow({ page, url, files }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  await page.setInputFiles('[data-testid=file-input]', files);
  await page.waitForFunction(
    (n) => [...document.querySelectorAll('[data-testid=document]')].filter((d) => d.dataset.status === 'ready').length === n,
    files.length,
    { timeout: READY_TIMEOUT, polling: 250 },
  );
  const physics = page.locator('[data-testid=document]', { hasText: 'Quokka' });
  const title = ((await physics.locator('[data-testid=document-title]').textContent()) ?? '').trim();
  await physics.locator('[data-testid=document-select]').check();
  const chips = await page.locator('[data-testid=scope-chip]').allTextContents();
  assert(chips.length === 1 && chips[0].includes(title.replace(/…$/, '').slice(0, 10)), `a chip names the selected document (${JSON.stringify(chips)}, ${title})`);
  await screenshot(page, 'scope-1-chip');

  // A question about words of both documents: scoped, only the selected one answers
  // (and it must answer: a scoped search that finds nothing fails here).
  const q = 'Zanzibar payload guide: read the script, and the quokka energy relation';
  const a = await ask(page, q);
  assert((await waitAnswerFinished(page, a)) === 'done', 'scoped answer finished');
  const labels = await a.locator('[data-testid=source]').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label') ?? ''));
  // Not `every` alone: on an empty list it holds, and a scoped search that found nothing
  // must fail here.
  assert(labels.length > 0, 'the scoped question found passages in the selected document');
  assert(labels.every((l) => /quokka/i.test(l)), `every source is the selected document (${JSON.stringify(labels)})`);
  const scopeNote = (await page.locator('[data-testid=question]').last().textContent()) ?? '';
  assert(/In Quokka/i.test(scopeNote), `the question says what it searched (${scopeNote})`);
  const turnText = (await a.textContent()) ?? '';
  assert(!/pwn\(|onerror/.test(turnText), 'nothing of the unselected document was quoted');

  // The chip's × leaves the whole library in scope again.
  await page.locator('[data-testid=scope-chip] button').click();
  await page.locator('[data-testid=scope-chips]').waitFor({ state: 'detached' });
  assert(!(await physics.locator('[data-testid=document-select]').isChecked()), 'the document is no longer selected');
  const b = await ask(page, q);
  assert((await waitAnswerFinished(page, b)) === 'done', 'unscoped answer finished');
  const all = await b.locator('[data-testid=source]').evaluateAll((bs) => bs.map((x) => x.getAttribute('aria-label') ?? ''));
  assert(all.some((l) => !/quokka/i.test(l)), `the whole library is searched again (${JSON.stringify(all)})`);
  return { chips, scoped: labels.length, unscoped: all.length };
}

/** Stats with the answer cache: a repeated question counts as a cache hit, drawn green. */
export async function statsCacheFlow({ page, url, file }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  await uploadAndWaitReady(page, file);
  const question = 'What is the quokka energy relation?';
  // An answer the tiny model looped on until Ollama cut it is rightly not cached: ask
  // until one is whole (as the cache flow does).
  let asked = 0;
  for (;;) {
    const a = await ask(page, question);
    asked++;
    assert((await waitAnswerFinished(page, a)) === 'done', 'the answer finishes');
    const note = (await a.locator('[data-testid=answer-note]').count()) ? await a.locator('[data-testid=answer-note]').innerText() : '';
    if (!/stopped early/.test(note)) break;
    assert(asked < 5, 'five answers in a row were cut off');
  }
  const again = await ask(page, question);
  asked++;
  assert((await waitAnswerFinished(page, again)) === 'done', 'the repeated answer finishes');
  await again.locator('[data-testid=answer-cached]').waitFor({ timeout: 10_000 });

  await page.keyboard.press('Control+i');
  await page.waitForFunction((n) => document.querySelector('[data-testid=stat-questions]')?.textContent?.trim() === String(n), asked, { timeout: 10_000 });
  const hits = (await page.textContent('[data-testid=stat-hits]'))?.replace(/\s+/g, ' ').trim() ?? '';
  assert(hits.startsWith('1 '), `one cache hit (${hits})`);
  const today = await page.locator('[data-testid=day-bar]').last().evaluate((g) => ({ q: Number(g.dataset.questions), hits: Number(g.dataset.hits), green: !!g.querySelector('rect.hit') }));
  assert(today.q === asked && today.hits === 1 && today.green, `today's bar has its cache hit on top (${JSON.stringify(today)})`);
  const share = (await page.textContent('[data-testid=chart-cache]'))?.replace(/\s+/g, ' ') ?? '';
  assert(/1 cached/.test(share) && new RegExp(`${asked - 1} answered`).test(share), `the cache bar splits the answers (${share})`);
  const kinds = await page.locator('[data-testid=latency-bar]').evaluateAll((gs) => gs.map((g) => `${g.dataset.row}/${g.dataset.kind}`));
  assert(kinds.includes('total/hit') && kinds.includes('total/miss'), `latency of cached and answered answers (${JSON.stringify(kinds)})`);
  await screenshot(page, 'stats-4-cache');
  return { asked, hits, kinds };
}

/**
 * A talk's slides, one per page: the passage answering a question spans several slides,
 * and its citation opens on the slide that says it (known from pdftotext), not on the
 * passage's first, naming that page; the highlight is on it. No model: the word index
 * finds the passage whole.
 */
export async function slidesFlow({ page, url, pdf }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  const slide = pdfText(pdf).findIndex((t) => t.includes(squash('25,326 lines'))) + 1;
  assert(slide > 1, `pdftotext finds the slide saying "25,326 lines" (${slide})`);
  await uploadAndWaitReady(page, pdf);
  const answer = await ask(page, 'How many lines does including iostream pull in, compared with import "fmt"?');
  const state = await waitAnswerFinished(page, answer);
  assert(state === 'done', `answer finished (state ${state})`);
  const sources = answer.locator('[data-testid=source]');
  const labels = await sources.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') ?? ''));
  const i = labels.findIndex((l) => l.endsWith(`page ${slide}`));
  assert(i >= 0, `a source names slide ${slide}, where the answer is (${labels.join(' | ')})`);
  await sources.nth(i).click();
  await page.locator(`[data-testid=viewer-page][data-page="${slide}"]`).waitFor({ timeout: 60_000 });
  const input = await page.inputValue('[data-testid=viewer-page-input]');
  assert(input === String(slide), `the viewer opens on slide ${slide} (page box says ${input})`);
  const hl = page.locator('[data-testid=viewer-page] [data-testid=passage-highlight]');
  await hl.first().waitFor({ timeout: 30_000 });
  const status = ((await page.locator('[data-testid=highlight-status]').textContent()) ?? '').replace(/\s+/g, ' ');
  const from = Number(/continued from page (\d+)/.exec(status)?.[1] ?? '0');
  assert(from > 0 && from < slide, `the bar says the passage began on an earlier slide (${status})`);
  await screenshot(page, 'slides-1-focus');
  return { slide, from, highlights: await hl.count() };
}
