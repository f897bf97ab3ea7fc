package retrieve

import (
	"sync"

	"github.com/carrel-app/carrel/backend/ingest"
)

// A navigation passage is one whose bulk only points elsewhere: lines of a table of
// contents or of an index (titles, or entries ending in page numbers), or extraction
// debris (OCR noise, stray symbols); ingest.NavigationShare measures it (one copy, which
// backend/study uses too to make no flashcards of it). Such a passage holds many of a
// document's title words and no statement about them, so it can outrank the passages it
// points to on words alone (Walden's cover-and-contents page was the best passage for
// three of four questions about the book). Once the share passes NavigationFrom the
// passage's score is scaled by the share that is not navigation, what is left of it to
// answer from: demoted, not dropped, since for "what chapters does it have?" the contents
// is the answer. (Scaling by 1 - 0.6 of the share left Walden's contents page, 70%
// titles, second for "Why did Thoreau go to the woods?": its BM25 lead on the book's
// title words was too large.)
const NavigationFrom = ingest.NavigationFrom

// navigationFactor is what a passage's score is multiplied by (see Navigation).
func navigationFactor(text string) float64 {
	if s := ingest.NavigationShare(text); s >= NavigationFrom {
		return 1 - s
	}
	return 1
}

// navFactors caches navigationFactor by passage ID (a hash of the text, as for sketches):
// ingest.NavigationShare reads every line and word of a passage, and measuring the same
// twenty passages search after search was a third of a 10k-chunk library's query
// (bench:retrieve, 2026-12-03: 0.36 ms of CPU a query before the demotion, 0.72 with it
// measured each time).
var navFactors = factorCache{max: 8192}

type factorCache struct {
	mu  sync.Mutex
	m   map[string]factorEntry
	max int // entries (~40 bytes each) before the cache starts over
}

type factorEntry struct {
	f    float64
	size int // the text's length, to catch an ID reused for another text
}

// get returns navigationFactor(text), from the cache when id is known.
func (c *factorCache) get(id, text string) float64 {
	if id == "" {
		return navigationFactor(text)
	}
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok && e.size == len(text) {
		return e.f
	}
	e = factorEntry{f: navigationFactor(text), size: len(text)}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = map[string]factorEntry{}
	}
	c.m[id] = e
	c.mu.Unlock()
	return e.f
}
