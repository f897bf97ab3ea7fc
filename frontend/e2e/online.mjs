// Online sources: a web page added by its address shows as being fetched, then ready; a
// question about it cites it, and the citation opens the saved copy of the page in the
// viewer with the passage highlighted (navigation and scripts gone). A Hacker News thread
// (served by the fake sites under its real name, through CARREL_RESOLVE) becomes a
// document whose citation opens the thread at the cited comment, with its permalink.
// Settings → Online sources lists the hosts contacted; turned off, an address is refused
// with a message saying where to turn it on.

import { assert, screenshot } from './harness.mjs';
import { ask } from './flows.mjs';

const FACT = 'Rooftop hives in Paris produce about twenty kilograms of honey per colony each summer.';

async function addURL(page, address) {
  if (!(await page.locator('[data-testid=add-url-input]').isVisible())) await page.click('[data-testid=add-url-button]');
  await page.fill('[data-testid=add-url-input]', address);
  await page.click('[data-testid=add-url-submit]');
}

/** Waits for the library item of a URL to end ready (throws on failure); returns it. */
async function waitReady(page, title) {
  const doc = page.locator('[data-testid=document]', { hasText: title });
  await page.waitForFunction(
    (t) => {
      const d = [...document.querySelectorAll('[data-testid=document]')].find((x) => x.textContent.includes(t));
      if (d?.dataset.status === 'failed') throw new Error(`fetch failed: ${d.querySelector('[data-testid=document-error]')?.textContent}`);
      return d?.dataset.status === 'ready';
    },
    title,
    { timeout: 60_000, polling: 100 },
  );
  return doc;
}

export async function onlineFlow({ page, url, sites }) {
  await page.goto(url);
  await page.locator('[data-testid=mode-badge]').waitFor({ timeout: 30_000 });
  const seen = new Set();
  page.on('request', (r) => seen.add(new URL(r.url()).host));

  // A web page by its address: fetching, then ready as a web page.
  await addURL(page, `${sites.url}/redirect/2?delay=1500`);
  const fetching = page.locator('[data-testid=document][data-status=fetching]');
  await fetching.waitFor({ timeout: 10_000 });
  assert(/Fetching/.test(await fetching.textContent()), 'the address shows as being fetched');
  await screenshot(page, 'online-1-fetching');
  const doc = await waitReady(page, 'The Quiet Return of Urban Beekeeping');
  assert((await doc.locator('[data-testid=document-kind]').textContent()).trim() === 'Web', 'the library marks it a web page');
  assert((await page.locator('[data-testid=document][data-status=fetching]').count()) === 0, 'the placeholder is gone');

  // Its snapshot, from the library: the article, not the navigation, with "Open original".
  await doc.locator('[data-testid=document-title]').click();
  const snap = page.locator('[data-testid=snapshot-page]');
  await snap.waitFor({ timeout: 10_000 });
  const text = await snap.textContent();
  assert(text.includes(FACT), 'the viewer shows the saved page');
  assert(!/newsletter for celebrity gossip|Cookie settings/.test(text), 'without its navigation and footer');
  assert((await snap.locator('img, iframe, script').count()) === 0, 'and without images, frames or scripts');
  assert((await page.locator('[data-testid=open-original]').getAttribute('title')) === `${sites.url}/articles/urban-bees`, 'Open original links the canonical address');
  await screenshot(page, 'online-2-snapshot');

  // A question about it: the answer cites it, and the citation opens the page highlighted.
  const answer = await ask(page, 'How much honey do rooftop hives in Paris produce?');
  const marker = answer.locator('[data-testid=answer-body] button.cite').first();
  await marker.waitFor({ timeout: 60_000 });
  await marker.click();
  await page.locator('[data-testid=snapshot-view] [data-testid=highlight-status][data-found=true]').waitFor({ timeout: 10_000 });
  const marked = (await page.locator('[data-testid=snapshot-page] mark[data-testid=passage-highlight]').allTextContents()).join('');
  assert(marked.replace(/\s/g, '').includes(FACT.replace(/\s/g, '')), `the cited passage is highlighted in the page (${marked.slice(0, 120)}…)`);
  await screenshot(page, 'online-3-cited');

  // A Hacker News thread: each comment a passage; a citation opens it at the comment.
  await addURL(page, 'https://news.ycombinator.com/item?id=1000');
  const thread = await waitReady(page, 'Ask HN: How do bees find their way home?');
  assert((await thread.locator('[data-testid=document-kind]').textContent()).trim() === 'HN', 'the library marks it a Hacker News thread');
  const answer2 = await ask(page, 'How is the sun compass corrected by an internal clock?');
  const cite2 = answer2.locator('[data-testid=answer-body] button.cite').first();
  await cite2.waitFor({ timeout: 60_000 });
  await cite2.click();
  const cited = page.locator('[data-testid=thread-item][data-cited=true]');
  await cited.waitFor({ timeout: 10_000 });
  assert((await cited.textContent()).includes('carol'), 'the thread opens at the cited comment (carol, three deep)');
  assert((await cited.locator('mark[data-testid=passage-highlight]').count()) > 0, 'its passage is highlighted');
  assert(
    (await page.locator('[data-testid=open-permalink]').getAttribute('title')) === 'https://news.ycombinator.com/item?id=1006',
    'the citation links to the comment’s permalink',
  );
  await screenshot(page, 'online-4-thread');

  // A YouTube video: its captions are a timed transcript; a citation shows the line it
  // cites and offers the video at that time on the site (opened in a new window, which
  // the test catches before it reaches the network).
  await addURL(page, 'https://youtu.be/bEEs0aBcD12');
  const video = await waitReady(page, 'How Bees Find Flowers');
  assert((await video.locator('[data-testid=document-kind]').textContent()).trim() === 'YouTube', 'the library marks it a YouTube video');
  const answer3 = await ask(page, 'How many flowers does a forager visit on a single trip?');
  const cite3 = answer3.locator('[data-testid=answer-body] button.cite').first();
  await cite3.waitFor({ timeout: 60_000 });
  await cite3.click();
  // The transcript opens at the cited line, within the cited passage that holds the
  // answer, and the Watch button offers the video at that line's time.
  const line = page.locator('[data-testid=transcript-line][data-cited=true]');
  await line.waitFor({ timeout: 10_000 });
  const lineStart = Number(await line.getAttribute('data-start'));
  const lineClock = (await line.locator('.time').textContent()).trim();
  assert(lineStart > 0 && lineStart <= 65.5, `the cited passage starts after the video's start, by the line it cites (${lineStart} s)`);
  const passageLines = await page.locator('[data-testid=transcript-line].passage').allTextContents();
  assert(passageLines.some((l) => l.includes('A forager visits up to one hundred flowers')), 'the cited passage holds the line that answers');
  // The citation's chip names when its passage starts: a line of the passage.
  const chipTime = /\[(\d+:\d\d)\]/.exec(await answer3.locator('[data-testid=source]').first().textContent())?.[1];
  const passageTimes = await page.locator('[data-testid=transcript-line].passage .time').allTextContents();
  assert(chipTime && passageTimes.map((x) => x.trim()).includes(chipTime), `the citation shows a time of its passage ([${chipTime}] among ${passageTimes.join(' ')})`);
  const watch = page.locator('[data-testid=media-external]');
  assert((await watch.textContent()).includes(`Watch at ${lineClock}`), `the viewer offers the video at that time (${await watch.textContent()})`);
  let opened = '';
  await page.context().route(/youtube\.com|youtu\.be/, (route) => {
    opened ||= route.request().url();
    return route.fulfill({ status: 200, contentType: 'text/plain', body: 'the video' });
  });
  const popup = page.waitForEvent('popup', { timeout: 10_000 });
  await watch.click();
  await (await popup).close();
  const at = new URL(opened);
  assert(
    at.hostname === 'www.youtube.com' && at.searchParams.get('v') === 'bEEs0aBcD12' && at.searchParams.get('t')?.replace(/s$/, '') === String(Math.floor(lineStart)),
    `the video opens at the cited time, ${Math.floor(lineStart)} s (${opened})`,
  );
  await screenshot(page, 'online-5-video');

  // Settings → Online sources: the hosts contacted, then off.
  await page.keyboard.press('Control+,');
  const section = page.locator('[data-testid=online-settings]');
  await section.waitFor({ timeout: 10_000 });
  // The list is read when the panel opens: wait for it (allTextContents does not).
  await section.locator('[data-testid=online-host]').first().waitFor({ timeout: 10_000 });
  const hosts = await section.locator('[data-testid=online-host]').allTextContents();
  assert(hosts.some((h) => h.includes(sites.url.replace('http://', ''))) && hosts.some((h) => h.includes('hacker-news.firebaseio.com:443')), `the hosts contacted are listed (${hosts.join(' | ')})`);
  await page.uncheck('[data-testid=online-enabled]');
  await page.waitForFunction(() => !document.querySelector('[data-testid=online-enabled]')?.disabled);
  await screenshot(page, 'online-6-settings');
  await page.keyboard.press('Escape');
  await page.locator('[data-testid=settings]').waitFor({ state: 'hidden' });

  const before = await page.locator('[data-testid=document]').count();
  await addURL(page, `${sites.url}/notes.txt`);
  const toast = page.locator('[data-testid=toast]', { hasText: /online sources are turned off/ });
  await toast.waitFor({ timeout: 10_000 });
  assert(/Settings → Online sources/.test(await toast.textContent()), `the refusal says where to turn them on (${await toast.textContent()})`);
  assert((await page.locator('[data-testid=document]').count()) === before, 'nothing was added');
  await screenshot(page, 'online-7-refused');

  // The browser itself fetched nothing from the sites: Carrel did, and keeps the copies.
  const browserHosts = [...seen].filter((h) => h !== new URL(url).host);
  assert(browserHosts.length === 0, `the page loaded nothing from elsewhere (${browserHosts.join(', ')})`);
  return { hosts: hosts.length };
}
