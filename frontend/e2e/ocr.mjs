// A scanned PDF (no text layer) is read by OCR; its citation opens on the scanned page
// with rectangles drawn over exactly the words of the passage, also on a page turned by
// /Rotate 90 and after zooming.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assert, pdfcpuTestdata, screenshot, tempDir } from './harness.mjs';
import { ask, uploadAndWaitReady, waitAnswerFinished } from './flows.mjs';

// Two pages of distinct prose; the question is about page 1.
const PAGES = [
  'The lighthouse keeper counted seventeen ships passing the northern cape during the winter storm. ' +
    'Each vessel carried timber and salt toward the harbour towns, and every captain signalled twice ' +
    'with a lantern before turning south. The keeper wrote their names in a leather journal.',
  'Marine biologists measured the temperature of the tidal pools every morning for a month. ' +
    'They found that anemones closed earlier on cold days and that crabs hid beneath the ' +
    'brown kelp whenever gulls circled above the rocks near the old pier.',
];
export const OCR_QUESTION = 'How many ships did the lighthouse keeper count during the winter storm?';

// US Letter in points, and the scan's resolution.
const W = 612;
const H = 792;
const DPI = 150;

/** Renders each page's text to a JPEG in the browser (canvas), as a scanner would give it. */
export async function renderScans(page) {
  return page.evaluate(
    ({ pages, w, h }) =>
      pages.map((text) => {
        const c = document.createElement('canvas');
        c.width = w;
        c.height = h;
        const g = c.getContext('2d');
        g.fillStyle = '#fff';
        g.fillRect(0, 0, w, h);
        g.fillStyle = '#111';
        g.font = '34px serif';
        const margin = 130;
        let y = 200;
        let line = '';
        for (const word of text.split(' ')) {
          const next = line ? `${line} ${word}` : word;
          if (g.measureText(next).width > w - 2 * margin) {
            g.fillText(line, margin, y);
            y += 52;
            line = word;
          } else line = next;
        }
        g.fillText(line, margin, y);
        return c.toDataURL('image/jpeg', 0.92).split(',')[1];
      }),
    { pages: PAGES, w: Math.round((W / 72) * DPI), h: Math.round((H / 72) * DPI) },
  );
}

/**
 * A PDF whose pages are only the JPEGs (DCTDecode), no text: page 1 upright, page 2 stored
 * turned (media box W×H swapped) with /Rotate 90, drawn so that it shows upright.
 */
export function scannedPdf(jpegs) {
  const parts = [];
  const offsets = [];
  let size = 0;
  const push = (b) => {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    parts.push(buf);
    size += buf.length;
  };
  const obj = (n, dict, stream) => {
    offsets[n] = size;
    push(`${n} 0 obj\n${dict}`);
    if (stream) {
      push('\nstream\n');
      push(stream);
      push('\nendstream');
    }
    push('\nendobj\n');
  };
  const pw = Math.round((W / 72) * DPI);
  const ph = Math.round((H / 72) * DPI);
  push('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n');
  const kids = jpegs.map((_, i) => `${3 + i * 3} 0 R`).join(' ');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  obj(2, `<< /Type /Pages /Kids [${kids}] /Count ${jpegs.length} >>`);
  jpegs.forEach((b64, i) => {
    const n = 3 + i * 3;
    const jpeg = Buffer.from(b64, 'base64');
    const turned = i === 1;
    const media = turned ? `[0 0 ${H} ${W}]` : `[0 0 ${W} ${H}]`;
    // The image's unit square onto the page as shown (see backend/ingest/ocr_words_test.go).
    const cm = turned ? `0 ${W} ${-H} 0 ${H} 0` : `${W} 0 0 ${H} 0 0`;
    const content = `q ${cm} cm /Im0 Do Q\n`;
    obj(n, `<< /Type /Page /Parent 2 0 R /MediaBox ${media} ${turned ? '/Rotate 90 ' : ''}/Resources << /XObject << /Im0 ${n + 2} 0 R >> >> /Contents ${n + 1} 0 R >>`);
    obj(n + 1, `<< /Length ${content.length} >>`, Buffer.from(content, 'latin1'));
    obj(n + 2, `<< /Type /XObject /Subtype /Image /Width ${pw} /Height ${ph} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>`, jpeg);
  });
  const count = 3 + jpegs.length * 3;
  const xref = size;
  push(`xref\n0 ${count}\n0000000000 65535 f \n`);
  for (let n = 1; n < count; n++) push(`${String(offsets[n]).padStart(10, '0')} 00000 n \n`);
  push(`trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** Letters and digits only, lower case. */
const squash = (s) => (s ?? '').normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');

/**
 * Checks the highlight rectangles on the page shown against the page's word boxes
 * (PageWords), placed on screen here by this test's own geometry, not the viewer's: every
 * word under a rectangle is a word of the passage, each rectangle's words read as its
 * text, and together they cover most of the passage's part on this page.
 */
async function checkRects(page, docID, pageNo, passage, minShare) {
  const r = await page.evaluate(
    async ({ docID, pageNo, W }) => {
      const res = await fetch('api/call/PageWords', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify([docID, pageNo]) });
      const pw = await res.json();
      const el = document.querySelector('[data-testid=viewer-page]');
      const box = el.getBoundingClientRect();
      const rects = [...el.querySelectorAll('[data-testid=ocr-highlight]')].map((d) => {
        const b = d.getBoundingClientRect();
        return { left: b.left - box.left, top: b.top - box.top, right: b.right - box.left, bottom: b.bottom - box.top, text: d.dataset.text };
      });
      return { pw, rects, scale: box.width / W, badge: !!document.querySelector('[data-testid=viewer-ocr]') };
    },
    { docID, pageNo, W },
  );
  assert(r.badge, `page ${pageNo} is marked OCR in the viewer`);
  assert(r.pw.ocr && r.pw.words.length > 20, `PageWords gives the boxes of page ${pageNo} (${r.pw.words.length} words)`);
  assert(Math.abs(r.pw.width - W) < 1 && Math.abs(r.pw.height - H) < 1, `page ${pageNo} is ${W}×${H} as shown (${r.pw.width}×${r.pw.height})`);
  assert(r.rects.length > 0, `highlight rectangles are drawn on page ${pageNo}`);
  // User space → the page as shown, in CSS pixels: page 2 is stored turned by /Rotate 90.
  const turned = pageNo === 2;
  const view = (w) => {
    const [x0, y0, x1, y1] = turned ? [w.y0, w.x0, w.y1, w.x1] : [w.x0, H - w.y1, w.x1, H - w.y0];
    return { cx: ((x0 + x1) / 2) * r.scale, cy: ((y0 + y1) / 2) * r.scale };
  };
  const want = squash(passage);
  let covered = '';
  for (const rect of r.rects) {
    const under = r.pw.words.filter((w) => {
      const c = view(w);
      return c.cx > rect.left && c.cx < rect.right && c.cy > rect.top && c.cy < rect.bottom;
    });
    assert(under.length > 0, `rectangle ${JSON.stringify(rect)} lies over words`);
    const text = under.map((w) => w.text).join(' ');
    assert(squash(text) === squash(rect.text), `rectangle over ${JSON.stringify(text)} says ${JSON.stringify(rect.text)}`);
    assert(want.includes(squash(text)), `highlighted words ${JSON.stringify(text)} are text of the passage`);
    covered += squash(text);
  }
  const pageText = squash(r.pw.words.map((w) => w.text).join(' '));
  // About how much of the passage is on this page: its letters that start a 12-letter
  // stretch found in the page's words.
  const onPage = [...want].filter((_, i) => i + 12 <= want.length && pageText.includes(want.slice(i, i + 12))).length;
  assert(covered.length >= onPage * minShare, `the rectangles cover the passage on page ${pageNo} (${covered.length} of ~${onPage} letters)`);
  return { rects: r.rects, words: r.pw.words.length, scale: r.scale };
}

export async function ocrFlow({ page, url }) {
  const pdfPath = join(tempDir('carrel-e2e-scan-'), 'scanned-notes.pdf');
  writeFileSync(pdfPath, scannedPdf(await renderScans(page)));

  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  const doc = await uploadAndWaitReady(page, pdfPath, 'ocr-1-ingesting');
  const docID = await doc.getAttribute('data-doc-id');

  const answer = await ask(page, OCR_QUESTION);
  const state = await waitAnswerFinished(page, answer);
  assert(state === 'done', `answer finished (state ${state}: ${await answer.textContent()})`);
  const marker = answer.locator('[data-testid=answer-body] button.cite').first();
  await marker.waitFor({ timeout: 10_000 });
  await marker.hover();
  const tip = page.locator('[data-testid=citation-tooltip]');
  await tip.waitFor({ timeout: 5_000 });
  const passage = (await tip.getAttribute('data-passage')) ?? (await tip.textContent()) ?? '';
  assert(/lighthouse|ships|storm/i.test(passage), `the cited passage is the scanned text about ships (${JSON.stringify(passage.slice(0, 120))})`);
  const label = (await marker.getAttribute('aria-label')) ?? '';
  const first = Number(/page (\d+)/.exec(label)?.[1] ?? '1');
  assert(first === 1, `the citation points at page 1 (${label})`);

  await marker.click();
  await page.locator('[data-testid=viewer-page][data-page="1"] [data-testid=ocr-highlight]').first().waitFor({ timeout: 60_000 });
  const status = page.locator('[data-testid=highlight-status]');
  assert((await status.getAttribute('data-found')) === 'true', `the highlight status says found (${await status.textContent()})`);
  const p1 = await checkRects(page, docID, 1, passage, 0.6);
  assert(p1.rects.length >= 2, `a passage of several lines gives one rectangle per line (${p1.rects.length})`);
  // The scan's words are there as invisible text, each over its word: selectable, copyable.
  const text = await page.evaluate(() => {
    const layer = document.querySelector('[data-testid=ocr-text]');
    const spans = [...(layer?.querySelectorAll('span') ?? [])];
    const sel = window.getSelection();
    const range = document.createRange();
    range.selectNodeContents(layer);
    sel.removeAllRanges();
    sel.addRange(range);
    return { copied: sel.toString(), spans: spans.length };
  });
  await screenshot(page, 'ocr-2-selected');
  await page.evaluate(() => window.getSelection().removeAllRanges());
  assert(/lighthouse keeper counted seventeen ships/i.test(text.copied.replace(/\s+/g, ' ')), `the scanned page's text can be selected (${JSON.stringify(text.copied.slice(0, 80))})`);
  assert(text.copied.includes('\n'), 'copied text keeps its line breaks');
  assert(text.spans === p1.words, `one invisible text run per OCR word (${text.spans} of ${p1.words})`);
  await page.waitForTimeout(400);
  await screenshot(page, 'ocr-2-highlight');

  // Zoom in: the rectangles grow with the page and still cover the same words.
  const before = p1.rects[0];
  await page.click('[data-testid=viewer-zoom-in]');
  await page.waitForFunction((s) => {
    const el = document.querySelector('[data-testid=viewer-page]');
    return el && el.getBoundingClientRect().width / 612 > s * 1.05 && el.querySelector('[data-testid=ocr-highlight]');
  }, p1.scale, { timeout: 30_000 });
  const zoomed = await checkRects(page, docID, 1, passage, 0.6);
  const grow = zoomed.scale / p1.scale;
  const w0 = before.right - before.left;
  const w1 = zoomed.rects[0].right - zoomed.rects[0].left;
  assert(Math.abs(w1 / w0 - grow) < 0.05, `the first rectangle scales with the zoom (${w0.toFixed(1)} → ${w1.toFixed(1)}, zoom ×${grow.toFixed(2)})`);

  // Page 2 is stored turned (/Rotate 90): a search for its words cites it; its
  // highlight must land on the words as shown.
  const second = await ask(page, 'What did the marine biologists measure in the tidal pools every morning?');
  assert((await waitAnswerFinished(page, second)) === 'done', 'second answer finished');
  const m2 = second.locator('[data-testid=answer-body] button.cite').first();
  await m2.waitFor({ timeout: 10_000 });
  await m2.hover();
  await page.waitForFunction(() => /biolog|tidal|kelp/i.test(document.querySelector('[data-testid=citation-tooltip]')?.getAttribute('data-passage') ?? ''), null, { timeout: 5_000 });
  const passage2 = (await tip.getAttribute('data-passage')) ?? '';
  const label2 = (await m2.getAttribute('aria-label')) ?? '';
  await m2.click();
  if (/page 1\b/.test(label2)) {
    // The chunk runs from page 1 over the page break: follow it onto page 2.
    await page.locator('[data-testid=highlight-continue]').click();
  }
  await page.locator('[data-testid=viewer-page][data-page="2"] [data-testid=ocr-highlight]').first().waitFor({ timeout: 60_000 });
  const p2 = await checkRects(page, docID, 2, passage2, 0.5);
  await page.waitForTimeout(400);
  await screenshot(page, 'ocr-3-rotated-page');

  const search = await searchFlow(page, docID);
  return { page1Rects: p1.rects.length, page2Rects: p2.rects.length, words: [p1.words, p2.words], zoom: Number(grow.toFixed(2)), ...search };
}

/** The search hits drawn on the page shown, relative to it, and the page's scale. */
async function searchHits(page) {
  return page.evaluate(() => {
    const el = document.querySelector('[data-testid=viewer-page]');
    const box = el.getBoundingClientRect();
    return {
      page: Number(el.dataset.page),
      scale: box.width / 612,
      hits: [...el.querySelectorAll('[data-testid=search-hit]')].map((d) => {
        const b = d.getBoundingClientRect();
        // What the text layer holds under the hit (a text page), for the check below.
        const under = document.elementsFromPoint(b.left + b.width / 2, b.top + b.height / 2).find((e) => e.closest('.textLayer') && e.textContent);
        return { left: b.left - box.left, top: b.top - box.top, right: b.right - box.left, bottom: b.bottom - box.top, current: d.dataset.current === 'true', under: under?.textContent ?? '' };
      }),
    };
  });
}

/**
 * Search within the document: a word of the scanned, turned page 2 is found through its
 * OCR words and boxed where it is shown; Enter steps through several matches; on a text
 * PDF the hits lie on the text layer's words.
 */
async function searchFlow(page, docID) {
  const box = page.locator('[data-testid=viewer-search]');
  await page.click('[data-testid=viewer-page-count]');
  await page.keyboard.press('Control+f');
  assert(await box.evaluate((el) => el === document.activeElement), 'Ctrl+F puts the cursor in the find box');
  await box.fill('kelp');
  await page.waitForFunction(() => document.querySelector('[data-testid=viewer-search-count]')?.textContent?.trim() === '1 of 1', null, { timeout: 30_000 });
  await page.locator('[data-testid=viewer-page][data-page="2"] [data-testid=search-hit][data-current=true]').waitFor({ timeout: 30_000 });
  const s = await searchHits(page);
  const words = await page.evaluate(async (id) => (await (await fetch('api/call/PageWords', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify([id, 2]) })).json()).words, docID);
  const kelp = words.find((w) => /kelp/i.test(w.text));
  assert(kelp, 'OCR read the word kelp on page 2');
  // Page 2 is turned by /Rotate 90: shown x is user y, shown y is user x.
  const cx = ((kelp.y0 + kelp.y1) / 2) * s.scale;
  const cy = ((kelp.x0 + kelp.x1) / 2) * s.scale;
  assert(s.hits.length === 1 && s.hits[0].left < cx && cx < s.hits[0].right && s.hits[0].top < cy && cy < s.hits[0].bottom,
    `the hit for "kelp" is drawn over its word (${JSON.stringify(s.hits)} vs centre ${cx.toFixed(1)},${cy.toFixed(1)})`);
  await screenshot(page, 'ocr-4-search');

  // Several matches: Enter goes to the next one, on whichever page it is.
  await box.fill('the');
  // The search runs from the page shown round the document: done when the count has no "+".
  await page.waitForFunction(() => /^\d+ of \d+$/.test(document.querySelector('[data-testid=viewer-search-count]')?.textContent?.trim() ?? ''), null, { timeout: 30_000 });
  const [, at, total] = /^(\d+) of (\d+)$/.exec((await page.textContent('[data-testid=viewer-search-count]')).trim()).map(Number);
  assert(total >= 5, `"the" is found several times on the two scanned pages (${total})`);
  await box.press('Enter');
  const next = `${(at % total) + 1} of ${total}`;
  await page.waitForFunction((want) => document.querySelector('[data-testid=viewer-search-count]')?.textContent?.trim() === want, next, { timeout: 10_000 });
  await page.locator('[data-testid=search-hit][data-current=true]').first().waitFor({ timeout: 30_000 });

  // A text PDF: the hits lie on the text layer's runs holding the word.
  await page.setInputFiles('[data-testid=file-input]', pdfcpuTestdata('Walden.pdf'));
  const walden = page.locator('[data-testid=document]', { hasText: /walden/i }).first();
  await walden.waitFor({ timeout: 30_000 });
  await walden.locator('[data-testid=document-title]').click();
  await page.locator('[data-testid=viewer-page][data-page="1"]').waitFor({ timeout: 60_000 });
  assert((await page.locator('[data-testid=viewer-ocr]').count()) === 0, 'a text page is not marked OCR');
  await box.fill('pond');
  await page.waitForFunction(() => /^1 of \d+/.test(document.querySelector('[data-testid=viewer-search-count]')?.textContent?.trim() ?? ''), null, { timeout: 60_000 });
  await page.locator('[data-testid=search-hit][data-current=true]').first().waitFor({ timeout: 30_000 });
  const t = await searchHits(page);
  assert(t.hits.length > 0 && t.hits.every((h) => /pond/i.test(h.under)), `every hit lies on text holding "pond" (${JSON.stringify(t.hits.map((h) => h.under))})`);
  await screenshot(page, 'ocr-5-search-text-pdf');
  return { theMatches: total, pondHitsOnPage: t.hits.length, pondPage: t.page };
}
