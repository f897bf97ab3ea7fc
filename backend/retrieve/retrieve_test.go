package retrieve

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/library"
)

type fakeList []Ranked

func (f fakeList) SearchLexical(context.Context, string, int, []string) ([]Ranked, error) {
	return f, nil
}
func (f fakeList) SearchDense(context.Context, string, int, []string) ([]Ranked, error) {
	return f, nil
}

type mapStore map[int64]library.Chunk

func (m mapStore) Chunks(_ context.Context, seqs []int64) (map[int64]library.Chunk, error) {
	out := map[int64]library.Chunk{}
	for _, s := range seqs {
		if c, ok := m[s]; ok {
			out[s] = c
		}
	}
	return out, nil
}

// verifies modes pick their lists, k truncates, chunks are loaded and missing ones skipped.
func TestRetrieverModes(t *testing.T) {
	store := mapStore{1: {Seq: 1, Text: "one"}, 2: {Seq: 2, Text: "two"}, 3: {Seq: 3, Text: "three"}}
	r := &Retriever{Lexical: fakeList{{Seq: 1, Score: 3}, {Seq: 9, Score: 2}}, Dense: fakeList{{Seq: 3, Score: 0.9}}, Store: store}
	ctx := context.Background()
	hits, err := r.Search(ctx, "q", Options{Mode: Lexical})
	if err != nil || len(hits) != 1 || hits[0].Chunk.Text != "one" {
		t.Fatalf("lexical: %+v %v (seq 9 is not in the store)", hits, err)
	}
	hits, _ = r.Search(ctx, "q", Options{Mode: Vector})
	if len(hits) != 1 || hits[0].Chunk.Seq != 3 || hits[0].MatchType != MatchVector {
		t.Fatalf("vector: %+v", hits)
	}
	hits, _ = r.Search(ctx, "q", Options{K: 1})
	if len(hits) != 1 {
		t.Fatalf("hybrid k=1: %d hits", len(hits))
	}
	r.Dense = nil
	if _, err := r.Search(ctx, "q", Options{Mode: Vector}); err == nil {
		t.Fatal("vector search without an embedding model succeeded")
	}
	if hits, _ = r.Search(ctx, "q", Options{}); len(hits) != 1 || hits[0].MatchType != MatchFullText {
		t.Fatalf("hybrid without dense: %+v", hits)
	}
}

type fakeLex struct {
	list  []Ranked
	df    map[string]int
	known map[string]bool
	texts map[int64]string
}

func (f fakeLex) SearchLexical(context.Context, string, int, []string) ([]Ranked, error) {
	return f.list, nil
}

func (f fakeLex) QueryTerms(_ context.Context, q string) ([]TermWeight, error) {
	var out []TermWeight
	for _, w := range strings.Fields(q) {
		w = strings.ToLower(w) // as the analyser does
		out = append(out, TermWeight{Term: w, DF: f.df[w], IDF: 1, Known: f.known[w]})
	}
	return out, nil
}

func (f fakeLex) TextTerms(text string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(text) {
		m[w] = true
	}
	return m
}

type fakeStore map[int64]string

func (s fakeStore) Chunks(_ context.Context, seqs []int64) (map[int64]library.Chunk, error) {
	out := map[int64]library.Chunk{}
	for _, q := range seqs {
		out[q] = library.Chunk{Seq: q, Text: s[q]}
	}
	return out, nil
}

// verifies the "nothing relevant" gate: word matches are dropped only when the question
// has a word the library never mentions and no passage covers half its weight.
func TestOffTopicGate(t *testing.T) {
	store := fakeStore{1: "fax group pages", 2: "relay of fax"}
	lex := fakeLex{list: []Ranked{{Seq: 1, Score: 2}, {Seq: 2, Score: 1}}, df: map[string]int{"fax": 5, "group": 3, "pages": 9, "relay": 1}}
	r := &Retriever{Lexical: lex, Store: store}
	for _, c := range []struct {
		q    string
		want int
	}{
		{"fax group ip t38 protocol", 0}, // three absent words, best coverage 2/5
		{"fax group pages ip", 2},        // one absent word, but a passage covers 3/4
		{"fax relay contest", 2},         // "contest" occurs somewhere (df 0 only if absent)
		{"fax relay", 2},                 // every word known
		// A small library: missing plain words are the question's phrasing, not its subject.
		{"what does the author say about fax", 2},
		// ...but a missing name or identifier is telling, whatever the library's size.
		{"what does Thoreau say about fax", 0},
	} {
		if c.q == "fax relay contest" {
			lex.df["contest"] = 2
		}
		hits, err := r.Search(context.Background(), c.q, Options{Mode: Lexical})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != c.want {
			t.Errorf("%q: %d hits, want %d", c.q, len(hits), c.want)
		}
	}
}

// The gate reads the first GateDepth hits whatever is asked for: a deeper pool (for a
// reranker) or a smaller k must not change whether a question is off-topic. Here only the
// 12th passage covers half of an off-topic question's words.
func TestOffTopicGateJudgesFixedDepth(t *testing.T) {
	store := fakeStore{}
	var list []Ranked
	for i := int64(1); i <= 15; i++ {
		list = append(list, Ranked{Seq: i * 10, Score: float64(100 - i)})
		store[i*10] = fmt.Sprintf("fax %08x %08x", i*2654435761, i*40503) // no two near-duplicates
	}
	store[120] = "fax group relay"
	lex := fakeLex{list: list, df: map[string]int{"fax": 15, "group": 1, "relay": 1}}
	r := &Retriever{Lexical: lex, Store: store}
	const q = "fax group relay t38 ip"
	if hits, _ := r.Search(context.Background(), "fax", Options{K: 15, Mode: Lexical}); len(hits) != 15 {
		t.Fatalf("%d distinct passages, want 15", len(hits))
	}
	for _, o := range []Options{{K: 3}, {K: 10}, {K: 10, Pool: 30}, {K: 15}} {
		o.Mode = Lexical
		hits, err := r.Search(context.Background(), q, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 0 {
			t.Errorf("k %d, pool %d: %d hits for an off-topic question, want none", o.K, o.Pool, len(hits))
		}
	}
	// The same question with the covering passage first is answered, and a pool returns
	// more than k for a reranker to cut.
	lex.list = append([]Ranked{{Seq: 120, Score: 200}}, slices.Delete(slices.Clone(list), 11, 12)...)
	r.Lexical = lex
	hits, err := r.Search(context.Background(), q, Options{K: 3, Pool: 12, Mode: Lexical})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 12 || hits[0].Chunk.Text != "fax group relay" {
		t.Fatalf("covering passage first: %d hits, want 12 with %q first", len(hits), "fax group relay")
	}
}

// A search keeps loading past near-duplicates until it has k distinct passages: the first
// 2k hits being copies of one passage must not leave the answer with one source.
func TestSearchFillsKPastDuplicates(t *testing.T) {
	const k = 3
	store := mapStore{}
	var list fakeList
	same := strings.Repeat("the same running paragraph about fusion and ranking ", 8)
	for i := int64(1); i <= 2*k+1; i++ { // 7 copies of one passage, told apart by a page number
		store[i] = library.Chunk{Seq: i, ID: fmt.Sprintf("copy%d", i), Text: same + fmt.Sprint(i)}
		list = append(list, Ranked{Seq: i, Score: float64(100 - i)})
	}
	for i := int64(20); i < 20+k; i++ {
		store[i] = library.Chunk{Seq: i, ID: fmt.Sprintf("other%d", i), Text: fmt.Sprintf("a different passage number %d on another subject entirely", i)}
		list = append(list, Ranked{Seq: i, Score: float64(50 - i)})
	}
	r := &Retriever{Lexical: list, Store: store}
	hits, err := r.Search(context.Background(), "fusion", Options{K: k, Mode: Lexical})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, h := range hits {
		got = append(got, h.Chunk.Seq)
	}
	if want := []int64{1, 20, 21}; !slices.Equal(got, want) {
		t.Errorf("hits %v, want %v (the best copy, then the next distinct passages)", got, want)
	}
}
