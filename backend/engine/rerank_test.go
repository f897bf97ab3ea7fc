package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/rerank"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

// verifies the rerank hook in Search: with CARREL_RERANK=off retrieval's order, and by
// default the same passages in the order the lexical reader gives them.
func TestSearchRerankHook(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, Config{})
	if r, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "T4.pdf"), nil); err != nil || r.Status != Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	const q = "how are facsimile pages coded with two dimensional coding"
	key := func(h Hit) string { return h.Text }
	search := func() []string {
		t.Helper()
		hits, err := eng.Search(ctx, q, SearchOptions{K: 10, Mode: "lexical"})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(hits))
		for i, h := range hits {
			out[i] = key(h)
		}
		return out
	}
	t.Setenv(envconfig.RerankVar, string(envconfig.RerankOff))
	plain := search()
	if len(plain) < 5 {
		t.Fatalf("only %d hits", len(plain))
	}
	t.Setenv(envconfig.RerankVar, "")
	reranked := search()

	tw, err := eng.lex.QueryTerms(q)
	if err != nil {
		t.Fatal(err)
	}
	idf := map[string]float64{}
	for _, w := range tw {
		idf[w.Term] = w.IDF
	}
	ps := make([]rerank.Passage, len(plain))
	hits, _ := eng.Search(ctx, q, SearchOptions{K: 10, Mode: "lexical"})
	for _, h := range hits {
		ps[slices.Index(plain, key(h))] = rerank.Passage{Text: h.Text, Section: h.Section}
	}
	rd := rerank.Reader{Analyze: eng.lex.Terms, Weight: func(t string) float64 { return idf[t] }}
	want := make([]string, len(plain))
	for i, j := range rd.Order(q, ps) {
		want[i] = plain[j]
	}
	if !slices.Equal(reranked, want) {
		t.Fatalf("reranked order differs from the reader's")
	}
	if slices.Equal(reranked, plain) {
		t.Fatal("the reader kept retrieval's order: the question no longer tells on from off")
	}
	a, b := slices.Clone(plain), slices.Clone(reranked)
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Fatal("reranking changed which passages were returned")
	}
}
