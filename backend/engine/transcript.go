package engine

import (
	"context"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/library"
)

// Transcript returns the timed text of a recording in the library (see
// library.Transcript); a document without one gives an error matching
// library.ErrNotFound.
func (e *Engine) Transcript(ctx context.Context, docID string) (library.Transcript, error) {
	return e.lib.Transcript(ctx, docID)
}

// PassageTime returns when a point of a cited passage was said: the passage begins at
// byte offset start of page (as chat.Passage and library.Citation give it) and the point
// is rune offset at within the passage's text (a claim span's Start; 0 for the passage's
// beginning). ok is false when the document has no transcript.
func (e *Engine) PassageTime(ctx context.Context, docID string, page, start, at int) (sec float64, ok bool) {
	t, err := e.lib.Transcript(ctx, docID)
	if err != nil || len(t.Segments) == 0 {
		return 0, false
	}
	// A passage's text is the tail of its first page from start, then whole pages, each
	// after chunk.PageSeparator (chunk.PageText): walk it to the page holding the point.
	for at > 0 {
		text, err := e.lib.PageText(ctx, docID, page)
		if err != nil || start > len(text) {
			break
		}
		rest := text[start:]
		n := utf8.RuneCountInString(rest)
		if at <= n {
			start += len(string([]rune(rest)[:at]))
			break
		}
		at -= n + utf8.RuneCountInString(chunk.PageSeparator)
		page, start = page+1, 0
		if at < 0 {
			at = 0
		}
	}
	return t.TimeAt(page, start)
}
