// Package testengine opens engines for the tests of the packages above the engine's
// stages (asking, the bridge, the CLI), in one way: a new folder, no Ollama unless named.
package testengine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
)

// Open opens a library for a test, closed when the test ends: in a new folder unless
// cfg.Dir names one, with no Ollama (a closed port) unless cfg.OllamaHost names one.
// (backend/engine's own tests have a copy: they cannot import this package.)
func Open(tb testing.TB, cfg engine.Config) *engine.Engine {
	tb.Helper()
	if cfg.Dir == "" {
		cfg.Dir = tb.TempDir()
	}
	if cfg.OllamaHost == "" {
		cfg.OllamaHost = "127.0.0.1:9"
	}
	eng, err := engine.Open(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { eng.Close() })
	return eng
}

// WithNotes opens an engine on the test Ollama with one small Markdown document
// (testcorpus.Woods) and answers of 16 tokens, returning the document's id.
func WithNotes(t *testing.T, srv *testollama.Server) (*engine.Engine, string) {
	t.Helper()
	dir := t.TempDir()
	note := WriteWoods(t, dir)
	eng := Open(t, engine.Config{Dir: filepath.Join(dir, "lib"), OllamaHost: srv.Host, ChatModel: srv.ChatModel,
		EmbedModel: srv.EmbedModel, MaxTokens: 16})
	r, err := eng.IngestFile(context.Background(), note, nil)
	if err != nil || r.Status != engine.Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	return eng, r.DocID
}

// WriteWoods writes testcorpus.Woods to dir/walden.md, unless it is there, and returns
// its path.
func WriteWoods(tb testing.TB, dir string) string {
	tb.Helper()
	note := filepath.Join(dir, "walden.md")
	if _, err := os.Stat(note); err == nil {
		return note
	}
	if err := os.WriteFile(note, []byte(testcorpus.Woods), 0o644); err != nil {
		tb.Fatal(err)
	}
	return note
}

// Ask asks q in eng's sessions and fails the test on an error.
func Ask(t *testing.T, eng *engine.Engine, q string, opt asking.Options) *chat.Answer {
	t.Helper()
	ans, err := eng.Asking().Ask(context.Background(), q, opt, nil)
	if err != nil {
		t.Fatalf("ask %q: %v", q, err)
	}
	return ans
}
