package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies that after losing either index file (a crash, a kill mid-write, a user deleting
// files) the engine restores agreement with SQLite: the lexical index is rebuilt, lost
// vectors are marked and embedded again, and stale vectors of removed documents go away.
func TestReconcileAfterLostIndexes(t *testing.T) {
	srv := testollama.Start(t)
	ctx := context.Background()
	cfg := Config{Dir: t.TempDir(), OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: srv.EmbedModel}
	eng, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	walden, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "Walden.pdf"), nil)
	if err != nil || walden.Status != Inserted {
		t.Fatalf("ingest: %+v %v", walden, err)
	}
	other, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "OptimizeTest.pdf"), nil)
	if err != nil || other.Status != Inserted {
		t.Fatalf("ingest: %+v %v", other, err)
	}
	total := walden.Chunks + other.Chunks
	if eng.vec.Len() != total {
		t.Fatalf("vectors = %d, want %d", eng.vec.Len(), total)
	}
	// A removal whose index updates a crash cut off: SQLite forgets the document, the
	// vector file keeps its vectors.
	stale, _ := eng.lib.DocumentChunks(ctx, other.DocID)
	if err := eng.lib.DeleteDocument(ctx, other.DocID); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	if err := os.RemoveAll(filepath.Join(cfg.Dir, "bleve")); err != nil {
		t.Fatal(err)
	}

	eng, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, c := range stale {
		for _, id := range eng.vec.IDs() {
			if id == c.Seq {
				t.Fatalf("stale vector %d of a removed document survived reopening", id)
			}
		}
	}
	hits, err := eng.Search(ctx, "woods", SearchOptions{Mode: "lexical"})
	if err != nil || len(hits) == 0 || hits[0].DocID != walden.DocID {
		t.Fatalf("lexical search after losing the bleve index: %+v %v", hits, err)
	}
	eng.Close()

	if err := os.Remove(filepath.Join(cfg.Dir, "vectors", "vectors.faiss")); err != nil {
		t.Fatal(err)
	}
	eng, err = Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := eng.lib.Unembedded(ctx, 1000); len(n) != walden.Chunks {
		t.Fatalf("after losing the vector file, %d chunks await embedding, want %d", len(n), walden.Chunks)
	}
	if n, err := eng.Intake().EmbedPending(ctx); err != nil || n != walden.Chunks || eng.vec.Len() != walden.Chunks {
		t.Fatalf("re-embedding: %d %v (index holds %d)", n, err, eng.vec.Len())
	}
}

// verifies a document can be removed with everything derived from it, and that searches
// made before the removal (which load the library's passages into memory) do not keep it.
func TestRemove(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, Config{})
	r, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "Walden.pdf"), nil)
	if err != nil || r.Status != Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	if hits, err := eng.Search(ctx, "woods", SearchOptions{}); err != nil || len(hits) == 0 || hits[0].DocTitle == "" {
		t.Fatalf("before remove: %+v %v", hits, err)
	}
	if err := eng.Intake().Remove(ctx, r.DocID); err != nil {
		t.Fatal(err)
	}
	hits, _ := eng.Search(ctx, "woods", SearchOptions{})
	if n, _ := eng.lex.Count(); len(hits) != 0 || n != 0 {
		t.Fatalf("after remove: %d hits, %d lexical entries", len(hits), n)
	}
	if r2, _ := eng.Intake().IngestFile(ctx, testcorpus.File(t, "Walden.pdf"), nil); r2.Status != Inserted {
		t.Fatalf("re-adding a removed document: %+v", r2)
	}
	if hits, err := eng.Search(ctx, "woods", SearchOptions{}); err != nil || len(hits) == 0 || hits[0].DocID != r.DocID || hits[0].Text == "" {
		t.Fatalf("after re-adding: %+v %v", hits, err)
	}
}

// openEngine opens a library for a test, closed when the test ends: in a new folder
// unless cfg.Dir names one, with no Ollama (a closed port) unless cfg.OllamaHost names
// one.
func openEngine(tb testing.TB, cfg Config) *Engine {
	tb.Helper()
	if cfg.Dir == "" {
		cfg.Dir = tb.TempDir()
	}
	if cfg.OllamaHost == "" {
		cfg.OllamaHost = "127.0.0.1:9"
	}
	eng, err := Open(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng
}

// ask asks q in eng's sessions and fails the test on an error (internal/testengine.Ask
// for the packages above; this package's tests cannot import it).
func ask(t *testing.T, eng *Engine, q string, opt asking.Options) *chat.Answer {
	t.Helper()
	ans, err := eng.Asking().Ask(context.Background(), q, opt, nil)
	if err != nil {
		t.Fatalf("ask %q: %v", q, err)
	}
	return ans
}
