package retrieve

import (
	"context"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/library"
)

// The overlap between consecutive passages is written once; passages that do not
// overlap are joined with a line break.
func TestSpliceText(t *testing.T) {
	a := "The bufio package wraps a reader. Exercise: 1 Line File Server. The entire program looks like this:"
	b := "Exercise: 1 Line File Server. The entire program looks like this: package main, func main()."
	got := spliceText(a, b)
	want := "The bufio package wraps a reader. Exercise: 1 Line File Server. The entire program looks like this: package main, func main()."
	if got != want {
		t.Errorf("overlapping:\n got %q\nwant %q", got, want)
	}
	if got := spliceText("first part.", "second part, which is long enough to probe for."); got != "first part.\nsecond part, which is long enough to probe for." {
		t.Errorf("disjoint: %q", got)
	}
	// A repeat of b's start earlier in a is not the overlap: only a's end counts.
	rep := "Exercise: 1 Line File Server. The entire program looks like this: x. Then more text follows here. "
	if got := spliceText(rep+a, b); !strings.HasPrefix(got, rep+a) || !strings.HasSuffix(got, "func main().") || strings.Count(got, "package main") != 1 {
		t.Errorf("repeat inside a: %q", got)
	}
}

// neighbourStore is a document of six consecutive parents (ord 0–5), one child each
// (child seq = 10 + parent seq); parents 1–3 are on page 1, 4–6 on page 2.
func neighbourStore() treeStore {
	s := treeStore{mapStore: mapStore{}, parents: map[int64]library.Chunk{}}
	for p := int64(1); p <= 6; p++ {
		page := 1 + int(p-1)/3
		text := "passage " + strings.Repeat(string(rune('a'+p)), 40) + " tail"
		s.parents[p] = library.Chunk{Seq: p, ID: "p" + string(rune('0'+p)), DocID: "d", Ord: int(p - 1), PageStart: page, PageEnd: page,
			Start: int(p) * 100, End: int(p)*100 + 50, Text: text}
		s.mapStore[10+p] = library.Chunk{Seq: 10 + p, ParentSeq: p, DocID: "d", Text: text}
	}
	s.parents[7] = library.Chunk{Seq: 7, ID: "p7", DocID: "other", Ord: 2, PageStart: 1, PageEnd: 1, Text: "another document's passage, long enough"}
	s.mapStore[17] = library.Chunk{Seq: 17, ParentSeq: 7, DocID: "other", Text: "another"}
	return s
}

// A retrieved passage and the one after it become one hit (span and text of both, the
// better one's place); one before it joins only from the same page, so the hit's page
// stays where its best match is; at most MaxMerged passages make a hit, and passages of
// another document never join.
func TestNeighboursJoin(t *testing.T) {
	ctx := context.Background()
	search := func(seqs ...int64) []Hit {
		t.Helper()
		var lex fakeList
		for i, s := range seqs {
			lex = append(lex, Ranked{Seq: 10 + s, Score: float64(10 - i)})
		}
		r := &Retriever{Lexical: lex, Store: neighbourStore()}
		hits, err := r.Search(ctx, "q", Options{K: 5, Mode: Lexical})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	hits := search(2, 5, 3) // 3 follows 2: joined; 5 stays apart
	if len(hits) != 2 {
		t.Fatalf("%d hits, want 2: %+v", len(hits), hits)
	}
	h := hits[0]
	if h.Chunk.Seq != 2 || h.Chunk.PageStart != 1 || h.Chunk.Start != 200 || h.Chunk.End != 350 || !strings.Contains(h.Chunk.Text, "ccc") || !strings.Contains(h.Chunk.Text, "ddd") {
		t.Errorf("2+3 not joined in order with both spans: %+v", h.Chunk)
	}
	if strings.Index(h.Chunk.Text, "ccc") > strings.Index(h.Chunk.Text, "ddd") {
		t.Errorf("joined text out of document order: %q", h.Chunk.Text)
	}
	if h.LexicalRank != 1 || h.LexicalScore != 10 || h.Score <= hits[1].Score {
		t.Errorf("the joined hit keeps the better passage's rank and score: rank %d (%.0f) score %.2f", h.LexicalRank, h.LexicalScore, h.Score)
	}
	if hits[1].Chunk.Seq != 5 {
		t.Errorf("second hit %d, want 5", hits[1].Chunk.Seq)
	}

	hits = search(3, 2) // 2 before 3 on the same page: joined, starting at 2
	if len(hits) != 1 || hits[0].Chunk.Start != 200 || hits[0].Chunk.End != 350 {
		t.Errorf("same-page passage before: %+v", hits)
	}
	hits = search(4, 3) // 3 is before 4 but on page 1, 4 on page 2: apart
	if len(hits) != 2 || hits[0].Chunk.PageStart != 2 {
		t.Errorf("a passage on the page before must not move the hit's page: %+v", hits)
	}
	hits = search(1, 2, 3) // MaxMerged 2: 1+2, then 3 alone
	if len(hits) != 2 || hits[0].Chunk.End != 250 || hits[1].Chunk.Seq != 3 {
		t.Errorf("more than MaxMerged joined: %+v", hits)
	}
	hits = search(2, 7) // ord 2 of another document is not 2's neighbour
	if len(hits) != 2 {
		t.Errorf("passages of two documents joined: %+v", hits)
	}
}

// The gate judges a joined hit passage by passage: two passages that each hold half of
// the question's weight do not together make it covered.
func TestOffTopicJudgesJoinedPassages(t *testing.T) {
	store := neighbourStore()
	store.parents[2] = library.Chunk{Seq: 2, ID: "p2", DocID: "d", Ord: 1, PageStart: 1, PageEnd: 1, Text: "fax relay"}
	store.parents[3] = library.Chunk{Seq: 3, ID: "p3", DocID: "d", Ord: 2, PageStart: 1, PageEnd: 1, Text: "group pages"}
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
	// A Known term (a document's name, a shortened word) is not absent.
	lex.known = map[string]bool{"zork": true}
	r.Lexical = lex
	if hits, _ := r.Search(context.Background(), "fax relay group pages Zork", Options{Mode: Lexical}); len(hits) != 1 {
		t.Errorf("a known word gated the question: %d hits", len(hits))
	}
}
