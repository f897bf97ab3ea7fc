package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/internal/gguf"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies that a chunk the embedding model gives a zero vector (a model of words embeds a
// text of none it knows as zero) neither fails its batch nor stops the rest of the
// document: the other chunks get their vectors, that chunk is recorded as having none (not
// waiting, so EmbedPending and a restart leave it be) and is still found by its words.
func TestZeroVectorChunk(t *testing.T) {
	srv := testollama.Start(t)
	ctx := context.Background()
	// A SentencePiece vocabulary, like the other test models': a 9-token WordPiece one
	// made ollama serve segfault now and then while loading it (vocab-only, in-process),
	// taking the shared server down with it.
	const model = "tiny-words"
	words := []string{"pond", "ice", "water", "winter", "boat", "fish"}
	vecs := make([][]float32, len(words))
	for i := range vecs {
		vecs[i] = make([]float32, 8)
		vecs[i][i] = 1
		vecs[i][(i+1)%8] = 0.5
	}
	if err := srv.CreateModel(ctx, model, gguf.Options{Words: words, Vectors: vecs, Width: 16}); err != nil {
		t.Fatal(err)
	}
	known := strings.Repeat("The pond ice and the winter water. A boat and a fish on the pond. ", 12)
	unknown := strings.Repeat("Zork quux blarg frobnicate wibble. ", 25) // no word of the model's
	doc := filepath.Join(t.TempDir(), "pond.md")
	text := "# Pond\n\n" + known + "\n\n" + unknown + "\n\n" + known + "\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Dir: t.TempDir(), OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: model}
	eng, err := Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { eng.Close() }()
	r, err := eng.Intake().IngestFile(ctx, doc, nil)
	if err != nil || r.Status != Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	check := func(when string) {
		t.Helper()
		waiting, err := eng.lib.Unembedded(ctx, 1000)
		if err != nil || len(waiting) != 0 {
			t.Fatalf("%s: %d chunks still waiting for a vector (%v)", when, len(waiting), err)
		}
		embedded, err := eng.lib.EmbeddedSeqs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := eng.vec.Len()
		if n == 0 || n >= r.Chunks || len(embedded) != n {
			t.Fatalf("%s: %d vectors, %d chunks marked embedded, %d chunks: want some but not all chunks with vectors, and the marks to agree", when, n, len(embedded), r.Chunks)
		}
		if got, err := eng.Intake().EmbedPending(ctx); err != nil || got != 0 {
			t.Fatalf("%s: EmbedPending embedded %d (%v), want 0", when, got, err)
		}
		hits, err := eng.Search(ctx, "frobnicate wibble", SearchOptions{K: 3, Mode: retrieve.Lexical})
		if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Text, "frobnicate") {
			t.Fatalf("%s: the unembeddable passage is not found by its words: %+v %v", when, hits, err)
		}
	}
	check("after ingest")
	eng.Close()
	if eng, err = Open(cfg); err != nil {
		t.Fatal(err)
	}
	check("after a restart")
}
