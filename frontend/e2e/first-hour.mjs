// A student's first hour (issue 19), in search mode (no Ollama) at 1024×700: one notice
// that goes away, a layout that holds, a library list that reads well, passages that show
// why they were picked, help and a theme anywhere.

import { assert, screenshot } from './harness.mjs';
import { ask, uploadAndWaitReady, waitAnswerFinished } from './flows.mjs';

const READY_TIMEOUT = 180_000;

/** Elements cut off by the window or by their own pane, and whether the page overflows. */
async function layoutProblems(page) {
  return page.evaluate(() => {
    const out = [];
    const W = innerWidth;
    const H = innerHeight;
    const de = document.documentElement;
    if (de.scrollWidth > W) out.push(`page scrolls sideways: ${de.scrollWidth} > ${W}`);
    if (de.scrollHeight > H) out.push(`page scrolls down: ${de.scrollHeight} > ${H}`);
    const panes = ['[data-testid=side]', '[data-testid=chat]', '[data-testid=viewer]', 'header.header'];
    for (const sel of panes) {
      const pane = document.querySelector(sel);
      if (!pane) continue;
      const pr = pane.getBoundingClientRect();
      for (const el of pane.querySelectorAll('button, input, select, [role=toolbar] *')) {
        const r = el.getBoundingClientRect();
        if (!r.width || !r.height) continue; // not shown
        if (getComputedStyle(el).visibility === 'hidden') continue;
        // Inside the window, and inside its pane horizontally (a pane's own scroller may
        // hold it below the fold, which is not cut off).
        const name = `${sel} ${el.tagName.toLowerCase()}[${el.getAttribute('data-testid') || el.getAttribute('aria-label') || el.textContent?.trim().slice(0, 20)}]`;
        if (r.right > W + 0.5 || r.left < -0.5) out.push(`${name} outside the window (${Math.round(r.left)}–${Math.round(r.right)})`);
        if (r.right > pr.right + 0.5 || r.left < pr.left - 0.5) out.push(`${name} cut by its pane (${Math.round(r.left)}–${Math.round(r.right)} in ${Math.round(pr.left)}–${Math.round(pr.right)})`);
      }
    }
    return out;
  });
}

export async function firstHourFlow({ page, url, pdf, note, empty, broken }) {
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.goto(url);
  const badge = page.locator('[data-testid=mode-badge]');
  await badge.waitFor({ timeout: 30_000 });
  assert((await badge.getAttribute('data-mode')) === 'no-model', 'no Ollama: search mode');

  // 1. One notice, dismissible, remembered; no crossed-out model names.
  const notice = page.locator('[data-testid=mode-notice]');
  assert((await notice.count()) === 1, 'one search-mode notice');
  assert((await page.locator('[data-testid=models]').count()) === 0, 'no unavailable model names in the header');
  assert((await page.locator('[data-testid=setup-card]').count()) === 0, 'no second setup card in the chat');
  await page.click('[data-testid=setup-models]');
  await page.locator('[data-testid=settings]').waitFor();
  // Not installed here: install steps for this system, no terminal-only advice.
  const steps = page.locator('[data-testid=install-steps]');
  await steps.waitFor({ timeout: 15_000 });
  assert((await steps.getAttribute('data-os')) === 'linux', 'steps for this system first');
  assert((await steps.locator('ol li').count()) >= 2, 'numbered install steps');
  await page.keyboard.press('Escape');
  await page.click('[data-testid=mode-notice-dismiss]');
  await notice.waitFor({ state: 'detached' });
  await page.reload();
  await badge.waitFor();
  assert((await notice.count()) === 0, 'the dismissed notice stays dismissed');

  // 4. The viewer is collapsed until a source is opened.
  assert((await page.locator('[data-testid=viewer]').count()) === 0, 'the viewer starts collapsed');
  assert((await page.locator('[data-testid=chat]').boundingBox()).width > 600, 'the answer column gets the room at 1024');

  // 5. The library list.
  await uploadAndWaitReady(page, pdf);
  await page.setInputFiles('[data-testid=file-input]', [note, empty, broken]);
  await page.waitForFunction(
    () => {
      const ds = [...document.querySelectorAll('[data-testid=document]')];
      return ds.length === 4 && ds.every((d) => d.dataset.status === 'ready' || d.dataset.status === 'failed');
    },
    null,
    { timeout: READY_TIMEOUT, polling: 250 },
  );
  const listed = await page.locator('[data-testid=document-list] [data-testid=document]').count();
  const failures = page.locator('[data-testid=library-failures] [data-testid=document][data-status=failed]');
  assert(listed === 2 && (await failures.count()) === 2, `documents listed apart from the 2 failures (${listed})`);
  const tab = (await page.locator('[data-testid=tab-library] .count').textContent())?.trim();
  assert(tab === '2', `failures are not counted as documents (${tab})`);
  for (const h of await failures.evaluateAll((ds) => ds.map((d) => d.getBoundingClientRect().height))) {
    assert(h < 60, `a failure takes one compact row (${h}px)`);
  }
  const emptyRow = failures.filter({ hasText: 'empty' });
  assert((await emptyRow.count()) === 1, 'the empty file failed as empty');
  assert((await emptyRow.locator('[data-testid=document-retry]').count()) === 0, 'no Retry for a 0-byte file');
  assert((await failures.filter({ hasNotText: 'empty' }).locator('[data-testid=document-retry]').count()) === 1, 'Retry for the broken one');
  const kinds = await page.locator('[data-testid=document-list] [data-testid=document-kind]').allTextContents();
  assert(kinds.includes('Markdown') && kinds.includes('PDF'), `kinds as a student knows them (${kinds})`);
  // Titles are not cut by badges: the badges sit below the title, and the title fits its row.
  const overlap = await page.locator('[data-testid=document-list] [data-testid=document]').evaluateAll((ds) =>
    ds.flatMap((d) => {
      const t = d.querySelector('[data-testid=document-title]').getBoundingClientRect();
      return [...d.querySelectorAll('.kind')].filter((k) => k.getBoundingClientRect().top < t.bottom - 1).map((k) => k.textContent);
    }),
  );
  assert(overlap.length === 0, `no badge beside a title (${overlap})`);
  const ocr = await page.locator('[data-testid=document-ocr]').allTextContents();
  assert(ocr.every((l) => /^(\d+ pages? OCR'd|Scanned)$/.test(l.trim())), `the OCR badge says how much (${ocr})`);
  // Adding a document already there says so.
  await page.setInputFiles('[data-testid=file-input]', pdf);
  await page.locator('[data-testid=toast]', { hasText: 'Already in your library' }).waitFor({ timeout: 10_000 });
  await screenshot(page, 'first-1-library');

  // 2, 3. Passages show why they were picked, strongest first.
  // Walden.pdf (pdfcpu's 2-page excerpt): the visitors' cards are ~900 characters into
  // the Solitude page, past a first-400-characters excerpt.
  const a1 = await ask(page, 'Who left cards when visitors came to the house?');
  assert((await waitAnswerFinished(page, a1)) === 'done', 'answer finished');
  const marked = (await a1.locator('[data-testid=answer-body] blockquote mark.match').allTextContents()).map((w) => w.toLowerCase());
  assert(marked.includes('visitors') && marked.includes('cards'), `the question's words are marked in the excerpts (${marked})`);
  const quote = (await a1.locator('[data-testid=answer-body] blockquote', { has: page.locator('mark.match', { hasText: /cards/i }) }).first().textContent()) ?? '';
  assert(/When I return to my house I find that visitors have been there and left their cards/.test(quote.replace(/\s+/g, ' ')), `the excerpt holds the matching sentence (${quote.slice(0, 200)})`);
  const groups = await a1.locator('[data-testid=answer-body] h4').allTextContents();
  assert(groups[0] === 'Close matches', `close matches first (${groups})`);
  assert((await a1.locator('[data-testid=answer-note]').count()) === 0, 'no no-model warning under the answer');

  const a2 = await ask(page, 'exam tips');
  assert((await waitAnswerFinished(page, a2)) === 'done', 'answer finished');
  const md = a2.locator('[data-testid=answer-body] blockquote', { hasText: 'Exam tips' }).first();
  assert((await md.locator('h2, h3').count()) >= 1 && (await md.locator('li').count()) >= 2, 'the Markdown note is rendered as Markdown');
  assert(!/##/.test((await md.textContent()) ?? ''), 'no raw Markdown');

  // A question nothing answers well: said so, not dressed as a close match.
  const a3 = await ask(page, 'pond quantum chromodynamics lattice gauge');
  assert((await waitAnswerFinished(page, a3)) === 'done', 'answer finished');
  const weak = (await a3.locator('[data-testid=answer-body]').textContent()) ?? '';
  const weakGroups = await a3.locator('[data-testid=answer-body] h4').allTextContents();
  assert(/not in your documents|matched this question closely/i.test(weak) || !weakGroups.includes('Close matches'), `weak matches are not called close (${weak.slice(0, 120)})`);
  await screenshot(page, 'first-2-answers');

  // 8. Focus on a marker out of view opens its own card, at it.
  // The chat scrolled to its end: the first answer's markers are out of view.
  await page.locator('[data-testid=chat] .scroller').evaluate((s) => (s.scrollTop = s.scrollHeight));
  const out = await a1.locator('[data-testid=answer-body] button.cite').last().boundingBox();
  const scrollerBox = await page.locator('[data-testid=chat] .scroller').boundingBox();
  const wasHidden = out.y + out.height < scrollerBox.y || out.y > scrollerBox.y + scrollerBox.height;
  const marker = a1.locator('[data-testid=answer-body] button.cite').last();
  await marker.focus();
  const tip = page.locator('[data-testid=citation-tooltip]');
  await tip.waitFor({ timeout: 5_000 });
  await page.waitForTimeout(100);
  const [mr, tr] = [await marker.boundingBox(), await tip.boundingBox()];
  assert((await tip.getAttribute('data-cite')) === (await marker.getAttribute('data-cite')), 'the card is the focused marker\'s');
  assert(mr.y >= scrollerBox.y - 1 && mr.y + mr.height <= scrollerBox.y + scrollerBox.height + 1, `the focused marker is in view (${mr.y}; it was hidden: ${wasHidden})`);
  const gap = Math.min(Math.abs(tr.y + tr.height - mr.y), Math.abs(mr.y + mr.height - tr.y));
  assert(gap < 16, `the card sits at its marker (gap ${gap}px)`);

  // 4. Open a source: the viewer opens; nothing is cut off or overflows at 1024×700.
  await marker.click();
  await page.locator('[data-testid=viewer-page]').first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(300);
  const problems = await layoutProblems(page);
  assert(problems.length === 0, `nothing cut off at 1024×700:\n  ${problems.join('\n  ')}`);
  await screenshot(page, 'first-3-viewer-1024');
  // The same at 1440×900 (README screenshots): still nothing cut off.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.waitForTimeout(400);
  assert((await layoutProblems(page)).length === 0, `nothing cut off at 1440×900: ${(await layoutProblems(page)).join('; ')}`);
  await screenshot(page, 'first-3-viewer-1440');
  await page.setViewportSize({ width: 1024, height: 700 });
  await page.waitForTimeout(400);
  // Resizable panes, remembered.
  const split = page.locator('[data-testid=split-viewer]');
  const before = (await page.locator('[data-testid=viewer]').boundingBox()).width;
  const sb = await split.boundingBox();
  await page.mouse.move(sb.x + sb.width / 2, sb.y + 200);
  await page.mouse.down();
  // At 1024 the chat keeps its minimum, so the viewer is as wide as it can be: narrower.
  await page.mouse.move(sb.x + 50, sb.y + 200, { steps: 5 });
  await page.mouse.up();
  const wider = (await page.locator('[data-testid=viewer]').boundingBox()).width;
  assert(wider < before - 30, `dragging the border resizes the viewer (${before} → ${wider})`);
  assert((await layoutProblems(page)).length === 0, 'still nothing cut off after resizing');
  // 4. A new session does not keep the previous page open.
  await page.locator('[data-testid=chat]').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('Control+n');
  await page.locator('[data-testid=chat-empty]').waitFor();
  assert((await page.locator('[data-testid=viewer-page]').count()) === 0, 'a new session has no page open');
  assert((await page.locator('[data-testid=viewer]').count()) === 0, 'and the viewer is collapsed again');
  await page.reload();
  await badge.waitFor();
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('carrel.layout') ?? '{}'));
  assert(Math.abs(stored.viewer - wider) < 12, `the viewer width is remembered (${JSON.stringify(stored)} vs ${wider})`);

  // 8. `?` shows the shortcuts anywhere; so does the help button.
  await page.locator('[data-testid=library-filter]').click();
  await page.keyboard.press('Escape');
  await page.locator('[data-testid=tab-library]').focus();
  await page.keyboard.press('Shift+?');
  const help = page.locator('[data-testid=shortcuts-help]');
  await help.waitFor();
  assert((await help.locator('kbd').count()) >= 8, 'the shortcut list');
  await page.keyboard.press('Escape');
  await help.waitFor({ state: 'hidden' });
  await page.click('[data-testid=help-button]');
  await help.waitFor();
  await page.keyboard.press('Escape');

  // 7. Settings: chunk sizes are Advanced. Stats: the student's figures first.
  await page.keyboard.press('Control+,');
  await page.locator('[data-testid=chunk-advanced]').waitFor();
  assert(!(await page.locator('[data-testid=chunk-field-target]').isVisible()), 'no number fields until Advanced is opened');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Control+i');
  await page.locator('[data-testid=stats-student]').waitFor({ timeout: 10_000 });
  const firstTiles = await page.locator('[data-testid=stats-student] dt').allTextContents();
  assert(/Questions asked/.test(firstTiles[0]) && firstTiles.some((t) => /Study sessions/.test(t)), `student figures lead (${firstTiles})`);
  const [student, engine] = [await page.locator('[data-testid=stats-student]').boundingBox(), await page.locator('[data-testid=stats-engine]').boundingBox()];
  assert(engine.y > student.y, 'engine figures below');
  await page.keyboard.press('Escape');

  // 8. Theme: system → light → dark → system; the text colours keep AA in each.
  const theme = page.locator('[data-testid=theme-button]');
  const seen = [];
  for (let i = 0; i < 3; i++) {
    await theme.click();
    seen.push(`${await theme.getAttribute('data-theme-choice')}/${await page.evaluate(() => document.documentElement.dataset.theme)}`);
  }
  assert(JSON.stringify(seen) === JSON.stringify(['light/light', 'dark/dark', 'system/light']), `the theme cycles (${seen})`);
  await theme.click();
  await theme.click(); // dark
  await page.reload();
  await badge.waitFor();
  assert((await page.evaluate(() => document.documentElement.dataset.theme)) === 'dark', 'the theme is remembered');
  await screenshot(page, 'first-4-dark');
  return { marked: marked.length, groups, wider, theme: seen };
}
