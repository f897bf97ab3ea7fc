// Other local origins against `carrel serve`, in the real browser that holds the app's
// cookie: a page on another port of the same host (same-site: the browser sends it the
// cookie) and one on another loopback name (cross-site) try everything a web page can
// (fetch with and without CORS, a text/plain "simple" POST, a form POST, an image, an
// event stream, a frame) against the bridge and /files/. None may change the library or
// read anything; the app's own page goes on working.

import http from 'node:http';
import { assert, screenshot } from './harness.mjs';
import { uploadAndWaitReady } from './flows.mjs';

/** A tiny server of another origin: serves the attacker's page. */
function attackerServer(html) {
  return new Promise((res) => {
    const srv = http.createServer((req, rsp) => {
      rsp.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
      rsp.end(html);
    });
    srv.listen(0, '127.0.0.1', () => res({ port: srv.address().port, close: () => new Promise((r) => srv.close(r)) }));
  });
}

// Runs in the attacker's page; every attempt records what the page could see.
function attackerScript(bridge, docID, secret) {
  return `
const B = ${JSON.stringify(bridge)}, DOC = ${JSON.stringify(docID)}, SECRET = ${JSON.stringify(secret)};
const results = {};
const attempt = async (name, fn) => { try { results[name] = await fn(); } catch (e) { results[name] = 'error: ' + e.name; } };
const withTimeout = (p, ms = 4000) => Promise.race([p, new Promise((r) => setTimeout(() => r('timeout'), ms))]);
(async () => {
  await attempt('simple text/plain POST (AddPaths)', async () => {
    const r = await fetch(B + '/api/call/AddPaths', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: JSON.stringify([[SECRET]]) });
    return 'sent, ' + r.type;
  });
  await attempt('simple text/plain POST, read (ListDocuments)', async () => {
    const r = await fetch(B + '/api/call/ListDocuments', { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: '[]' });
    return 'read: ' + (await r.text());
  });
  await attempt('JSON POST (Search)', async () => {
    const r = await fetch(B + '/api/call/Search', { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(['swordfish', 5, null]) });
    return 'read: ' + (await r.text());
  });
  await attempt('fetch /files/', async () => {
    const r = await fetch(B + '/files/' + DOC, { credentials: 'include' });
    return 'read: ' + (await r.text());
  });
  await attempt('no-cors fetch /files/', async () => {
    const r = await fetch(B + '/files/' + DOC, { mode: 'no-cors', credentials: 'include' });
    return 'sent, ' + r.type;
  });
  await attempt('<img> /files/', () => withTimeout(new Promise((res) => {
    const i = new Image();
    i.onload = () => res('loaded ' + i.naturalWidth + 'x' + i.naturalHeight);
    i.onerror = () => res('blocked');
    i.src = B + '/files/' + DOC;
  })));
  await attempt('EventSource /api/events', () => withTimeout(new Promise((res) => {
    const es = new EventSource(B + '/api/events', { withCredentials: true });
    es.onopen = () => { es.close(); res('open'); };
    es.onerror = () => { es.close(); res('blocked'); };
  })));
  await attempt('form POST (AddPaths)', () => withTimeout(new Promise((res) => {
    const sink = document.createElement('iframe');
    sink.name = 'sink';
    document.body.append(sink);
    const form = document.createElement('form');
    form.method = 'POST';
    form.action = B + '/api/call/AddPaths';
    form.enctype = 'text/plain';
    form.target = 'sink';
    const input = document.createElement('input');
    input.name = '[["' + SECRET + '"]]';
    input.value = '';
    form.append(input);
    document.body.append(form);
    sink.onload = () => res('submitted');
    form.submit();
  })));
  await attempt('<iframe> the app', () => withTimeout(new Promise((res) => {
    const f = document.createElement('iframe');
    f.id = 'framed';
    f.onload = () => { try { res('readable: ' + f.contentDocument.body.innerHTML.length); } catch (e) { res('unreadable'); } };
    f.src = B + '/';
    document.body.append(f);
  })));
  await attempt('<iframe> /files/', () => withTimeout(new Promise((res) => {
    const f = document.createElement('iframe');
    f.onload = () => { try { res('readable: ' + f.contentDocument.body.innerText); } catch (e) { res('unreadable'); } };
    f.src = B + '/files/' + DOC;
    document.body.append(f);
  })));
  window.__results = results;
})();
`;
}

async function callOwn(page, method, args) {
  return page.evaluate(
    async ([m, a]) => {
      const r = await fetch(`api/call/${m}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(a) });
      return { status: r.status, body: await r.json() };
    },
    [method, args],
  );
}

export async function otherOriginFlow({ page, ctx, carrel, file, secret }) {
  const bridge = new URL(carrel.url).origin;
  // Without the key the app is locked: a request without the cookie sees only how to get in.
  const bare = await fetch(carrel.url);
  const bareText = await bare.text();
  assert(bare.status === 401 && /printed/.test(bareText) && !/id="app"/.test(bareText), `the app without its key: ${bare.status} ${bareText.slice(0, 200)}`);

  await page.goto(carrel.url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  await uploadAndWaitReady(page, file);
  const docs = (await callOwn(page, 'ListDocuments', [])).body;
  assert(docs.length === 1, `one document before the attack (${docs.length})`);
  const docID = docs[0].id;
  const own = await page.evaluate(async (id) => (await fetch(`files/${id}`)).status, docID);
  assert(own === 200, `the app's own page reads /files/ (${own})`);

  const srv = await attackerServer(`<!doctype html><title>evil</title><body><script>${attackerScript(bridge, docID, secret)}</script></body>`);
  const report = {};
  try {
    // Same host, another port: same-site, so the cookie goes along; and another loopback
    // name: cross-site, so it does not.
    for (const origin of [`http://127.0.0.1:${srv.port}`, `http://localhost:${srv.port}`]) {
      const evil = await ctx.newPage();
      await evil.goto(`${origin}/`);
      await evil.waitForFunction(() => window.__results, null, { timeout: 60_000 });
      const results = await evil.evaluate(() => window.__results);
      report[origin] = results;
      for (const [name, got] of Object.entries(results)) {
        const ok = got === 'sent, opaque' || got === 'blocked' || got === 'unreadable' || got === 'submitted' || got === 'timeout' || got.startsWith('error: ');
        assert(ok, `${origin}: ${name} got through: ${got}`);
        assert(!/swordfish|quokka|Mitochondria/i.test(got), `${origin}: ${name} read library text: ${got}`);
      }
      // Whatever the frames show, it is not the app (refused before any of it is sent).
      for (const f of evil.frames()) {
        if (f === evil.mainFrame()) continue;
        const hasApp = await f.evaluate(() => !!document.querySelector('#app')).catch(() => false);
        assert(!hasApp, `${origin}: a frame shows the app (${f.url()})`);
      }
      await screenshot(evil, `other-origin-${new URL(origin).hostname}`);
      await evil.close();
    }
  } finally {
    await srv.close();
  }

  // Nothing changed, nothing leaked: still one document, and the secret is not in it.
  const after = (await callOwn(page, 'ListDocuments', [])).body;
  assert(after.length === 1 && after[0].id === docID, `still only the one document: ${JSON.stringify(after.map((d) => d.path))}`);
  const hits = (await callOwn(page, 'Search', ['swordfish', 5, null])).body;
  assert(Array.isArray(hits) && hits.length === 0, `the secret file was not ingested: ${JSON.stringify(hits)}`);
  // The same-site page's requests reached the server with the cookie and were refused there.
  assert(/refused a request from another page/.test(carrel.log()), 'the server logged refusing the same-site page');

  // The app's own page still works after it all.
  await page.reload();
  await page.locator('[data-testid=document]').first().waitFor({ timeout: 30_000 });
  const found = (await callOwn(page, 'Search', ['energy', 5, null])).body;
  assert(Array.isArray(found) && found.length > 0 && found[0].doc_id === docID, `the app's own search works: ${JSON.stringify(found).slice(0, 200)}`);
  return { origins: Object.keys(report).length, attempts: Object.values(report).reduce((n, r) => n + Object.keys(r).length, 0) };
}
