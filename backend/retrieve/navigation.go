package retrieve

import "github.com/carrel-app/carrel/backend/ingest"

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
