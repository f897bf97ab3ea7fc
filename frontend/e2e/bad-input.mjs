// Bad inputs in the window: each bad file ends as a failed document with a one-line reason
// the user can act on, the good file beside them becomes ready, and the library still answers.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assert, screenshot } from './harness.mjs';

/** Writes the bad files into a temp folder; returns [{path, want}] where want is a
 *  lowercase fragment the one-line error must contain. */
export function makeBadInputs(goodPdf) {
  const dir = mkdtempSync(join(tmpdir(), 'carrel-bad-'));
  const raw = readFileSync(goodPdf);
  const files = [
    { name: 'corrupt.pdf', data: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(8000, 0xde)]), want: 'damaged' },
    { name: 'truncated.pdf', data: raw.subarray(0, Math.floor(raw.length / 3)), want: 'truncated' },
    { name: 'empty.pdf', data: Buffer.alloc(0), want: 'empty' },
    { name: 'picture.pdf', data: Buffer.from('\x89PNG\r\n\x1a\n0000IHDR', 'latin1'), want: 'not a pdf' },
  ];
  const out = files.map((f) => {
    const path = join(dir, f.name);
    writeFileSync(path, f.data);
    return { path, want: f.want };
  });
  // An encrypted copy of the good PDF, made with Debian's pypdf (a test dependency).
  const enc = join(dir, 'encrypted.pdf');
  execFileSync('/usr/bin/python3', ['-c', `
import sys
from pypdf import PdfReader, PdfWriter
w = PdfWriter()
for p in PdfReader(sys.argv[1]).pages:
    w.add_page(p)
w.encrypt("secret")
w.write(sys.argv[2])`, goodPdf, enc]);
  out.push({ path: enc, want: 'password' });
  return out;
}

export async function badInputFlow({ page, url, pdf, question }) {
  const bad = makeBadInputs(pdf);
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  await page.setInputFiles('[data-testid=file-input]', [...bad.map((b) => b.path), pdf]);
  await page.waitForFunction(
    (n) => {
      const docs = [...document.querySelectorAll('[data-testid=document]')];
      const settled = docs.filter((d) => ['ready', 'failed'].includes(d.getAttribute('data-status')));
      return docs.length >= n && settled.length === docs.length;
    },
    bad.length + 1,
    { timeout: 120_000, polling: 250 },
  );
  const docs = await page.$$eval('[data-testid=document]', (els) =>
    els.map((d) => ({
      status: d.getAttribute('data-status'),
      title: d.querySelector('[data-testid=document-title]')?.getAttribute('title') ?? '',
      error: d.querySelector('[data-testid=document-error]')?.textContent?.trim() ?? '',
    })),
  );
  await screenshot(page, 'bad-input-library');
  for (const b of bad) {
    const name = b.path.split('/').pop();
    const d = docs.find((x) => x.title.endsWith(name));
    assert(d, `${name} is listed (${JSON.stringify(docs)})`);
    assert(d.status === 'failed', `${name} failed (${d.status})`);
    assert(d.error && !d.error.includes('\n') && d.error.toLowerCase().includes(b.want),
      `${name} shows a one-line reason mentioning "${b.want}" (got ${JSON.stringify(d.error)})`);
  }
  const good = docs.find((x) => x.title.endsWith('Walden.pdf'));
  assert(good?.status === 'ready', `the good PDF next to them is ready (${JSON.stringify(good)})`);

  // The library still answers from the good document.
  await page.fill('[data-testid=ask-input]', question);
  await page.keyboard.press('Enter');
  const answer = page.locator('[data-testid=answer]').last();
  await page.waitForFunction((el) => ['done', 'error'].includes(el.dataset.state), await answer.elementHandle(), { timeout: 60_000 });
  assert((await answer.getAttribute('data-state')) === 'done', 'the answer finished');
  const sources = await answer.locator('[data-testid=source]').count();
  assert(sources > 0, 'the answer cites the good document');
  return { failed: bad.length, sources };
}
