package asking_test

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/carrel-app/carrel/internal/testollama"
	"github.com/zalando/go-keyring"
)

// openForCache opens an engine on the test Ollama with the word-meaning embedding model
// and one small document, with the threshold the calibration pairs call for.
func openForCache(t *testing.T, srv *testollama.Server, dir string) (*engine.Engine, string) {
	t.Helper()
	embed := testollama.MeaningModel(t, srv)
	note := filepath.Join(dir, "walden.md")
	if _, err := os.Stat(note); err != nil {
		if err := os.WriteFile(note, []byte(testcorpus.Woods), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eng := testengine.Open(t, engine.Config{Dir: filepath.Join(dir, "lib"), OllamaHost: srv.Host, ChatModel: srv.ChatModel,
		EmbedModel: embed, MaxTokens: 16})
	// The threshold the calibration pairs call for with this model.
	c, _ := calibrate(t, eng)
	if err := eng.Asking().SetCacheThreshold(context.Background(), c.Threshold); err != nil {
		t.Fatal(err)
	}
	r, err := eng.Intake().IngestFile(context.Background(), note, nil)
	if err != nil || (r.Status != engine.Inserted && r.Status != engine.Skipped) {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	return eng, r.DocID
}

// verifies the answer cache against the real test Ollama: a paraphrased repeat reuses
// the answer without the model; a different question sharing words does not; a
// follow-up whose rewrite matches an earlier question does; another scope or model
// family does not; a change to a document in scope (one added, one removed) invalidates;
// "ask again fresh" bypasses and replaces the entry; and the cache survives a restart.
func TestAnswerCache(t *testing.T) {
	srv := testollama.Start(t)
	dir := t.TempDir()
	eng, docID := openForCache(t, srv, dir)
	ctx := context.Background()
	all := asking.Options{DocIDs: []string{}}
	const q = "Why did Thoreau live in the woods?"

	// Each property is a subtest, so one failing does not hide the others; they run in
	// order over the same library, so a later one can fail because an earlier one did.
	var first, fresh *chat.Answer
	t.Run("first answer is the model's", func(t *testing.T) {
		first = testengine.Ask(t, eng, q, all)
		if first.Cached != nil || first.Mode != chat.ModeModel || first.Usage.CompletionTokens == 0 {
			t.Fatalf("first answer: %+v", first)
		}
	})
	if first == nil {
		t.FailNow()
	}
	t.Run("paraphrase reuses it without the model", func(t *testing.T) {
		var events []asking.Event
		again, err := eng.Asking().Ask(ctx, "So why did Thoreau live in the woods?", all, func(ev asking.Event) error {
			events = append(events, ev)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if again.Cached == nil || again.Text != first.Text || again.Usage.CompletionTokens != 0 || again.Usage.PromptTokens != 0 ||
			again.Cached.SessionID != first.SessionID || again.Cached.MessageID != first.MessageID || again.Cached.Match != chat.MatchMeaning ||
			again.Cached.Similarity < cacheThresholdForTest || len(again.Citations) != len(first.Citations) || len(again.Claims) != len(first.Claims) {
			t.Fatalf("paraphrase: %+v (cached %+v)", again, again.Cached)
		}
		if len(events) != 2 || !events[0].IsStart || events[1].Token != first.Text {
			t.Fatalf("a cached answer streams its passages then its text: %+v", events)
		}
	})
	t.Run("another question sharing words misses", func(t *testing.T) {
		if other := testengine.Ask(t, eng, "What did Thoreau eat in the woods?", all); other.Cached != nil {
			t.Fatalf("different question hit the cache: %+v", other.Cached)
		}
		if when := testengine.Ask(t, eng, "When did Thoreau live in the woods?", all); when.Cached != nil {
			t.Fatalf("a when-question hit a why-question: %+v", when.Cached)
		}
	})
	t.Run("exact repeat hits", func(t *testing.T) {
		if s := testengine.Ask(t, eng, q, all); s.Cached == nil {
			t.Fatal("exact repeat missed")
		}
	})
	t.Run("another scope or model family misses", func(t *testing.T) {
		if scoped := testengine.Ask(t, eng, q, asking.Options{DocIDs: []string{docID}}); scoped.Cached != nil {
			t.Fatalf("another scope hit: %+v", scoped.Cached)
		}
		if h, err := eng.Asking().LookupCache(ctx, q, "ollama/other-model"); h != nil || err != nil {
			t.Fatalf("another model family hit: %+v %v", h, err)
		}
		if h, _ := eng.Asking().LookupCache(ctx, q, cache.Family("ollama", srv.ChatModel+":latest")); h == nil {
			t.Fatal("the same family under its :latest tag missed")
		}
	})
	t.Run("fresh answer replaces the entry", func(t *testing.T) {
		before, _ := eng.Library().CacheIDs(ctx)
		fresh = testengine.Ask(t, eng, q, asking.Options{DocIDs: []string{}, Fresh: true})
		after, _ := eng.Library().CacheIDs(ctx)
		if fresh.Cached != nil || fresh.Usage.CompletionTokens == 0 || len(after) != len(before) {
			t.Fatalf("fresh: cached %+v, %d tokens, entries %d → %d", fresh.Cached, fresh.Usage.CompletionTokens, len(before), len(after))
		}
		if h := testengine.Ask(t, eng, q, all); h.Cached == nil || h.Cached.MessageID != fresh.MessageID {
			t.Fatalf("after fresh, the hit should be the fresh answer: %+v", h.Cached)
		}
	})
	t.Run("another chat model misses and answers", func(t *testing.T) {
		eng.Close()
		other := testengine.Open(t, engine.Config{Dir: filepath.Join(dir, "lib"), OllamaHost: srv.Host, ChatModel: testollama.EmbedModel,
			EmbedModel: eng.Config().EmbedModel, MaxTokens: 16})
		if h := testengine.Ask(t, other, q, all); h.Cached != nil || h.Model != testollama.EmbedModel {
			t.Fatalf("another model: model %s, cached %+v", h.Model, h.Cached)
		}
	})
	// Reopened here, not in a subtest: the engine outlives them (openForCache closes it
	// when the whole test ends).
	eng, _ = openForCache(t, srv, dir)
	t.Run("cache persists across a restart", func(t *testing.T) {
		if h := testengine.Ask(t, eng, "So why did Thoreau live in the woods?", all); h.Cached == nil || h.Cached.Match != chat.MatchMeaning {
			t.Fatalf("after a restart: %+v", h.Cached)
		}
	})
	t.Run("added or removed document invalidates", func(t *testing.T) {
		// A document added to the library changes what a whole-library question searched.
		extra := filepath.Join(dir, "pond.md")
		os.WriteFile(extra, []byte("# The pond\n\nWalden Pond is deep and clear; Thoreau sounded it in winter.\n"), 0o644)
		r, err := eng.Intake().IngestFile(ctx, extra, nil)
		if err != nil || r.Status != engine.Inserted {
			t.Fatalf("ingest: %+v %v", r, err)
		}
		if h := testengine.Ask(t, eng, q, all); h.Cached != nil {
			t.Fatalf("hit after a document was added: %+v", h.Cached)
		}
		if h := testengine.Ask(t, eng, q, all); h.Cached == nil {
			t.Fatal("the new answer was not cached")
		}
		// Removing a document deletes every entry that searched it, at once.
		n, _ := eng.Library().CacheIDs(ctx)
		if err := eng.Intake().Remove(ctx, r.DocID); err != nil {
			t.Fatal(err)
		}
		left, _ := eng.Library().CacheIDs(ctx)
		if len(left) >= len(n) {
			t.Fatalf("entries after removing a document: %d, before %d", len(left), len(n))
		}
		if h := testengine.Ask(t, eng, q, all); h.Cached != nil {
			t.Fatalf("hit after a document was removed: %+v", h.Cached)
		}
	})
	t.Run("edited document in scope invalidates", func(t *testing.T) {
		// An edited document is new bytes, a new id: a session scoped to the old one misses.
		// (The scoped answer from before still holds: its document did not change.)
		if h := testengine.Ask(t, eng, q, asking.Options{DocIDs: []string{docID}}); h.Cached == nil {
			t.Fatal("scoped repeat missed though its document is unchanged")
		}
		if err := eng.Intake().Remove(ctx, docID); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "walden.md"), []byte(strings.Replace(testcorpus.Woods, "two acres", "three acres", 1)), 0o644)
		if _, err := eng.Intake().IngestFile(ctx, filepath.Join(dir, "walden.md"), nil); err != nil {
			t.Fatal(err)
		}
		if h, _ := eng.Asking().Ask(ctx, q, asking.Options{DocIDs: []string{docID}}, nil); h != nil && h.Cached != nil {
			t.Fatalf("hit after the document in scope was edited: %+v", h.Cached)
		}
	})
}

// cacheThresholdForTest is the floor the engine tests' hits must reach.
const cacheThresholdForTest = 0.85

// verifies that without an embedding model the cache matches on content words only, and
// says so.
func TestAnswerCacheWithoutEmbeddings(t *testing.T) {
	srv := testollama.Start(t)
	eng, _ := testengine.WithNote(t, engine.Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel,
		EmbedModel: "no-such-embedder", MaxTokens: 16}, "walden.md", testcorpus.Woods)
	first := testengine.Ask(t, eng, "What did Thoreau plant?", asking.Options{})
	hit := testengine.Ask(t, eng, "what did Thoreau plant", asking.Options{})
	if first.Cached != nil || hit.Cached == nil || hit.Cached.Match != chat.MatchWords || hit.Cached.Similarity != 0 {
		t.Fatalf("words-only cache: first %+v, repeat %+v", first.Cached, hit.Cached)
	}
	if miss := testengine.Ask(t, eng, "What did Emerson plant?", asking.Options{}); miss.Cached != nil {
		t.Fatalf("different subject hit: %+v", miss.Cached)
	}
	cs, err := eng.Asking().CacheStatus(context.Background())
	// "Emerson" is in no document: "not in your documents" is never cached.
	if err != nil || cs.Match != chat.MatchWords || !strings.Contains(cs.Note, "no-such-embedder") || cs.Entries != 1 {
		t.Fatalf("status: %+v %v", cs, err)
	}
}

// fakeRewritingOpenAI is an OpenAI-compatible server whose model rewrites follow-ups
// into "What did Thoreau plant?" (10 + 5 tokens) and answers anything else with a
// sentence (1000 + 100 tokens).
func fakeRewritingOpenAI(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		body, _ := io.ReadAll(r.Body)
		text, pt, ct := "Thoreau planted beans and potatoes.", 1000, 100
		if strings.Contains(string(body), "You rewrite follow-up questions") {
			text, pt, ct = "What did Thoreau plant?", 10, 5
		}
		openAIStream(w, fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}`, pt, ct, pt+ct), text)
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// verifies the metrics of a scripted session with a priced (cloud) model: questions,
// hits and misses add up, the money saved equals the reused answers' cost, and a
// follow-up the model rewrites into an earlier question is a hit (only the rewrite paid).
func TestCacheMetricsAddUp(t *testing.T) {
	keyring.MockInit()
	t.Setenv("OPENAI_API_KEY", "sk-test")
	srv, calls := fakeRewritingOpenAI(t)
	eng, _ := testengine.WithNote(t, engine.Config{
		AnswerConfig: engine.AnswerConfig{Provider: engine.ProviderOpenAI, OpenAIBaseURL: srv.URL}}, "walden.md", "# Walden\n\nThoreau planted beans, potatoes, corn and peas by Walden Pond.\n")
	ctx := context.Background()
	a := testengine.Ask(t, eng, "What did Thoreau plant?", asking.Options{})
	b := testengine.Ask(t, eng, "What did Thoreau plant by Walden Pond?", asking.Options{})
	h1 := testengine.Ask(t, eng, "what did thoreau plant", asking.Options{})
	h2 := testengine.Ask(t, eng, "What did Thoreau plant by Walden Pond", asking.Options{})
	f := testengine.Ask(t, eng, "What did he plant there?", asking.Options{SessionID: b.SessionID})
	if a.Usage.CostUSD <= 0 || b.Usage.CostUSD <= 0 || h1.Cached == nil || h2.Cached == nil || calls.Load() != 3 {
		t.Fatalf("answers: %v %v %v %v, %d model calls", a.Usage.CostUSD, b.Usage.CostUSD, h1.Cached, h2.Cached, calls.Load())
	}
	if h1.Usage.CostUSD != 0 || h1.Cached.SavedUSD != a.Usage.CostUSD || h2.Cached.SavedUSD != b.Usage.CostUSD {
		t.Fatalf("a hit costs nothing and saves the reused answer's cost: %+v %+v", h1.Usage, h1.Cached)
	}
	if f.Standalone != "What did Thoreau plant?" || f.Cached == nil || f.Cached.MessageID != a.MessageID || f.Usage.CostUSD <= 0 ||
		f.Usage.CostUSD >= a.Usage.CostUSD {
		t.Fatalf("follow-up: %q → %q, cached %+v, cost %v", f.Question, f.Standalone, f.Cached, f.Usage.CostUSD)
	}
	st, err := eng.Asking().Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tot := st.Total
	wantSaved := 2*a.Usage.CostUSD + b.Usage.CostUSD
	wantCost := a.Usage.CostUSD + b.Usage.CostUSD + f.Usage.CostUSD
	if tot.Questions != 5 || tot.CacheHits != 3 || tot.CacheMisses != 2 || math.Abs(tot.SavedUSD-wantSaved) > 1e-12 ||
		math.Abs(tot.CostUSD-wantCost) > 1e-12 || tot.TTFTCached.N != 3 || tot.TTFTUncached.N != 2 {
		t.Fatalf("stats: %+v (want saved %v, cost %v)", tot, wantSaved, wantCost)
	}
	// A resumed session shows which answers came from the cache.
	d, err := eng.Asking().Session(ctx, h1.SessionID)
	if err != nil || len(d.Messages) != 1 || d.Messages[0].Cached == nil || d.Messages[0].Cached.MessageID != a.MessageID {
		t.Fatalf("session detail: %+v %v", d.Messages, err)
	}
}
