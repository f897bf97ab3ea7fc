// A library that was damaged, then one on a read-only disk, as the user meets them in the
// app (issue 14, item 2): a word index cut short is rebuilt from the database at open and
// the header says so (dismissable); a library on a read-only disk opens with a banner
// that stays, searching and reading work, and a change is refused saying why.

import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { assert, screenshot } from './harness.mjs';
import { uploadAndWaitReady } from './flows.mjs';

async function call(page, method, args) {
  return page.evaluate(
    async ([m, a]) => {
      const r = await fetch(`api/call/${m}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(a) });
      return { status: r.status, body: await r.json() };
    },
    [method, args],
  );
}

/** Adds file to the library and returns the document's id. */
export async function addFlow({ page, url, file }) {
  await page.goto(url);
  await uploadAndWaitReady(page, file);
  const docs = (await call(page, 'ListDocuments', [])).body;
  assert(docs.length === 1, `one document (${docs.length})`);
  return docs[0].id;
}

/** Cuts the word index's largest segment in half, as a full disk or a bad copy would. */
export function damageWordIndex(library) {
  const store = join(library, 'bleve', 'store');
  const segs = readdirSync(store).filter((f) => f.endsWith('.zap')).map((f) => join(store, f));
  assert(segs.length > 0, `the word index has segment files in ${store}`);
  const seg = segs.sort((a, b) => statSync(b).size - statSync(a).size)[0];
  truncateSync(seg, Math.floor(statSync(seg).size / 2));
  return seg;
}

/** The app after the damage: the repair is said, search works, the notice goes away when dismissed. */
export async function repairedFlow({ page, url, docID }) {
  await page.goto(url);
  const notice = page.locator('[data-testid=repair-notice]');
  await notice.waitFor({ timeout: 30_000 });
  const text = await notice.innerText();
  assert(/word index/i.test(text) && /rebuilt/i.test(text), `the notice says the word index was rebuilt: ${text}`);
  await screenshot(page, 'repaired-word-index');
  const hits = (await call(page, 'Search', ['energy', 5, null])).body;
  assert(Array.isArray(hits) && hits.length > 0 && hits[0].doc_id === docID, `search after the repair: ${JSON.stringify(hits).slice(0, 200)}`);
  await page.locator('[data-testid=repair-notice-dismiss]').click();
  await notice.waitFor({ state: 'detached', timeout: 5_000 });
  return text.trim();
}

/** The app on a read-only disk: the banner, search and reading work, adding is refused saying why. */
export async function readOnlyFlow({ page, url, docID, file }) {
  await page.goto(url);
  const banner = page.locator('[data-testid=read-only-banner]');
  await banner.waitFor({ timeout: 30_000 });
  const text = await banner.innerText();
  assert(/read-only/i.test(text) && /search and read/i.test(text), `the banner says what read-only means: ${text}`);
  await page.locator('[data-testid=document]').first().waitFor({ timeout: 30_000 });
  const hits = (await call(page, 'Search', ['energy', 5, null])).body;
  assert(Array.isArray(hits) && hits.length > 0 && hits[0].doc_id === docID, `search in a read-only library: ${JSON.stringify(hits).slice(0, 200)}`);
  const read = await page.evaluate(async (id) => (await fetch(`files/${id}`)).status, docID);
  assert(read === 200, `the document is read from a read-only library (${read})`);
  const add = await call(page, 'AddPaths', [[file]]);
  const said = JSON.stringify(add.body);
  assert(add.status >= 400 && /read-only/i.test(said), `adding to a read-only library is refused saying why: ${add.status} ${said}`);
  // As the user adds a file: the refusal is shown at once.
  await page.setInputFiles('[data-testid=file-input]', file);
  const toast = page.locator('[data-testid=toast]', { hasText: /read-only/i });
  await toast.first().waitFor({ timeout: 15_000 });
  const docs = (await call(page, 'ListDocuments', [])).body;
  assert(docs.length === 1, `still one document after the refused adds (${docs.length})`);
  await screenshot(page, 'read-only-library');
  // Still shown after a reload: it is the library's state, not a passing notice.
  await page.reload();
  await banner.waitFor({ timeout: 30_000 });
  return text.trim();
}

/** Mounts dir over itself read-only (root only) and returns the function that undoes it. */
export function mountReadOnly(dir) {
  execFileSync('mount', ['--bind', dir, dir]);
  try {
    execFileSync('mount', ['-o', 'remount,bind,ro', dir]);
  } catch (e) {
    execFileSync('umount', [dir]);
    throw e;
  }
  return () => execFileSync('umount', [dir]);
}
