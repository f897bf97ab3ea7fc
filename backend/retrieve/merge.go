package retrieve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/carrel-app/carrel/backend/library"
)

// MaxMerged is how many neighbouring passages of one document a hit may join. A passage
// (parent) is cut at a size, not where its subject ends, so an answer often runs over
// the cut: the "1 Line File Server" exercise's title is in one passage and its program
// in the next. When both halves are retrieved, showing them as one passage gives the reader and
// the model the whole of it, and frees a place for another source (the auto-merging of
// LlamaIndex's hierarchical retrieval, on neighbours instead of siblings). Two keeps a
// hit within twice a passage's size.
const MaxMerged = 2

// merged tracks, for each kept hit, the document positions (parent ords) it covers.
type merged struct{ lo, hi, n int }

// neighbour returns the index in out of a kept hit h continues (the passage just before
// or after it in the same document, within MaxMerged), or -1.
func neighbour(out []Hit, spans []merged, h Hit) int {
	if !isParent(h) {
		return -1
	}
	for i, o := range out {
		s := spans[i]
		if s.n == 0 || s.n >= MaxMerged || o.Chunk.DocID != h.Chunk.DocID {
			continue
		}
		// A passage before the kept one joins it only from the same page: the hit's page is
		// where its best match is, and the citation opens there.
		if h.Chunk.Ord == s.hi+1 || (h.Chunk.Ord == s.lo-1 && h.Chunk.PageStart == o.Chunk.PageStart) {
			return i
		}
	}
	return -1
}

// isParent reports whether h's passage is a parent (not a child standing for itself, as
// in a library from before parents), so that its neighbours are parents too.
func isParent(h Hit) bool {
	return h.Chunk.Seq > 0 && h.ChildSeq != h.Chunk.Seq && h.Chunk.ParentSeq == 0
}

// PageTexter reads a page's text; a ChunkStore that is one lets neighbours join (their
// joined text is read from the pages, so that it is exactly the span's).
type PageTexter interface {
	PageText(ctx context.Context, docID string, page int) (string, error)
}

// join makes kept hit a and its neighbour b one hit: the span of both in document order,
// its text read from the pages, a's score and place (it ranked higher), the lists' best
// ranks of the two. ok is false when the store cannot give the text.
func (r *Retriever) join(ctx context.Context, a, b Hit) (Hit, bool, error) {
	pt, ok := r.Store.(PageTexter)
	if !ok {
		return Hit{}, false, nil
	}
	first, second := a.Chunk, b.Chunk
	if b.Chunk.Ord < a.Chunk.Ord {
		first, second = second, first
	}
	c := first
	c.PageEnd, c.End = second.PageEnd, second.End
	c.ID = "" // no longer one stored passage
	text, err := spanText(ctx, pt, c)
	if errors.Is(err, library.ErrNotFound) {
		return Hit{}, false, nil
	}
	if err != nil {
		return Hit{}, false, fmt.Errorf("join passages: %w", err)
	}
	c.Text = text
	out := a
	out.Chunk = c
	out.parts = append(append([]string(nil), a.texts()...), b.Chunk.Text)
	out.LexicalRank, out.LexicalScore = bestRank(a.LexicalRank, a.LexicalScore, b.LexicalRank, b.LexicalScore)
	out.VectorRank, out.VectorScore = bestRank(a.VectorRank, a.VectorScore, b.VectorRank, b.VectorScore)
	if b.MatchType != a.MatchType { // words found one half, meaning the other (or both)
		out.MatchType = MatchHybrid
	}
	return out, true, nil
}

// spanText is the text of c's span as chunks hold it: its pages' texts from Start on the
// first to End on the last, joined by line breaks (empty pages between left out).
func spanText(ctx context.Context, pt PageTexter, c library.Chunk) (string, error) {
	var parts []string
	for p := c.PageStart; p <= c.PageEnd; p++ {
		text, err := pt.PageText(ctx, c.DocID, p)
		if err != nil {
			return "", err
		}
		from, to := 0, len(text)
		if p == c.PageStart {
			from = c.Start
		}
		if p == c.PageEnd {
			to = c.End
		}
		if from < 0 || from > to || to > len(text) {
			return "", fmt.Errorf("span %d:%d–%d:%d does not fit page %d (%d bytes)", c.PageStart, c.Start, c.PageEnd, c.End, p, len(text))
		}
		if text != "" || p == c.PageStart || p == c.PageEnd {
			parts = append(parts, text[from:to])
		}
	}
	return strings.Join(parts, "\n"), nil
}

// bestRank returns the better (lower, non-zero) of two 1-based ranks with its score.
func bestRank(r1 int, s1 float64, r2 int, s2 float64) (int, float64) {
	if r1 == 0 || (r2 > 0 && r2 < r1) {
		return r2, s2
	}
	return r1, s1
}
