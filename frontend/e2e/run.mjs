// npm run e2e: browser tests against the real Go backend and a real Ollama server.
//
//   CARREL_BIN   the carrel binary (default ../build/bin/carrel, relative to frontend/)
//   CHROMIUM     the browser (default /usr/bin/chromium)
//   E2E_ONLY     run only the named flow (first-hour | full | no-model | pull | security | other-origin | damaged | feel | sessions | ocr | reread | study | online | audio | …)
//
// Screenshots go to frontend/test-results/. Ends with "N passed, N failed".

import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assert, carrelBin, cleanup, closedPort, frontendDir, login, repoDir, tempDir, openBrowser, pdfcpuTestdata, resultsDir, screenshot, startCarrel, startEmptyOllama, startJSONProcess, startOllama } from './harness.mjs';
import { citeStepFlow, scopeFlow, statsCacheFlow, feelFlow, fullFlow, noModelFlow, pullFlow, securityFlow, sessionsFlow, settingsFlow, slidesFlow, startOllamaFlow, statsFlow } from './flows.mjs';
import { badInputFlow } from './bad-input.mjs';
import { ocrFlow } from './ocr.mjs';
import { rereadFlow } from './reread.mjs';
import { cacheFlow } from './cache.mjs';
import { firstHourFlow } from './first-hour.mjs';
import { otherOriginFlow } from './origin.mjs';
import { studyFlow, studyModelFlow, studySummaryFlow } from './study.mjs';
import { audioFlow, testAudio } from './audio.mjs';
import { onlineFlow } from './online.mjs';
import { addFlow, damageWordIndex, mountReadOnly, readOnlyFlow, repairedFlow } from './trust.mjs';

const QUESTION = 'What happens on a delicious evening by the pond, when the bullfrogs trump?';

const tests = [
  {
    name: 'first-hour',
    title: "a student's first hour at 1024×700 in search mode: one notice, passages that show their match, a layout that holds, the library list, help and theme",
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      const dir = tempDir('carrel-e2e-first-');
      const note = join(dir, 'exam-notes.md');
      writeFileSync(note, '# Biology revision\n\nCells, tissues and organs.\n\n## Exam tips\n\n- Be ready early and read every question twice\n- Sleep well the night before the exam\n- Bring two pens\n');
      const empty = join(dir, 'empty-notes.pdf');
      writeFileSync(empty, '');
      // A photo saved with a .pdf name: a real PNG (ImageMagick), 64×64.
      const broken = join(dir, 'lecture.pdf');
      execFileSync('convert', ['-size', '64x64', 'xc:steelblue', `png:${broken}`]);
      try {
        return await ctx.inBrowser(
          (page) =>
            firstHourFlow({
              page,
              url: carrel.url,
              // The whole book (249 pages) and the Go book's first chapter, as a student adds them.
              pdf: pdfcpuTestdata('WaldenFull.pdf'),
              gopdf: pdfcpuTestdata('TheGoProgrammingLanguageCh1.pdf'),
              note,
              empty,
              broken,
            }),
          carrel,
        );
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'full',
    title: 'upload a PDF, stream an answer, open its citation in the viewer (real Ollama)',
    async run(ctx) {
      const ollama = await ctx.ollama();
      const carrel = await startCarrel({ ollamaHost: ollama.host, chatModel: ollama.chatModel, embedModel: ollama.embedModel });
      try {
        return await ctx.inBrowser((page) => fullFlow({ page, url: carrel.url, pdf: ctx.pdf, question: QUESTION }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'no-model',
    title: 'no Ollama: the badge says so; a PDF dropped on the window (browser drop) is ingested; answers are passages with the note',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      try {
        return await ctx.inBrowser((page) => noModelFlow({ page, url: carrel.url, pdf: ctx.pdf, question: QUESTION }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'slides',
    title: "a talk's slides: a passage over several slides is cited on the slide that answers, and the viewer opens there (no model)",
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      try {
        return await ctx.inBrowser((page) => slidesFlow({ page, url: carrel.url, pdf: pdfcpuTestdata('pike-stanford.pdf') }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'pull',
    title: 'first run: an empty Ollama pulls the tiny model from a local registry with per-layer progress, then it is used',
    async run(ctx) {
      const registry = await ctx.ollama();
      assert(registry.pull, 'the test Ollama serves a registry (testollama -registry; set "pull" in E2E_OLLAMA)');
      const empty = await startEmptyOllama();
      const carrel = await startCarrel({ ollamaHost: empty.host });
      try {
        return await ctx.inBrowser((page) => pullFlow({ page, url: carrel.url, pullName: registry.pull }), carrel);
      } finally {
        await carrel.stop();
        await empty.stop();
      }
    },
  },
  {
    name: 'bad-input',
    title: 'bad files fail alone with a one-line reason; the good one is ready and answers',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      try {
        return await ctx.inBrowser((page) => badInputFlow({ page, url: carrel.url, pdf: ctx.pdf, question: QUESTION }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'security',
    title: 'a document full of HTML/JS payloads: shown as text in answers, tooltips and the viewer; nothing runs; links leave the app',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      const files = ['hostile.md', 'hostile.txt'].map((f) => join(frontendDir, 'e2e', 'fixtures', f));
      try {
        return await ctx.inBrowser((page) => securityFlow({ page, url: carrel.url, files }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'other-origin',
    title: 'pages of other local origins (another port, another loopback name) cannot call the bridge or read /files/; the app still works',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      const secret = join(tempDir('carrel-e2e-secret-'), 'exam-notes.txt');
      writeFileSync(secret, 'Private exam notes: the password is swordfish.\n');
      try {
        return await ctx.inBrowser(
          (page, browser) => otherOriginFlow({ page, ctx: browser.ctx, carrel, file: join(frontendDir, 'e2e', 'fixtures', 'physics.md'), secret }),
          carrel,
        );
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'damaged',
    title: 'a library whose word index was cut short opens repaired, saying so; on a read-only disk it opens with a banner, searches and reads, and refuses changes saying why',
    async run(ctx) {
      const port = await closedPort();
      const ollamaHost = `http://127.0.0.1:${port}`;
      const file = join(frontendDir, 'e2e', 'fixtures', 'physics.md');
      let carrel = await startCarrel({ ollamaHost });
      const library = carrel.library;
      let docID;
      try {
        docID = await ctx.inBrowser((page) => addFlow({ page, url: carrel.url, file }), carrel);
      } finally {
        await carrel.stop();
      }
      damageWordIndex(library);
      carrel = await startCarrel({ ollamaHost, library });
      let repaired;
      try {
        repaired = await ctx.inBrowser((page) => repairedFlow({ page, url: carrel.url, docID }), carrel);
      } finally {
        await carrel.stop();
      }
      // A read-only disk is made by mounting the folder over itself read-only: root only
      // (CI runs as root); as a user the rest is not run, and the result says so.
      if (process.getuid?.() !== 0) return { repaired, readOnly: 'not run: mounting needs root' };
      const unmount = mountReadOnly(library);
      try {
        carrel = await startCarrel({ ollamaHost, library });
        try {
          const banner = await ctx.inBrowser((page) => readOnlyFlow({ page, url: carrel.url, docID, file: join(frontendDir, 'e2e', 'fixtures', 'hostile.txt') }), carrel);
          return { repaired: repaired.slice(0, 60), readOnly: banner.slice(0, 60) };
        } finally {
          await carrel.stop();
        }
      } finally {
        unmount();
      }
    },
  },
  {
    name: 'feel',
    title: 'keyboard shortcuts, math in answers, library filter and sort, retry of a failed document',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      const fixtures = join(frontendDir, 'e2e', 'fixtures');
      const broken = join(tempDir('carrel-e2e-broken-'), 'broken.pdf');
      writeFileSync(broken, '%PDF-1.7\nthis is not a PDF at all\n');
      try {
        return await ctx.inBrowser(
          (page) =>
            feelFlow({
              page,
              url: carrel.url,
              files: [join(fixtures, 'physics.md'), join(fixtures, 'hostile.txt')],
              broken,
              fixed: pdfcpuTestdata('testWithText.pdf'),
              inbox: join(carrel.library, 'inbox'),
            }),
          carrel,
        );
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'sessions',
    title: 'questions are saved in sessions: list, rename, new, resume and continue, export as Markdown, delete',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      const fixtures = join(frontendDir, 'e2e', 'fixtures');
      try {
        return await ctx.inBrowser(
          (page) => sessionsFlow({ page, url: carrel.url, files: [join(fixtures, 'physics.md'), join(fixtures, 'hostile.txt')] }),
          carrel,
        );
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'ocr',
    title: 'a scanned PDF is read by OCR; its citation highlights the words on the scanned page (also turned by /Rotate, and zoomed)',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      try {
        return await ctx.inBrowser((page) => ocrFlow({ page, url: carrel.url }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'reread',
    title: 'the library marks an OCR\'d document; Re-read reads it again (OCR, word boxes) and refuses a changed file',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      try {
        return await ctx.inBrowser((page) => rereadFlow({ page, url: carrel.url }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'online',
    title: 'a web page, a Hacker News thread and a YouTube video added by address (fake sites under their real names): fetching, ready, the saved page, the thread and the timed transcript cited (Watch at m:ss); hosts listed; online sources off refuses an address',
    async run(ctx) {
      const port = await closedPort();
      const sites = await startJSONProcess('testsites', 'go', ['run', './internal/testsites/cmd/testsites'], { timeoutMs: 5 * 60_000 });
      const carrel = await startCarrel({
        ollamaHost: `http://127.0.0.1:${port}`,
        // The site names reach the fake sites; Go's TLS trusts their certificate from SSL_CERT_FILE.
        env: { CARREL_RESOLVE: sites.info.resolve, SSL_CERT_FILE: sites.info.cert },
      });
      try {
        return await ctx.inBrowser((page) => onlineFlow({ page, url: carrel.url, sites: sites.info }), carrel);
      } finally {
        await carrel.stop();
        await sites.stop();
      }
    },
  },
  {
    name: 'stats',
    title: 'the stats view: empty state, then answers per day, cache and latency after asking (Ctrl+I and the header button)',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      const fixtures = join(frontendDir, 'e2e', 'fixtures');
      try {
        return await ctx.inBrowser((page) => statsFlow({ page, url: carrel.url, files: [join(fixtures, 'physics.md')] }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'stats-cache',
    title: 'the stats view counts a repeated question answered from the cache as a hit (real Ollama)',
    async run(ctx) {
      const ollama = await ctx.ollama();
      const carrel = await startCarrel({ ollamaHost: ollama.host, chatModel: ollama.chatModel, embedModel: ollama.embedModel });
      try {
        return await ctx.inBrowser((page) => statsCacheFlow({ page, url: carrel.url, file: join(frontendDir, 'e2e', 'fixtures', 'physics.md') }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'cite-step',
    title: 'next/previous citation walks the markers in order, highlighting the sentence in the chat and the passage in the viewer',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      try {
        return await ctx.inBrowser((page) => citeStepFlow({ page, url: carrel.url, pdf: ctx.pdf, question: QUESTION }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'settings',
    title: 'chunk sizes per document type (inline errors, saved, reset) and the library folder (errors, open, remembered, move)',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      const fixtures = join(frontendDir, 'e2e', 'fixtures');
      const scratch = tempDir('carrel-e2e-folders-');
      // A longer note, for re-chunking to cut into more passages.
      const long = join(scratch, 'wombat-notes.txt');
      writeFileSync(long, 'The wombat digs a burrow under the hill and sleeps there through the hot afternoon. '.repeat(40));
      try {
        return await ctx.inBrowser(
          (page) =>
            settingsFlow({
              page,
              url: carrel.url,
              files: [join(fixtures, 'physics.md'), long],
              library: carrel.library,
              config: carrel.config,
              scratch,
            }),
          carrel,
        );
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'study',
    title: 'no model: Make cards on a PDF, the due count in the library, a review with the keyboard (space, 1-4), S opens the card\'s source highlighted, a quiz with its score kept, the stats view, a card edited and suspended',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      try {
        return await ctx.inBrowser((page) => studyFlow({ page, url: carrel.url, pdf: ctx.pdf }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'study-summary',
    title: 'no model: Summarise a PDF in the summary dialog into a new session of its key sentences, each cited; a marker opens its page highlighted; text selected in the viewer summarised on its own; the session\'s flashcards made and reviewed from the sessions list',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      try {
        return await ctx.inBrowser((page) => studySummaryFlow({ page, url: carrel.url, pdf: ctx.pdf }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'study-model',
    title: 'cards from the chat model (real Ollama, tiny model): the toast says what it proposed and what the check kept; on a longer paper the progress counts passages and Stop keeps what was checked; a summary streams step by step and stops at its first token',
    async run(ctx) {
      const ollama = await ctx.ollama();
      const carrel = await startCarrel({ ollamaHost: ollama.host, chatModel: ollama.chatModel, embedModel: ollama.embedModel });
      try {
        return await ctx.inBrowser((page) => studyModelFlow({ page, url: carrel.url, pdf: ctx.pdf, long: pdfcpuTestdata('schmager_plateau10.pdf') }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'cache',
    title: 'a repeated question is answered from the cache (marked, with its source), "Ask again fresh" asks the model; memories shown and forgotten in settings (real Ollama)',
    async run(ctx) {
      const ollama = await ctx.ollama();
      const carrel = await startCarrel({ ollamaHost: ollama.host, chatModel: ollama.chatModel, embedModel: ollama.embedModel });
      try {
        return await ctx.inBrowser((page) => cacheFlow({ page, url: carrel.url, file: join(frontendDir, 'e2e', 'fixtures', 'physics.md') }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'scope',
    title: 'selected documents show as chips by the question box; a scoped question searches only them; the chip clears it',
    async run(ctx) {
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      const fixtures = join(frontendDir, 'e2e', 'fixtures');
      try {
        return await ctx.inBrowser((page) => scopeFlow({ page, url: carrel.url, files: [join(fixtures, 'physics.md'), join(fixtures, 'hostile.txt')] }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
  {
    name: 'start-ollama',
    title: 'Ollama installed but stopped: Start Ollama in the models panel starts it, and its models are listed and used',
    async run(ctx) {
      // Models made by the test Ollama (kept in a folder of ours), then that server stopped.
      const dir = tempDir('carrel-e2e-ollama-');
      const made = await startJSONProcess('testollama -dir', 'go', ['run', './internal/testollama/cmd/testollama', '-dir', dir], { timeoutMs: 15 * 60_000 });
      await made.stop();
      // The same Ollama binary, installed as `ollama` on the PATH Carrel sees.
      const real = execFileSync('go', ['run', './internal/testollama/cmd/testollama', '-binary'], { cwd: repoDir, encoding: 'utf8' }).trim();
      const bin = join(dir, 'bin');
      mkdirSync(bin);
      symlinkSync(real, join(bin, 'ollama'));
      const port = await closedPort();
      const carrel = await startCarrel({
        ollamaHost: `http://127.0.0.1:${port}`,
        chatModel: made.info.chat_model,
        embedModel: made.info.embed_model,
        env: { PATH: `${bin}:${process.env.PATH}`, OLLAMA_MODELS: join(dir, 'models'), HOME: join(dir, 'home') },
      });
      try {
        return await ctx.inBrowser((page) => startOllamaFlow({ page, url: carrel.url, chatModel: made.info.chat_model }), carrel);
      } finally {
        await carrel.stop(); // its process group: the Ollama it started too
      }
    },
  },
  {
    name: 'audio',
    title: 'a spoken MP3 is transcribed (PocketSphinx); its citation shows [m:ss], opens the transcript at the cited line, highlighted, and moves the player there',
    async run(ctx) {
      const audio = testAudio();
      const port = await closedPort();
      const carrel = await startCarrel({ ollamaHost: `http://127.0.0.1:${port}` });
      try {
        return await ctx.inBrowser((page) => audioFlow({ page, url: carrel.url, audio }), carrel);
      } finally {
        await carrel.stop();
      }
    },
  },
];

async function main() {
  carrelBin(); // fail early with a clear message
  rmSync(resultsDir, { recursive: true, force: true }); // screenshots of this run only
  const pdf = pdfcpuTestdata('Walden.pdf');
  let ollamaP = null;
  const ctx = {
    pdf,
    ollama: () => (ollamaP ??= startOllama()),
    async inBrowser(fn, carrel) {
      const b = await openBrowser();
      try {
        if (carrel?.link) await login(b.page, carrel);
        const result = await fn(b.page, b);
        assert(b.problems.length === 0, `no page errors or CSP violations:\n  ${b.problems.join('\n  ')}`);
        return result;
      } catch (e) {
        await screenshot(b.page, `failure-${Date.now()}`).catch(() => {});
        const log = carrel?.log?.() ?? '';
        if (log) e.message += `\n--- carrel log (tail) ---\n${log.slice(-2000)}`;
        const ollamaLog = ollamaP ? (await ollamaP.catch(() => null))?.log?.() ?? '' : '';
        if (ollamaLog) e.message += `\n--- test Ollama log (tail) ---\n${ollamaLog.slice(-3000)}`;
        if (b.problems.length) e.message += `\n--- browser ---\n${b.problems.join('\n')}`;
        throw e;
      } finally {
        await b.close();
      }
    },
  };

  const only = process.env.E2E_ONLY;
  let passed = 0;
  let failed = 0;
  for (const t of tests) {
    if (only && t.name !== only) continue;
    const t0 = Date.now();
    try {
      const res = await t.run(ctx);
      passed++;
      console.log(`ok   ${t.name}: ${t.title} (${((Date.now() - t0) / 1000).toFixed(1)}s) ${JSON.stringify(res)}`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${t.name}: ${t.title} (${((Date.now() - t0) / 1000).toFixed(1)}s)\n  ${String(e?.stack || e).replace(/\n/g, '\n  ')}`);
    }
  }
  return { passed, failed };
}

let code = 1;
const hardStop = setTimeout(() => {
  console.log('e2e: overall timeout (20 minutes)');
  void cleanup().finally(() => process.exit(1));
}, 20 * 60_000);
hardStop.unref();
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => void cleanup().finally(() => process.exit(130)));

try {
  const { passed, failed } = await main();
  console.log(`${passed} passed, ${failed} failed`);
  code = failed === 0 && passed > 0 ? 0 : 1;
} catch (e) {
  console.log(`e2e: ${e?.message || e}`);
  console.log('0 passed, 1 failed');
} finally {
  await cleanup();
}
process.exit(code);
