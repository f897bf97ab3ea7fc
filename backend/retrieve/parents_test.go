package retrieve

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/library"
)

// treeStore holds children and parents in memory.
type treeStore struct {
	mapStore
	parents map[int64]library.Chunk
}

func (s treeStore) Parents(_ context.Context, seqs []int64) (map[int64]library.Chunk, error) {
	out := map[int64]library.Chunk{}
	for _, q := range seqs {
		if p, ok := s.parents[q]; ok {
			out[q] = p
		}
	}
	return out, nil
}

// verifies children found by either list become their parents: one hit per parent at the
// rank of its best child, with that child's score and the child itself; a parent found
// directly by the lexical list joins its children's hit; a parent that is gone is dropped.
func TestChildrenMappedToParents(t *testing.T) {
	store := treeStore{
		mapStore: mapStore{
			11: {Seq: 11, ParentSeq: 1, Text: "alpha"}, 12: {Seq: 12, ParentSeq: 1, Text: "beta"},
			21: {Seq: 21, ParentSeq: 2, Text: "gamma"}, 31: {Seq: 31, ParentSeq: 3, Text: "delta"},
		},
		parents: map[int64]library.Chunk{
			1: {Seq: 1, ID: "p1", Text: "alpha beta", PageStart: 4, Start: 10, End: 20},
			2: {Seq: 2, ID: "p2", Text: "gamma and more"},
			// 3 is gone (a document being removed)
		},
	}
	r := &Retriever{
		Lexical: fakeList{{Seq: 2, Score: 7, Parent: true}, {Seq: 1, Score: 5, Parent: true}},
		Dense:   fakeList{{Seq: 12, Score: 0.9}, {Seq: 31, Score: 0.85}, {Seq: 11, Score: 0.8}, {Seq: 21, Score: 0.5}},
		Store:   store,
	}
	hits, err := r.Search(context.Background(), "q", Options{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("%d hits, want 2 (one per parent, parent 3 gone): %+v", len(hits), hits)
	}
	h := hits[0]
	if h.Chunk.ID != "p1" || h.Chunk.PageStart != 4 || h.Chunk.Start != 10 || h.Chunk.End != 20 {
		t.Errorf("first hit is not parent 1 with its span: %+v", h.Chunk)
	}
	if h.MatchType != MatchHybrid || h.VectorRank != 1 || h.VectorScore != 0.9 || h.LexicalRank != 2 || h.LexicalScore != 5 || h.ChildSeq != 12 {
		t.Errorf("parent 1: match %s vector #%d %.2f lexical #%d %.0f child %d", h.MatchType, h.VectorRank, h.VectorScore, h.LexicalRank, h.LexicalScore, h.ChildSeq)
	}
	if h := hits[1]; h.Chunk.ID != "p2" || h.VectorRank != 3 || h.LexicalRank != 1 || h.ChildSeq != 21 {
		t.Errorf("parent 2: %+v", h)
	}
	// Children searched lexically map the same way.
	r.Lexical = fakeList{{Seq: 21, Score: 3}, {Seq: 11, Score: 2}, {Seq: 12, Score: 1}}
	hits, _ = r.Search(context.Background(), "q", Options{Mode: Lexical})
	if len(hits) != 2 || hits[0].Chunk.ID != "p2" || hits[1].Chunk.ID != "p1" || hits[1].LexicalRank != 2 || hits[1].LexicalScore != 2 {
		t.Errorf("lexical over children: %+v", hits)
	}
}

// verifies identical passages (same ID, e.g. the same page in two documents) and
// near-duplicates are dropped, keeping the better-ranked, while passages that only
// overlap stay.
func TestDedupe(t *testing.T) {
	base := "Reciprocal rank fusion adds one over sixty plus the rank of each list the passage appears in, so agreement between lists wins."
	hits := []Hit{
		{Chunk: library.Chunk{ID: "a", DocID: "d1", Text: base}},
		{Chunk: library.Chunk{ID: "a", DocID: "d2", Text: base}},
		{Chunk: library.Chunk{ID: "b", Text: base + " Page 12"}},
		{Chunk: library.Chunk{ID: "c", Text: "so agreement between lists wins. " + strings.Repeat("Other words follow here and differ. ", 5)}},
	}
	for round := range 2 { // the second from cached sketches and trigram sets
		got := Dedupe(slices.Clone(hits))
		if len(got) != 2 || got[0].Chunk.DocID != "d1" || got[1].Chunk.ID != "c" {
			t.Errorf("round %d: dedupe kept %+v", round, got)
		}
	}
}

// verifies the token budget keeps the best hits that fit, and always the first.
func TestTrimToBudget(t *testing.T) {
	mk := func(n int) Hit { return Hit{Chunk: library.Chunk{Text: strings.Repeat("x", n)}} }
	hits := []Hit{mk(400), mk(400), mk(400)} // 100 tokens each
	if got := TrimToBudget(hits, 250); len(got) != 2 {
		t.Errorf("budget 250: %d hits, want 2", len(got))
	}
	if got := TrimToBudget(hits, 10); len(got) != 1 {
		t.Errorf("budget 10: %d hits, want the first only", len(got))
	}
	if got := TrimToBudget(hits, 0); len(got) != 3 {
		t.Errorf("no budget: %d hits", len(got))
	}
	r := &Retriever{Lexical: fakeList{{Seq: 1, Score: 3}, {Seq: 2, Score: 2}}, Store: mapStore{1: {Seq: 1, Text: strings.Repeat("a ", 200)}, 2: {Seq: 2, Text: "b"}}}
	if got, _ := r.Search(context.Background(), "q", Options{TokenBudget: 50}); len(got) != 1 {
		t.Errorf("search with a budget: %d hits", len(got))
	}
}

// BenchmarkDedupe measures dropping near-duplicates among 2k = 20 loaded parents of ~1000
// characters, the work a search adds after fusion.
func BenchmarkDedupe(b *testing.B) {
	hits := benchHits()
	buf := make([]Hit, len(hits))
	b.Run("cached", func(b *testing.B) { // the same passages again: the common case
		for range b.N {
			copy(buf, hits)
			Dedupe(buf)
		}
	})
	b.Run("first", func(b *testing.B) { // passages not seen before
		for range b.N {
			sketches.mu.Lock()
			sketches.m = nil
			sketches.mu.Unlock()
			copy(buf, hits)
			Dedupe(buf)
		}
	})
}

// verifies word trigrams read case- and punctuation-blind in ASCII and beyond (the ASCII
// fast path agrees with Unicode's letters), and that a cached set is the text's own.
func TestShingles(t *testing.T) {
	a := shingles("Hello, WORLD: café Ünïcode 42 naïve")
	b := shingles("hello world CAFÉ ünïcode\n42 -- NAÏVE.")
	if !slices.Equal(a, b) || len(a) != 4 {
		t.Errorf("shingles differ or miscounted: %d %d", len(a), len(b))
	}
	if c := shingles("hello world cafe unicode 42 naive"); slices.Equal(a, c) {
		t.Error("accents dropped: café hashed as cafe")
	}
	if got := shingles("two words"); len(got) != 2 {
		t.Errorf("a short text gives its words: %d", len(got))
	}
	long := strings.Repeat("Walden pond froze early that winter while the loon dove under the ice. ", 3)
	sk, sh := sketchOf(long), shingles(long)
	if sk.n != min(sketchK, len(sh)) || !slices.Equal(sk.min[:sk.n], sh[:sk.n]) {
		t.Errorf("sketch is not the smallest shingles: %v vs %v", sk.min[:sk.n], sh[:min(len(sh), sketchK)])
	}
	c := sketchCache{max: 2}
	for i, text := range []string{"one two three four", "five six seven", "eight nine ten eleven twelve"} {
		id := string(rune('a' + i))
		if got, want := c.get(id, text), sketchOf(text); got.min != want.min || got.n != want.n {
			t.Errorf("cached sketch of %q is not its own", text)
		}
	}
	if len(c.m) > 2 {
		t.Errorf("cache holds %d entries, cap 2", len(c.m))
	}
}

// verifies the sketch gate lets a near-duplicate (a running header changed) through to the
// exact comparison and stops passages that merely share words.
func TestSketchGate(t *testing.T) {
	var a, b strings.Builder
	words := strings.Fields("the pond froze early that winter and the loon dove under the ice while ants fought near the woodpile for hours until dusk came")
	for i := range 60 {
		a.WriteString(words[(i*7)%len(words)] + " ")
		b.WriteString(words[(i*11+3)%len(words)] + " ")
	}
	near := "Chapter 9 " + a.String() + " page 12"
	if !sketchOf(a.String()).mayBeNear(sketchOf(near)) {
		t.Error("a near-duplicate was stopped by the sketch gate")
	}
	if j := jaccard(shingles(a.String()), shingles(b.String())); j > 0.2 {
		t.Fatalf("test passages too alike: %.2f", j)
	}
	if sketchOf(a.String()).mayBeNear(sketchOf(b.String())) {
		t.Error("passages sharing only words passed the sketch gate")
	}
}

// benchHits are 20 passages of ~1000 characters of random words from a small vocabulary.
func benchHits() []Hit {
	words := strings.Fields(`the pond froze early that winter and the loon dove under the ice while ants
		fought near the woodpile for hours; reciprocal rank fusion adds one over sixty plus the rank
		of each list a passage appears in, so agreement between lists wins over a single strong
		score; BM25 weighs rare terms higher and normalises by length, which favours short passages
		unless the parameter b is lowered; vectors compare meaning rather than words`)
	rng := rand.New(rand.NewPCG(1, 2))
	hits := make([]Hit, 20)
	for i := range hits {
		var sb strings.Builder
		for sb.Len() < 1000 {
			sb.WriteString(words[rng.IntN(len(words))])
			sb.WriteByte(' ')
		}
		hits[i] = Hit{Chunk: library.Chunk{ID: fmt.Sprintf("bench%d", i), Text: sb.String()}}
	}
	return hits
}

// verifies a hit whose passage spans several pages (slides) is focused on the page its best
// child starts on, where the question matched; a one-page passage and a hit found by its
// own parent have no focus (their citation opens on their first page).
func TestFocusOnTheBestChildsPage(t *testing.T) {
	store := treeStore{
		mapStore: mapStore{
			11: {Seq: 11, ParentSeq: 1, PageStart: 21, PageEnd: 23, Text: "compilation demo"},
			12: {Seq: 12, ParentSeq: 1, PageStart: 24, PageEnd: 25, Text: "import fmt reads one file"},
			21: {Seq: 21, ParentSeq: 2, PageStart: 3, PageEnd: 3, Text: "one page"},
		},
		parents: map[int64]library.Chunk{
			1: {Seq: 1, ID: "p1", Text: "compilation demo import fmt reads one file", PageStart: 21, PageEnd: 25},
			2: {Seq: 2, ID: "p2", Text: "one page", PageStart: 3, PageEnd: 3},
			3: {Seq: 3, ID: "p3", Text: "found as a whole", PageStart: 7, PageEnd: 9},
		},
	}
	r := &Retriever{
		Lexical: fakeList{{Seq: 3, Score: 2, Parent: true}},
		Dense:   fakeList{{Seq: 12, Score: 0.9}, {Seq: 11, Score: 0.8}, {Seq: 21, Score: 0.7}},
		Store:   store,
	}
	hits, err := r.Search(context.Background(), "q", Options{K: 5})
	if err != nil {
		t.Fatal(err)
	}
	focus := map[string]int{}
	for _, h := range hits {
		focus[h.Chunk.ID] = h.Focus
	}
	if want := map[string]int{"p1": 24, "p2": 0, "p3": 0}; !maps.Equal(focus, want) {
		t.Errorf("focus pages %v, want %v", focus, want)
	}
}
