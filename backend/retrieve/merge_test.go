package retrieve

import (
	"context"
	"fmt"
	"testing"

	"github.com/carrel-app/carrel/backend/library"
)

// pagedStore is a treeStore that also reads pages, so that neighbours can join.
type pagedStore struct {
	treeStore
	pages map[string][]string // by document, 1-based page texts at [page-1]
}

func (s pagedStore) PageText(_ context.Context, docID string, page int) (string, error) {
	ps := s.pages[docID]
	if page < 1 || page > len(ps) {
		return "", library.ErrNotFound
	}
	return ps[page-1], nil
}

// neighbourStore is a document "d" of six consecutive parents (ord 0–5, seq 1–6), one child
// each (seq 11–16): 1–3 on page 1, 4–6 on page 2. Parents overlap (2 starts inside 1) or
// leave a gap (a space between 2 and 3), as the chunker's cuts do.
func neighbourStore() pagedStore {
	pages := []string{"alpha one. beta two. gamma three.", "delta four. epsilon five. zeta six."}
	cuts := [][3]int{{1, 0, 10}, {1, 8, 20}, {1, 21, 33}, {2, 0, 11}, {2, 12, 25}, {2, 26, 35}}
	s := pagedStore{treeStore: treeStore{mapStore: mapStore{}, parents: map[int64]library.Chunk{}}, pages: map[string][]string{"d": pages}}
	for i, c := range cuts {
		p := int64(i + 1)
		text := pages[c[0]-1][c[1]:c[2]]
		s.parents[p] = library.Chunk{Seq: p, ID: fmt.Sprint("p", p), DocID: "d", Ord: i, PageStart: c[0], PageEnd: c[0], Start: c[1], End: c[2], Text: text}
		s.mapStore[10+p] = library.Chunk{Seq: 10 + p, ParentSeq: p, DocID: "d", Text: text}
	}
	s.parents[7] = library.Chunk{Seq: 7, ID: "p7", DocID: "other", Ord: 2, PageStart: 1, PageEnd: 1, Text: "another document"}
	s.mapStore[17] = library.Chunk{Seq: 17, ParentSeq: 7, DocID: "other", Text: "another document"}
	return s
}

// A retrieved passage and the one after it become one hit (span and text of both, the
// better one's place); one before it joins only from the same page, so the hit's page
// stays where its best match is; at most MaxMerged passages make a hit, and passages of
// another document never join.
func TestNeighboursJoin(t *testing.T) {
	ctx := context.Background()
	search := func(store ChunkStore, seqs ...int64) []Hit {
		t.Helper()
		var lex fakeList
		for i, s := range seqs {
			lex = append(lex, Ranked{Seq: 10 + s, Score: float64(10 - i)})
		}
		r := &Retriever{Lexical: lex, Store: store}
		hits, err := r.Search(ctx, "q", Options{K: 5, Mode: Lexical})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	store := neighbourStore()
	hits := search(store, 2, 5, 3) // 3 follows 2: joined; 5 stays apart
	if len(hits) != 2 {
		t.Fatalf("%d hits, want 2: %+v", len(hits), hits)
	}
	h := hits[0]
	if h.Chunk.Seq != 2 || h.Chunk.PageStart != 1 || h.Chunk.Start != 8 || h.Chunk.End != 33 || h.Chunk.Text != "e. beta two. gamma three." {
		t.Errorf("2+3 not joined with both spans and the page's text between: %+v", h.Chunk)
	}
	if h.LexicalRank != 1 || h.LexicalScore != 10 || h.Score <= hits[1].Score {
		t.Errorf("the joined hit keeps the better passage's rank and score: rank %d (%.0f) score %.2f", h.LexicalRank, h.LexicalScore, h.Score)
	}
	if hits[1].Chunk.Seq != 5 {
		t.Errorf("second hit %d, want 5", hits[1].Chunk.Seq)
	}

	hits = search(store, 2, 1) // 1 before 2 on the same page, overlapping: joined, from 1's start
	if len(hits) != 1 || hits[0].Chunk.Start != 0 || hits[0].Chunk.End != 20 || hits[0].Chunk.Text != "alpha one. beta two." {
		t.Errorf("same-page passage before: %+v", hits)
	}
	hits = search(store, 3, 4) // 4 follows 3 onto page 2: joined across the page break
	if len(hits) != 1 || hits[0].Chunk.PageEnd != 2 || hits[0].Chunk.Text != "gamma three.\ndelta four." {
		t.Errorf("across pages: %+v", hits)
	}
	hits = search(store, 4, 3) // 3 is before 4 but on page 1, 4 on page 2: apart
	if len(hits) != 2 || hits[0].Chunk.PageStart != 2 {
		t.Errorf("a passage on the page before must not move the hit's page: %+v", hits)
	}
	hits = search(store, 1, 2, 3) // MaxMerged 2: 1+2, then 3 alone
	if len(hits) != 2 || hits[0].Chunk.End != 20 || hits[1].Chunk.Seq != 3 {
		t.Errorf("more than MaxMerged joined: %+v", hits)
	}
	hits = search(store, 2, 7) // ord 2 of another document is not 2's neighbour
	if len(hits) != 2 {
		t.Errorf("passages of two documents joined: %+v", hits)
	}
	hits = search(store.treeStore, 2, 3) // a store that cannot read pages: no join
	if len(hits) != 2 {
		t.Errorf("joined without the pages' text: %+v", hits)
	}
}

// The gate judges a joined hit passage by passage: two passages that each hold half of
// the question's weight do not together make it covered.
func TestOffTopicJudgesJoinedPassages(t *testing.T) {
	store := neighbourStore()
	store.pages["d"] = []string{"fax relay group pages"}
	store.parents[2] = library.Chunk{Seq: 2, ID: "p2", DocID: "d", Ord: 1, PageStart: 1, PageEnd: 1, Start: 0, End: 9, Text: "fax relay"}
	store.parents[3] = library.Chunk{Seq: 3, ID: "p3", DocID: "d", Ord: 2, PageStart: 1, PageEnd: 1, Start: 10, End: 21, Text: "group pages"}
	lex := fakeLex{list: []Ranked{{Seq: 12, Score: 2}, {Seq: 13, Score: 1}}, df: map[string]int{"fax": 5, "relay": 2, "group": 3, "pages": 9}}
	r := &Retriever{Lexical: lex, Store: store}
	// five words, one absent: each passage covers 2 of 5, both together 4 of 5
	hits, err := r.Search(context.Background(), "fax relay group pages Zork", Options{Mode: Lexical})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Errorf("%d hits, want none: %+v", len(hits), hits)
	}
	// (the two do join: without the absent word they are one hit holding all four words)
	if hits, _ := r.Search(context.Background(), "fax relay group pages", Options{Mode: Lexical}); len(hits) != 1 || hits[0].Chunk.Text != "fax relay group pages" {
		t.Fatalf("the passages did not join: %+v", hits)
	}
	// A Known term (a document's name, a shortened word) is not absent.
	lex.known = map[string]bool{"zork": true}
	r.Lexical = lex
	if hits, _ := r.Search(context.Background(), "fax relay group pages Zork", Options{Mode: Lexical}); len(hits) != 1 {
		t.Errorf("a known word gated the question: %d hits", len(hits))
	}
}
