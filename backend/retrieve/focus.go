package retrieve

import (
	"context"
	"errors"
	"fmt"

	"github.com/carrel-app/carrel/backend/library"
)

// A passage of slides spans many pages (one in the pdfcpu corpus covers slides 21–25), and
// its citation should open where the question matched, not on its first slide. Focus is
// that page: the page its best child starts on when a child found it, else the page of
// the passage whose words hold most of the question's term weight.

// focus sets the Focus page of each hit whose passage spans several pages: the page its
// best child starts on. Only those hits need their child read.
func (r *Retriever) focus(ctx context.Context, hits []Hit) error {
	var seqs []int64
	for _, h := range hits {
		if focusable(h.Chunk) && h.ChildSeq > 0 {
			seqs = append(seqs, h.ChildSeq)
		}
	}
	if len(seqs) == 0 {
		return nil
	}
	kids, err := r.Store.Chunks(ctx, seqs)
	if err != nil {
		return fmt.Errorf("best children: %w", err)
	}
	for i, h := range hits {
		if c, ok := kids[h.ChildSeq]; ok && focusable(h.Chunk) {
			hits[i].Focus = c.PageStart
		}
	}
	return nil
}

// focusByWords sets the Focus page of each hit over several pages that no child placed
// (a passage the word index found whole, as in no-model mode): the page of the passage
// holding the most of the question's term weight (IDF); on a tie, the earliest. It reads
// the pages only of such hits.
func (r *Retriever) focusByWords(ctx context.Context, w TermWeigher, terms []TermWeight, hits []Hit) error {
	pt, ok := r.Store.(PageTexter)
	if !ok || len(terms) == 0 {
		return nil
	}
	for i, h := range hits {
		c := h.Chunk
		if h.Focus != 0 || !focusable(c) {
			continue
		}
		best, bestAt := 0.0, c.PageStart
		for p := c.PageStart; p <= c.PageEnd; p++ {
			text, err := pt.PageText(ctx, c.DocID, p)
			if errors.Is(err, library.ErrNotFound) {
				break
			}
			if err != nil {
				return fmt.Errorf("focus: %w", err)
			}
			from, to := 0, len(text)
			if p == c.PageStart {
				from = min(c.Start, len(text))
			}
			if p == c.PageEnd {
				to = min(c.End, len(text))
			}
			if from >= to {
				continue
			}
			have := w.TextTerms(text[from:to])
			var got float64
			for _, t := range terms {
				if have[t.Term] {
					got += t.IDF
				}
			}
			if got > best {
				best, bestAt = got, p
			}
		}
		if bestAt != c.PageStart {
			hits[i].Focus = bestAt
		}
	}
	return nil
}

// focusable reports whether a passage spans enough pages for its citation to open on
// another than its first: three or more (slides). A passage of prose over a page break
// opens where it starts, one click ("Continues on page N") from the rest. Past
// maxFocusPages pages it is mostly empty pages, not worth reading them all.
func focusable(c library.Chunk) bool {
	n := c.PageEnd - c.PageStart
	return n >= 2 && n <= maxFocusPages
}

const maxFocusPages = 12
