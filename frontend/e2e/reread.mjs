// The library marks a document with pages read by OCR; "Re-read" reads a document again
// from its file (OCR and word boxes included) and it ends ready with its marker and its
// word boxes; a file changed since it was added is refused with a reason.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assert, frontendDir, screenshot, tempDir } from './harness.mjs';
import { uploadAndWaitReady } from './flows.mjs';
import { renderScans, scannedPdf } from './ocr.mjs';

const words = (page, docID, n) =>
  page.evaluate(
    async ({ docID, n }) => (await (await fetch('api/call/PageWords', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify([docID, n]) })).json()).words,
    { docID, n },
  );

export async function rereadFlow({ page, url }) {
  const pdfPath = join(tempDir('carrel-e2e-reread-'), 'scanned-notes.pdf');
  writeFileSync(pdfPath, scannedPdf(await renderScans(page)));
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  const docID = await (await uploadAndWaitReady(page, pdfPath)).getAttribute('data-doc-id');
  // By id: the list is newest first, so another document added later comes before it.
  const scan = page.locator(`[data-testid=document][data-doc-id="${docID}"]`);

  const marker = scan.locator('[data-testid=document-ocr]');
  await marker.waitFor({ timeout: 10_000 });
  assert((await marker.textContent()).trim() === 'Scanned', 'the scanned document is marked Scanned in the library (every page read by OCR)');
  assert(/every page/.test((await marker.getAttribute('title')) ?? ''), `its marker says every page was read by OCR (${await marker.getAttribute('title')})`);

  // A text document is not marked.
  await page.setInputFiles('[data-testid=file-input]', join(frontendDir, 'e2e', 'fixtures', 'physics.md'));
  const text = page.locator('[data-testid=document]:not([data-doc-id="' + docID + '"])').first();
  await page.waitForFunction((id) => [...document.querySelectorAll('[data-testid=document]')].some((d) => d.dataset.docId !== id && d.dataset.status === 'ready'), docID, { timeout: 60_000 });
  assert((await text.locator('[data-testid=document-ocr]').count()) === 0, 'a text document has no OCR marker');
  await screenshot(page, 'reread-1-marker');

  const before = await words(page, docID, 1);
  assert(before.length > 20, `page 1 has its OCR word boxes (${before.length})`);

  // Re-read: the document goes through extracting (OCR) again and ends ready.
  await scan.hover();
  await scan.locator('[data-testid=document-reread]').click();
  await page.waitForFunction((id) => document.querySelector(`[data-testid=document][data-doc-id="${id}"]`)?.dataset.status !== 'ready', docID, { timeout: 30_000, polling: 20 });
  await screenshot(page, 'reread-2-reading');
  await page.waitForFunction((id) => document.querySelector(`[data-testid=document][data-doc-id="${id}"]`)?.dataset.status === 'ready', docID, { timeout: 120_000, polling: 100 });
  await page.locator(`[data-testid=document][data-doc-id="${docID}"] [data-testid=document-ocr]`).waitFor({ timeout: 10_000 });
  const after = await words(page, docID, 1);
  assert(after.length === before.length && after.every((w, i) => w.text === before[i].text), `the re-read gives the same words on page 1 (${after.length} of ${before.length})`);
  assert((await page.locator('[data-testid=document]').count()) === 2, 'the re-read replaced the document, not added one');

  // The text file changed since it was added: refused, with the reason and what to do.
  const path = await text.locator('[data-testid=document-title]').getAttribute('title');
  writeFileSync(path, readFileSync(path, 'utf8') + '\nA line added later.\n');
  await text.hover();
  await text.locator('[data-testid=document-reread]').click();
  const toast = page.locator('[data-testid=toast]', { hasText: /changed since it was added/ });
  await toast.waitFor({ timeout: 10_000 });
  assert(/add it again/.test(await toast.textContent()), `the refusal says what to do (${await toast.textContent()})`);
  await screenshot(page, 'reread-3-refused');
  return { words: after.length };
}
