// Process and browser plumbing for the end-to-end tests: start the real Go backend
// (`carrel serve`) and the real test Ollama server, open headless Chromium, clean up.

import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const frontendDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoDir = resolve(frontendDir, '..');
export const resultsDir = process.env.E2E_RESULTS ? resolve(process.env.E2E_RESULTS) : join(frontendDir, 'test-results');

const children = new Set();
const tempDirs = new Set();

export function tempDir(prefix) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(d);
  return d;
}

/**
 * Starts a process that prints one JSON line on stdout when it is ready, and returns
 * { proc, info, stop, log }. Its own process group, so stop() ends everything it spawned.
 */
export function startJSONProcess(name, cmd, args, { env = {}, cwd = repoDir, timeoutMs = 120_000 } = {}) {
  return new Promise((resolveP, reject) => {
    const proc = spawn(cmd, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    children.add(proc);
    let out = '';
    let log = '';
    let done = false;
    const stop = () => stopProcess(proc);
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      stop();
      reject(new Error(`${name}: no ready line after ${timeoutMs / 1000}s\n${tail(log)}`));
    }, timeoutMs);
    proc.stderr.on('data', (d) => (log += d));
    proc.stdout.on('data', (d) => {
      if (done) {
        log += d;
        return;
      }
      out += d;
      const nl = out.indexOf('\n');
      if (nl < 0) return;
      const line = out.slice(0, nl).trim();
      try {
        const info = JSON.parse(line);
        done = true;
        clearTimeout(timer);
        resolveP({ proc, info, stop, log: () => log });
      } catch {
        log += line + '\n';
        out = out.slice(nl + 1);
      }
    });
    proc.on('error', (e) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(new Error(`${name}: ${e.message}`));
    });
    proc.on('exit', (code) => {
      children.delete(proc);
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready\n${tail(log)}`));
    });
  });
}

function tail(s, n = 3000) {
  return s.length > n ? '…' + s.slice(-n) : s;
}

function stopProcess(proc) {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((res) => {
    const t = setTimeout(() => {
      try {
        process.kill(-proc.pid, 'SIGKILL');
      } catch {}
      res();
    }, 5000);
    proc.once('exit', () => {
      clearTimeout(t);
      res();
    });
    try {
      proc.stdin?.end(); // testollama stops when its stdin closes
      process.kill(-proc.pid, 'SIGTERM');
    } catch {
      clearTimeout(t);
      res();
    }
  });
}

export async function cleanup() {
  await Promise.all([...children].map(stopProcess));
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
}

/** A loopback port with nothing listening on it (for "Ollama is not running"). */
export function closedPort() {
  return new Promise((res, rej) => {
    const srv = net.createServer();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

export function carrelBin() {
  const bin = resolve(frontendDir, process.env.CARREL_BIN || '../build/bin/carrel');
  if (!existsSync(bin)) {
    throw new Error(`carrel binary not found at ${bin}: build it first (task build, or go build -o build/bin/carrel .), or set CARREL_BIN`);
  }
  return bin;
}

/**
 * `carrel --library DIR [model flags] serve --addr 127.0.0.1:0` → its URL. Its user config
 * folder is a temporary one (the app remembers things there: never the tester's own).
 */
export async function startCarrel({ ollamaHost, chatModel, embedModel, env = {}, library = tempDir('carrel-e2e-lib-') }) {
  const config = tempDir('carrel-e2e-config-');
  const args = ['--library', library];
  if (chatModel) args.push('--chat-model', chatModel);
  if (embedModel) args.push('--embed-model', embedModel);
  args.push('serve', '--addr', '127.0.0.1:0');
  const p = await startJSONProcess('carrel serve', carrelBin(), args, {
    env: { XDG_CONFIG_HOME: config, ...env, OLLAMA_HOST: ollamaHost },
    timeoutMs: 60_000,
  });
  if (!p.info.url) throw new Error(`carrel serve printed no url: ${JSON.stringify(p.info)}`);
  // The printed link holds the run's key (?token=…); `url` is the app without it, which
  // works once a browser has opened the link (login).
  const link = new URL(p.info.url);
  if (!link.searchParams.get('token')) throw new Error(`carrel serve printed a link without its key: ${p.info.url}`);
  return { ...p, link: p.info.url, url: `${link.origin}/`, token: link.searchParams.get('token'), library, config };
}

/**
 * Opens serve's printed link in page, as a user would: the key is exchanged for a cookie
 * and the page moves on to the app's clean URL.
 */
export async function login(page, carrel) {
  await page.goto(carrel.link);
  await page.waitForURL((u) => u.href === carrel.url, { timeout: 15_000 });
  const cookies = await page.context().cookies(carrel.url);
  assert(
    cookies.some((c) => c.httpOnly && c.sameSite === 'Strict' && c.value === carrel.token),
    `the link set an HttpOnly SameSite=Strict cookie: ${JSON.stringify(cookies.map(({ name, httpOnly, sameSite }) => ({ name, httpOnly, sameSite })))}`,
  );
}

/**
 * The real Ollama server with the tiny test models (internal/testollama). E2E_OLLAMA
 * may name one already running, as the JSON line testollama prints (faster reruns).
 */
export async function startOllama() {
  if (process.env.E2E_OLLAMA) {
    const info = JSON.parse(process.env.E2E_OLLAMA);
    return { info, host: info.host, chatModel: info.chat_model, embedModel: info.embed_model, pull: info.pull, stop: async () => {}, log: () => '' };
  }
  const p = await startJSONProcess('testollama', 'go', ['run', './internal/testollama/cmd/testollama', '-registry'], {
    timeoutMs: 15 * 60_000, // a first run may build Ollama (~5 minutes on 2 cores)
  });
  return { ...p, host: p.info.host, chatModel: p.info.chat_model, embedModel: p.info.embed_model, pull: p.info.pull };
}

/** A real Ollama server with no models at all (to pull into). */
export async function startEmptyOllama() {
  const p = await startJSONProcess('testollama -empty', 'go', ['run', './internal/testollama/cmd/testollama', '-empty'], {
    timeoutMs: 15 * 60_000,
  });
  return { ...p, host: p.info.host };
}

export function goModCache() {
  return execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
}

export function pdfcpuTestdata(name) {
  const dir = execFileSync('go', ['list', '-m', '-f', '{{.Dir}}', 'github.com/pdfcpu/pdfcpu'], { cwd: repoDir, encoding: 'utf8' }).trim();
  const p = join(dir || join(goModCache(), 'github.com/pdfcpu/pdfcpu@v0.15.0'), 'pkg/testdata', name);
  if (!existsSync(p)) throw new Error(`test PDF not found: ${p}`);
  return p;
}

/** Headless Chromium (Debian's), with a fresh profile; collects page errors and CSP violations. */
export async function openBrowser({ colorScheme = 'light' } = {}) {
  const profile = tempDir('carrel-e2e-chromium-');
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
    colorScheme,
  });
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    const t = m.text();
    if (m.type() === 'error' && !/Failed to load resource/.test(t)) problems.push(`console error: ${t}`);
    if (/Content.Security.Policy|Refused to/i.test(t)) problems.push(`CSP: ${t}`);
  });
  return { ctx, page, problems, close: () => ctx.close() };
}

export async function screenshot(page, name) {
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

export function assert(cond, message) {
  if (!cond) throw new Error(`assertion failed: ${message}`);
}
