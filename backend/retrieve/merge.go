package retrieve

import "strings"

// MaxMerged is how many neighbouring passages of one document a hit may join. A passage
// (parent) is cut at a size, not where its subject ends, so an answer often runs over
// the cut: the bufio.Scanner exercise's title is in one passage and its program in the
// next. When both halves are retrieved, showing them as one passage gives the reader and
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

// join makes kept hit a and its neighbour b one hit: the span and text of both in
// document order, a's score and place (it ranked higher), the lists' best ranks of the two.
func join(a, b Hit) Hit {
	first, second := a.Chunk, b.Chunk
	if b.Chunk.Ord < a.Chunk.Ord {
		first, second = second, first
	}
	c := first
	c.PageEnd, c.End = second.PageEnd, second.End
	c.Text = spliceText(first.Text, second.Text)
	c.ID = "" // no longer one stored passage
	out := a
	out.Chunk = c
	out.parts = append(append([]string(nil), a.texts()...), b.Chunk.Text)
	out.LexicalRank, out.LexicalScore = bestRank(a.LexicalRank, a.LexicalScore, b.LexicalRank, b.LexicalScore)
	out.VectorRank, out.VectorScore = bestRank(a.VectorRank, a.VectorScore, b.VectorRank, b.VectorScore)
	if b.MatchType != a.MatchType { // words found one half, meaning the other (or both)
		out.MatchType = MatchHybrid
	}
	return out
}

// bestRank returns the better (lower, non-zero) of two 1-based ranks with its score.
func bestRank(r1 int, s1 float64, r2 int, s2 float64) (int, float64) {
	if r1 == 0 || (r2 > 0 && r2 < r1) {
		return r2, s2
	}
	return r1, s1
}

// spliceText joins two consecutive passages' texts, which overlap (children and parents
// are cut with an overlap so that no sentence is lost at a cut): the longest end of a that
// b begins with is written once.
func spliceText(a, b string) string {
	const probe = 32 // b's first characters, looked for in a's end
	if len(b) >= probe {
		from := max(0, len(a)-2*len(b))
		for i := strings.Index(a[from:], b[:probe]); i >= 0; {
			at := from + i
			if strings.HasPrefix(b, a[at:]) {
				return a + b[len(a)-at:]
			}
			j := strings.Index(a[at+1:], b[:probe])
			if j < 0 {
				break
			}
			i = at + 1 + j - from
		}
	}
	return a + "\n" + b
}
