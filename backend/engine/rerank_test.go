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
	search := func(k int) []string {
		t.Helper()
		hits, err := eng.Search(ctx, q, SearchOptions{K: k, Mode: "lexical"})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(hits))
		for i, h := range hits {
			out[i] = key(h)
		}
		return out
	}
	// The reader reads a pool of RerankPool passages in retrieval's order and keeps the
	// 10 it ranks best.
	t.Setenv(envconfig.RerankVar, string(envconfig.RerankOff))
	plain := search(RerankPool)
	if len(plain) <= 10 {
		t.Fatalf("only %d hits: the pool is no deeper than the 10 asked for", len(plain))
	}
	hits, _ := eng.Search(ctx, q, SearchOptions{K: RerankPool, Mode: "lexical"})
	t.Setenv(envconfig.RerankVar, "")
	reranked := search(10)

	tw, err := eng.lex.QueryTerms(q)
	if err != nil {
		t.Fatal(err)
	}
	idf := map[string]float64{}
	for _, w := range tw {
		idf[w.Term] = w.IDF
	}
	ps := make([]rerank.Passage, len(plain))
	for i, h := range hits {
		ps[i] = rerank.Passage{Text: h.Text, Section: h.Section}
	}
	rd := rerank.Reader{Analyze: eng.lex.Terms, Weight: func(t string) float64 { return idf[t] }}
	var want []string
	for _, j := range rd.Order(q, ps)[:10] {
		want = append(want, plain[j])
	}
	if !slices.Equal(reranked, want) {
		t.Fatalf("reranked order differs from the reader's")
	}
	if slices.Equal(reranked, plain[:10]) {
		t.Fatal("the reader kept retrieval's order: the question no longer tells on from off")
	}
	for _, r := range reranked {
		if !slices.Contains(plain, r) {
			t.Fatal("the reader returned a passage that was not in its pool")
		}
	}
}
