package asking_test

import (
	"context"
	"math"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies the metrics of a scripted session add up: every question is counted once,
// "not in your documents" separately, tokens and cost equal the answers' own usage, the
// latencies are measured, and all of it survives reopening the library.
func TestMetricsAddUp(t *testing.T) {
	srv := testollama.Start(t)
	eng, docID := testengine.WithNotes(t, srv)
	ctx := context.Background()
	var prompt, completion int
	var cost float64
	first, err := eng.Asking().Ask(ctx, "Why did Thoreau live in the woods?", asking.Options{DocIDs: []string{docID}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	second, err := eng.Asking().Ask(ctx, "What did he eat there?", asking.Options{SessionID: first.SessionID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	none, err := eng.Asking().Ask(ctx, "How does the T.38 protocol relay Group 3 fax pages?", asking.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if none.Mode != "not_found" {
		t.Fatalf("off-topic question answered in mode %q", none.Mode)
	}
	for _, a := range []int{first.Usage.PromptTokens, second.Usage.PromptTokens, none.Usage.PromptTokens} {
		prompt += a
	}
	for _, a := range []int{first.Usage.CompletionTokens, second.Usage.CompletionTokens, none.Usage.CompletionTokens} {
		completion += a
	}
	cost = first.Usage.CostUSD + second.Usage.CostUSD + none.Usage.CostUSD

	dir := eng.Config().Dir
	eng.Close()
	eng = testengine.Open(t, engine.Config{Dir: dir, OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: srv.EmbedModel})
	st, err := eng.Asking().Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tot := st.Total
	if tot.Questions != 3 || tot.NotFound != 1 || tot.CacheMisses != 3 || tot.CacheHits != 0 || tot.NoModel != 0 {
		t.Fatalf("counts = %+v", tot)
	}
	if tot.PromptTokens != prompt || tot.CompletionTokens != completion || math.Abs(tot.CostUSD-cost) > 1e-12 || prompt == 0 {
		t.Fatalf("tokens/cost = %d/%d/$%f, answers say %d/%d/$%f", tot.PromptTokens, tot.CompletionTokens, tot.CostUSD, prompt, completion, cost)
	}
	if tot.TTFTUncached.N != 3 || tot.TTFTUncached.P50 <= 0 || tot.TotalUncached.Max < tot.TTFTUncached.P50 || tot.Retrieval.N != 3 {
		t.Fatalf("latencies = %+v %+v %+v", tot.TTFTUncached, tot.TotalUncached, tot.Retrieval)
	}
	if len(st.Days) != 1 || st.Days[0].Questions != 3 || st.Days[0].PromptTokens != prompt {
		t.Fatalf("per day = %+v", st.Days)
	}
}
