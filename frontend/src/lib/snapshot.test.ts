// @vitest-environment jsdom
import { describe, expect, it } from 'vitest';
import { itemHead, markPassage, parseThread, sanitizeSnapshot, threadPages } from './snapshot';

describe('sanitizeSnapshot', () => {
  it('keeps text and web links, drops what runs or loads from the network', () => {
    const out = sanitizeSnapshot(
      '<html><head><title>T</title><link rel="stylesheet" href="https://x/a.css"></head><body><article><h1>Bees</h1>' +
        '<p onclick="alert(1)">Text <a href="https://example.com/a">link</a> <a href="javascript:alert(1)">bad</a></p>' +
        '<img src="https://tracker/p.gif"><iframe src="https://ads/"></iframe><script>alert(1)</script>' +
        '<p style="background:url(https://x/b.png)">styled</p></article></body></html>',
    );
    expect(out).toContain('<h1>Bees</h1>');
    expect(out).toContain('href="https://example.com/a"');
    for (const bad of ['<img', '<iframe', '<script', 'onclick', 'javascript:', 'style=', 'a.css', '<title']) expect(out).not.toContain(bad);
  });
});

describe('markPassage', () => {
  it('marks a passage that spans elements and differs in white space', () => {
    const root = document.createElement('div');
    root.innerHTML =
      '<h1>Urban bees</h1><p>Beekeeping has come back.</p><p>Rooftop hives in <em>Paris</em> produce about twenty kilograms of honey per colony each summer. That is more.</p>';
    const marks = markPassage(root, 'Rooftop hives in Paris produce about twenty\nkilograms of honey per colony each summer.');
    expect(marks.length).toBeGreaterThanOrEqual(3); // before, inside and after <em>
    // White space at an element's edge is not part of a mark (the match skips it).
    const marked = marks.map((m) => m.textContent).join('');
    expect(marked.replace(/\s/g, '')).toBe('Rooftophivesinparisproduceabouttwentykilogramsofhoneypercoloneachsummer.'.replace('paris', 'Paris').replace('colon', 'colony'));
    expect(root.textContent).toContain('Beekeeping has come back.Rooftop'); // the text itself is unchanged
  });

  it('marks nothing when the passage is not there', () => {
    const root = document.createElement('div');
    root.innerHTML = '<p>Something else entirely, about wasps and their nests in old walls.</p>';
    expect(markPassage(root, 'Rooftop hives in Paris produce about twenty kilograms of honey.')).toEqual([]);
  });
});

describe('threads', () => {
  const t = parseThread({
    format: 'carrel-thread/1',
    url: 'https://news.ycombinator.com/item?id=1',
    site: 'Hacker News',
    title: 'Ask HN: bees?',
    items: [
      { author: 'pg', depth: 0, text: 'How?', url: 'https://news.ycombinator.com/item?id=1' },
      { author: 'alice', depth: 1, text: '  ', url: 'javascript:alert(1)' },
      { author: 'bob', parent: 'pg', depth: 2, text: 'Like this.', url: 'https://news.ycombinator.com/item?id=3' },
    ],
  })!;
  it('numbers pages as ingest does: items with text only', () => {
    const pages = threadPages(t);
    expect(pages.map((p) => p.author)).toEqual(['pg', 'bob']);
    expect(itemHead(t, pages[0])).toBe('Ask HN: bees?\nPosted by pg');
    expect(itemHead(t, pages[1])).toBe('bob, answering pg:');
  });
  it('keeps only web permalinks and refuses what is not a thread', () => {
    expect(t.items[1].url).toBe('');
    expect(parseThread({ format: 'other', items: [] })).toBeNull();
    expect(parseThread(null)).toBeNull();
  });
});
