package asking_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/carrel-app/carrel/internal/testollama"
)

// BenchmarkCachedAsk measures a whole question answered from the cache in a new session
// (rewrite skipped, the question embedded by the test Ollama, lookup in SQLite and FAISS,
// the exchange and its metrics saved), against BenchmarkUncachedAsk with the tiny model.
func BenchmarkCachedAsk(b *testing.B) {
	benchAsk(b, false)
}

// BenchmarkUncachedAsk is the same question answered fresh by the tiny model (16 tokens).
func BenchmarkUncachedAsk(b *testing.B) {
	benchAsk(b, true)
}

func benchAsk(b *testing.B, fresh bool) {
	srv := testollama.Start(b)
	dir := b.TempDir()
	note := filepath.Join(dir, "walden.md")
	if err := os.WriteFile(note, []byte(testcorpus.Woods), 0o644); err != nil {
		b.Fatal(err)
	}
	eng := testengine.Open(b, engine.Config{Dir: filepath.Join(dir, "lib"), OllamaHost: srv.Host, ChatModel: srv.ChatModel,
		EmbedModel: srv.EmbedModel, MaxTokens: 16})
	ctx := context.Background()
	if _, err := eng.Intake().IngestFile(ctx, note, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := eng.Asking().Ask(ctx, "Why did Thoreau live in the woods?", asking.Options{DocIDs: []string{}}, nil); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ans, err := eng.Asking().Ask(ctx, "why did Thoreau live in the woods", asking.Options{DocIDs: []string{}, Fresh: fresh}, nil)
		if err != nil || (ans.Cached == nil) != fresh {
			b.Fatalf("%v (cached %v)", err, ans.Cached)
		}
	}
}
