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

/** Letters and digits only, lower case: texts compare alike however they were spaced. */
const squash = (s) => (s ?? '').normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * Text drawn below WCAG AA contrast: every visible element with text of its own (and
 * every placeholder), its colour against the background it is painted on (the ancestors'
 * backgrounds composed, translucent ones blended), 4.5:1 (3:1 for large text). Computed
 * from the CSS the browser applied, in the theme shown. Disabled controls are exempt (as
 * in WCAG); the PDF page (pdf.js's invisible text layer over the canvas) is skipped.
 */
async function contrastProblems(page, root = 'body') {
  return page.evaluate((root) => {
    const parse = (c) => {
      let m = /^rgba?\(([^)]+)\)$/.exec(c);
      if (m) {
        const p = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
        return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
      }
      m = /^color\(srgb ([^)]+)\)$/.exec(c);
      if (m) {
        const p = m[1].split(/[\s/]+/).filter(Boolean).map(Number);
        return [p[0] * 255, p[1] * 255, p[2] * 255, p.length > 3 ? p[3] : 1];
      }
      return null;
    };
    const over = (top, under) => {
      const a = top[3];
      return [0, 1, 2].map((i) => top[i] * a + under[i] * (1 - a)).concat(1);
    };
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const ratio = (a, b) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
      return (x + 0.05) / (y + 0.05);
    };
    // The colour behind el: its own and its ancestors' backgrounds, top first, composed
    // down to the first opaque one. null when an image or gradient is involved.
    const behind = (el) => {
      const layers = [];
      for (let e = el; e; e = e.parentElement) {
        const cs = getComputedStyle(e);
        if (cs.backgroundImage !== 'none') return null;
        const c = parse(cs.backgroundColor);
        if (c && c[3] > 0) {
          layers.push(c);
          if (c[3] >= 1) break;
        }
      }
      let bg = [255, 255, 255, 1];
      for (const l of layers.reverse()) bg = over(l, bg);
      return bg;
    };
    const name = (el) => {
      const id = el.closest('[data-testid]')?.getAttribute('data-testid') ?? '';
      return `${id} ${el.tagName.toLowerCase()}${el.className && typeof el.className === 'string' ? '.' + el.className.split(/\s+/)[0] : ''} "${(el.textContent || el.placeholder || '').trim().slice(0, 30)}"`;
    };
    const out = [];
    const seen = new Set();
    const check = (el, color, text, cs) => {
      const fg = parse(color);
      if (!fg || fg[3] === 0) return;
      let alpha = fg[3];
      for (let e = el; e; e = e.parentElement) alpha *= Number(getComputedStyle(e).opacity);
      const bg = behind(el);
      if (!bg) return;
      const shown = over([fg[0], fg[1], fg[2], alpha], bg);
      const size = parseFloat(cs.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(cs.fontWeight) >= 700);
      const r = ratio(shown, bg);
      const need = large ? 3 : 4.5;
      const key = `${name(el)} ${r.toFixed(2)}`;
      if (r < need && !seen.has(key)) {
        seen.add(key);
        out.push(`${name(el)}${text ? '' : ' (placeholder)'}: ${r.toFixed(2)}:1 < ${need} (${color} on rgb(${bg.slice(0, 3).map(Math.round)}))`);
      }
    };
    for (const el of document.querySelectorAll(`${root} *`)) {
      if (el.closest('[data-testid=viewer-page], [aria-hidden=true], svg, :disabled, [inert]')) continue;
      const r = el.getBoundingClientRect();
      if (!r.width || !r.height || r.bottom < 0 || r.top > innerHeight || r.right < 0 || r.left > innerWidth) continue;
      const cs = getComputedStyle(el);
      if (cs.visibility !== 'visible' || cs.display === 'none') continue;
      if ((el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') && el.placeholder && !el.value) {
        check(el, getComputedStyle(el, '::placeholder').color, false, cs);
      }
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.data.trim());
      if (own) check(el, cs.color, true, cs);
    }
    return out;
  }, root);
}

/** Asserts AA contrast of the texts under root (see contrastProblems). */
async function assertContrast(page, what, root = 'body') {
  const problems = await contrastProblems(page, root);
  assert(problems.length === 0, `text contrast AA (${what}):\n  ${problems.join('\n  ')}`);
}

/**
 * Records the library's progress rows while a document is added: each distinct state of
 * the status text, the bar's aria-valuenow and the width it is drawn to.
 */
async function watchProgress(page) {
  await page.evaluate(() => {
    window.__progress = [];
    const seen = new Set();
    const sample = () => {
      for (const d of document.querySelectorAll('[data-testid=document]')) {
        const bar = d.querySelector('[data-testid=document-progress]');
        if (!bar) continue;
        const s = {
          label: d.querySelector('[data-testid=document-status]')?.textContent?.trim() ?? '',
          now: bar.getAttribute('aria-valuenow'),
          width: bar.querySelector('span')?.style.width ?? '',
        };
        const key = JSON.stringify(s);
        if (!seen.has(key)) {
          seen.add(key);
          window.__progress.push(s);
        }
      }
    };
    window.__progressObserver?.disconnect();
    window.__progressObserver = new MutationObserver(sample);
    window.__progressObserver.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  });
}

export async function firstHourFlow({ page, url, pdf, gopdf, note, empty, broken }) {
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
  await assertContrast(page, 'the first screen, its notice');
  await page.click('[data-testid=setup-models]');
  await page.locator('[data-testid=settings]').waitFor();
  // Not installed here: install steps for this system, no terminal-only advice.
  const steps = page.locator('[data-testid=install-steps]');
  await steps.waitFor({ timeout: 15_000 });
  assert((await steps.getAttribute('data-os')) === 'linux', 'steps for this system first');
  assert((await steps.locator('ol li').count()) >= 2, 'numbered install steps');
  await assertContrast(page, 'settings with the install steps', '[data-testid=settings]');
  await page.keyboard.press('Escape');
  await page.click('[data-testid=mode-notice-dismiss]');
  await notice.waitFor({ state: 'detached' });
  await page.reload();
  await badge.waitFor();
  assert((await notice.count()) === 0, 'the dismissed notice stays dismissed');

  // 4. The viewer is collapsed until a source is opened.
  assert((await page.locator('[data-testid=viewer]').count()) === 0, 'the viewer starts collapsed');
  assert((await page.locator('[data-testid=chat]').boundingBox()).width > 600, 'the answer column gets the room at 1024');

  // 5. The library list. While the book is read, its text and its bar say the same.
  await watchProgress(page);
  await uploadAndWaitReady(page, pdf);
  const progress = await page.evaluate(() => window.__progress);
  const determinate = progress.filter((p) => p.now !== null);
  assert(determinate.length >= 2, `the bar moved while the book was read (${JSON.stringify(progress.slice(0, 5))})`);
  for (const p of progress) {
    const pct = /\((\d+)%\)/.exec(p.label)?.[1];
    if (pct !== undefined) {
      // The bar is drawn to the exact fraction; the text and aria-valuenow round it.
      assert(p.now === pct && Math.abs(parseFloat(p.width) - Number(pct)) <= 0.5, `text and bar agree: ${JSON.stringify(p)}`);
    } else {
      assert(p.now === null, `a bar with a value has its percentage in the text: ${JSON.stringify(p)}`);
    }
    const m = /page (\d+) of (\d+)/.exec(p.label);
    assert(!m || m[1] !== m[2], `no "page N of N" while the work goes on: ${p.label}`);
  }
  await page.setInputFiles('[data-testid=file-input]', [gopdf, note, empty, broken]);
  await page.waitForFunction(
    () => {
      const ds = [...document.querySelectorAll('[data-testid=document]')];
      return ds.length === 5 && ds.every((d) => d.dataset.status === 'ready' || d.dataset.status === 'failed');
    },
    null,
    { timeout: READY_TIMEOUT, polling: 250 },
  );
  const listed = await page.locator('[data-testid=document-list] [data-testid=document]').count();
  const failures = page.locator('[data-testid=library-failures] [data-testid=document][data-status=failed]');
  assert(listed === 3 && (await failures.count()) === 2, `documents listed apart from the 2 failures (${listed})`);
  const tab = (await page.locator('[data-testid=tab-library] .count').textContent())?.trim();
  assert(tab === '3', `failures are not counted as documents (${tab})`);
  // The failures sit below the documents, not above them.
  const lastDoc = await page.locator('[data-testid=document-list] [data-testid=document]').last().boundingBox();
  assert((await failures.first().boundingBox()).y > lastDoc.y, 'failures below the documents');
  for (const h of await failures.evaluateAll((ds) => ds.map((d) => d.getBoundingClientRect().height))) {
    assert(h < 70, `a failure takes a compact row (${h}px)`);
  }
  const emptyRow = failures.filter({ hasText: 'empty' });
  assert((await emptyRow.count()) === 1, 'the empty file failed as empty');
  assert((await emptyRow.locator('[data-testid=document-retry]').count()) === 0, 'no Retry for a 0-byte file');
  const png = failures.filter({ hasText: 'lecture.pdf' });
  const pngWhy = (await png.locator('[data-testid=document-error]').getAttribute('title')) ?? '';
  assert(/not a PDF: it looks like a PNG image/.test(pngWhy), `the photo named .pdf is named for what it is (${pngWhy})`);
  // The row shows the name once, then what is wrong (its two lines reach it).
  const pngShown = ((await png.locator('[data-testid=document-error]').textContent()) ?? '').trim();
  assert(/^A \.pdf file that is not a PDF/.test(pngShown), `the reason under the name starts with what is wrong (${pngShown})`);
  const kinds = await page.locator('[data-testid=document-list] [data-testid=document-kind]').allTextContents();
  assert(kinds.includes('Markdown') && kinds.filter((k) => k === 'PDF').length === 2, `kinds as a student knows them (${kinds})`);
  // Titles are not cut by badges: the badges sit below the title, and the title fits its row.
  const overlap = await page.locator('[data-testid=document-list] [data-testid=document]').evaluateAll((ds) =>
    ds.flatMap((d) => {
      const t = d.querySelector('[data-testid=document-title]').getBoundingClientRect();
      return [...d.querySelectorAll('.kind')].filter((k) => k.getBoundingClientRect().top < t.bottom - 1).map((k) => k.textContent);
    }),
  );
  assert(overlap.length === 0, `no badge beside a title (${overlap})`);
  // Nor by anything else: each title is shown whole in the default pane (the row's hidden
  // actions once took a column and cut "The Go Programming Language" to "The Go Program…").
  const cut = await page
    .locator('[data-testid=document-list] [data-testid=document-title]')
    .evaluateAll((ts) => ts.filter((t) => t.scrollHeight > t.clientHeight + 1 || t.scrollWidth > t.clientWidth + 1).map((t) => t.textContent.trim()));
  const titles = (await page.locator('[data-testid=document-list] [data-testid=document-title]').allTextContents()).map((t) => t.trim());
  assert(titles.includes('The Go Programming Language') && cut.length === 0, `titles shown whole (${titles}; cut: ${cut})`);
  // The row's actions, shown on hover, cover nothing that can be clicked (the title opens
  // the document; Quiz, due and Stop are buttons too).
  for (const row of await page.locator('[data-testid=document-list] [data-testid=document]').all()) {
    await row.hover();
    const covered = await row.evaluate((d) => {
      const a = d.querySelector('.actions')?.getBoundingClientRect();
      if (!a) return [];
      return [...d.querySelectorAll('.body button, .body a')]
        .filter((b) => {
          const r = b.getBoundingClientRect();
          return r.width && r.left < a.right && r.right > a.left && r.top < a.bottom && r.bottom > a.top;
        })
        .map((b) => b.textContent.trim().slice(0, 30));
    });
    assert(covered.length === 0, `hover actions cover ${covered}`);
  }
  await page.mouse.move(0, 0);
  // One page of each book was read by OCR: the badge says one page, not "OCR" or "Scanned".
  const ocr = await page.locator('[data-testid=document-ocr]').allTextContents();
  assert(ocr.length >= 1 && ocr.every((l) => /^\d+ pages? OCR'd$/.test(l.trim())), `the OCR badge says how much (${ocr})`);
  // Adding a document already there says so.
  await page.setInputFiles('[data-testid=file-input]', pdf);
  await page.locator('[data-testid=toast]', { hasText: 'Already in your library' }).waitFor({ timeout: 10_000 });
  assert((await page.locator('[data-testid=document]').count()) === 5, 'and it is not listed twice');
  await screenshot(page, 'first-1-library');

  // 2, 3. Passages show why they were picked, strongest first.
  // Walden: the visitors' cards are ~900 characters into its passage of the Solitude
  // chapter, past a first-400-characters excerpt.
  const a1 = await ask(page, 'Who left cards when visitors came to the house?');
  assert((await waitAnswerFinished(page, a1)) === 'done', 'answer finished');
  const marked = (await a1.locator('[data-testid=answer-body] blockquote mark.match').allTextContents()).map((w) => w.toLowerCase());
  assert(marked.includes('visitors') && marked.includes('cards'), `the question's words are marked in the excerpts (${marked})`);
  const quote = (await a1.locator('[data-testid=answer-body] blockquote', { has: page.locator('mark.match', { hasText: /cards/i }) }).first().textContent()) ?? '';
  assert(/When I return to my house I find that visitors have been there and left their cards/.test(quote.replace(/\s+/g, ' ')), `the excerpt holds the matching sentence (${quote.slice(0, 200)})`);
  const groups = await a1.locator('[data-testid=answer-body] h4').allTextContents();
  assert(groups[0] === 'Close matches', `close matches first (${groups})`);
  assert((await a1.locator('[data-testid=answer-note]').count()) === 0, 'no no-model warning under the answer');
  // The whole passage is a click away, and the excerpt a click back.
  const q1 = a1.locator('[data-testid=answer-body] blockquote').first();
  await q1.locator('button.cite').hover();
  const passage = (await page.locator('[data-testid=citation-tooltip]').getAttribute('data-passage')) ?? '';
  await page.mouse.move(0, 0);
  const excerpt = (await q1.textContent()) ?? '';
  assert(squash(passage).length > squash(excerpt).length + 40, `the first quote is an excerpt (${excerpt.length} of ${passage.length} characters)`);
  await q1.locator('[data-testid=whole-passage]').click();
  await q1.locator('[data-testid=whole-passage][aria-expanded=true]').waitFor({ timeout: 5_000 });
  const wholeText = (await q1.textContent()) ?? '';
  assert(squash(wholeText).includes(squash(passage)), `"Show the whole passage" shows all of it (${wholeText.length} characters for ${passage.length})`);
  assert((await q1.locator('mark.match').count()) >= 2, 'its matched words are still marked');
  await q1.locator('[data-testid=whole-passage]').click();
  await q1.locator('[data-testid=whole-passage][aria-expanded=false]').waitFor({ timeout: 5_000 });
  assert(squash(await q1.textContent()) === squash(excerpt), 'and the excerpt comes back');

  // A student's next question: short words after a question on another subject. Without
  // a model the follow-up rule attaches the previous question ("exam tips (following up
  // on: How does bufio.Scanner read lines?)"); the answer must still be judged by the
  // words asked: the note is the close match, the bufio passages only possibly related.
  const ab = await ask(page, 'How does bufio.Scanner read lines?');
  assert((await waitAnswerFinished(page, ab)) === 'done', 'answer finished');
  const bufioFirst = (await ab.locator('[data-testid=answer-body] p strong').first().textContent())?.trim();
  assert(bufioFirst === 'The Go Programming Language', `the Go chapter answers the bufio question (${bufioFirst})`);
  const a2 = await ask(page, 'exam tips');
  assert((await waitAnswerFinished(page, a2)) === 'done', 'answer finished');
  const byGroup = await a2.locator('[data-testid=answer-body]').evaluate((body) => {
    const out = {};
    let group = '';
    for (const el of body.children) {
      if (el.tagName === 'H4') group = el.textContent.trim();
      else if (el.tagName === 'P' && el.querySelector('strong')) (out[group] ??= []).push(el.querySelector('strong').textContent.trim());
    }
    return out;
  });
  assert(
    JSON.stringify(byGroup['Close matches']) === JSON.stringify(['Biology revision']) && !(byGroup['Close matches'] ?? []).includes('The Go Programming Language'),
    `"exam tips": the note is the one close match (${JSON.stringify(byGroup)})`,
  );
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
  // 8. Every text on screen (library, notice-free header, answers with marked words,
  // the question box and its hint) meets AA in the light theme.
  await assertContrast(page, 'answers, library, question box; light');

  // 8. Focus on a marker out of view opens its own card, at it.
  // The chat scrolled to its end: the first answer's markers are out of view.
  await page.locator('[data-testid=chat] .scroller').evaluate((s) => (s.scrollTop = s.scrollHeight));
  const out = await a1.locator('[data-testid=answer-body] button.cite').last().boundingBox();
  const scrollerBox = await page.locator('[data-testid=chat] .scroller').boundingBox();
  const wasHidden = out.y + out.height < scrollerBox.y || out.y > scrollerBox.y + scrollerBox.height;
  const marker = a1.locator('[data-testid=answer-body] button.cite').last();
  await page.mouse.move(0, 0);
  await marker.focus();
  const tip = page.locator('[data-testid=citation-tooltip]');
  await tip.waitFor({ timeout: 5_000 });
  await page.waitForTimeout(100);
  const [mr, tr] = [await marker.boundingBox(), await tip.boundingBox()];
  assert((await tip.getAttribute('data-cite')) === (await marker.getAttribute('data-cite')), 'the card is the focused marker\'s');
  assert(mr.y >= scrollerBox.y - 1 && mr.y + mr.height <= scrollerBox.y + scrollerBox.height + 1, `the focused marker is in view (${mr.y}; it was hidden: ${wasHidden})`);
  const gap = Math.min(Math.abs(tr.y + tr.height - mr.y), Math.abs(mr.y + mr.height - tr.y));
  assert(gap < 16, `the card sits at its marker (gap ${gap}px)`);
  // The pointer leaving another marker does not take the focused marker's card away.
  await page.evaluate(() => document.activeElement?.blur());
  await a1.locator('[data-testid=answer-body] button.cite').nth(-2).hover();
  await marker.focus();
  assert((await tip.getAttribute('data-cite')) === (await marker.getAttribute('data-cite')), 'focus shows the focused marker\'s card');
  await page.mouse.move(0, 0);
  await page.waitForTimeout(300);
  assert((await tip.count()) === 1 && (await tip.getAttribute('data-cite')) === (await marker.getAttribute('data-cite')), 'the focused marker keeps its card when the pointer leaves another');

  // 4. Open a source: the viewer opens; nothing is cut off or overflows at 1024×700.
  // The chat narrows and its text reflows: the marker clicked stays where it was.
  const chatWide = (await page.locator('[data-testid=chat]').boundingBox()).width;
  const atClick = await marker.boundingBox();
  await marker.click();
  await page.locator('[data-testid=viewer-page]').first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(300);
  const [afterOpen, chatNarrow, sc] = [await marker.boundingBox(), (await page.locator('[data-testid=chat]').boundingBox()).width, await page.locator('[data-testid=chat] .scroller').boundingBox()];
  assert(chatNarrow < chatWide - 100, `the chat narrowed as the viewer opened (${chatWide} → ${chatNarrow})`);
  assert(
    Math.abs(afterOpen.y - atClick.y) < 30 && afterOpen.y >= sc.y && afterOpen.y + afterOpen.height <= sc.y + sc.height,
    `the conversation keeps its place: the clicked marker was at ${Math.round(atClick.y)}, is at ${Math.round(afterOpen.y)} (chat ${Math.round(sc.y)}–${Math.round(sc.y + sc.height)})`,
  );
  const problems = await layoutProblems(page);
  assert(problems.length === 0, `nothing cut off at 1024×700:\n  ${problems.join('\n  ')}`);
  // The library folds into a rail while a source is open at 1024: the answer keeps room
  // to be read (it had 360 px beside the library and the viewer).
  assert((await page.locator('[data-testid=side-unfold]').isVisible()) && !(await page.locator('[data-testid=side]').isVisible()), 'the library folds while a source is open at 1024');
  assert(chatNarrow >= 440, `the answer column beside the viewer at 1024 (${chatNarrow}px)`);
  await screenshot(page, 'first-3-viewer-1024');
  // The same at 1440×900 (README screenshots): still nothing cut off.
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.waitForTimeout(400);
  assert(await page.locator('[data-testid=side]').isVisible(), 'at 1440 the library stays beside the source');
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
  // The folded library comes back with a click, beside the source.
  await page.click('[data-testid=side-unfold]');
  await page.locator('[data-testid=side]').waitFor();
  const unfolded = await layoutProblems(page);
  assert(unfolded.length === 0 && (await page.locator('[data-testid=viewer]').isVisible()), `the library unfolded beside the source, nothing cut off: ${unfolded.join('; ')}`);
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
  await assertContrast(page, 'the shortcuts', '[data-testid=shortcuts-help]');
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
  await assertContrast(page, 'the stats view', '[data-testid=stats]');
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
  await page.locator('[data-testid=document]').first().waitFor();
  await assertContrast(page, 'dark');
  // The earlier session resumed in the dark: its answers, marked words, excerpts' links.
  await page.click('[data-testid=tab-sessions]');
  await page.locator('[data-testid=session-open]').first().click();
  await page.locator('[data-testid=answer-body] mark.match').first().waitFor({ timeout: 10_000 });
  await assertContrast(page, 'answers; dark');
  await page.click('[data-testid=tab-library]');
  await page.keyboard.press('Control+,');
  await page.locator('[data-testid=chunk-advanced]').waitFor();
  await assertContrast(page, 'settings; dark', '[data-testid=settings]');
  await page.keyboard.press('Escape');
  await screenshot(page, 'first-4-dark');
  return { marked: marked.length, groups, wider, theme: seen };
}
