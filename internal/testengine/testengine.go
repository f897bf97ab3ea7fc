// Package testengine opens engines for the tests of the packages that run over an engine
// (asking, intake, the bridge, the CLI), in one way: a new folder, no Ollama unless named.
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

// Option changes how Open's engine is looked after.
type Option func(*options)

type options struct{ closedByCaller bool }

// ClosedByCaller leaves closing the engine to the code under test: the bridge closes the
// engine it was given when the library is switched, or the test closes it itself before
// opening the same folder again. The test's cleanup does not close it a second time.
func ClosedByCaller() Option { return func(o *options) { o.closedByCaller = true } }

// Open opens a library for a test, closed when the test ends (unless [ClosedByCaller]):
// in a new folder unless cfg.Dir names one, with no Ollama (a closed port) unless
// cfg.OllamaHost names one. (backend/engine's own tests have a copy: they cannot import
// this package.)
func Open(tb testing.TB, cfg engine.Config, opts ...Option) *engine.Engine {
	tb.Helper()
	var o options
	for _, f := range opts {
		f(&o)
	}
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
	if !o.closedByCaller {
		tb.Cleanup(func() { eng.Close() })
	}
	return eng
}

// WithNotes opens an engine on the test Ollama with one small Markdown document
// (testcorpus.Woods) and answers of 16 tokens, returning the document's id.
func WithNotes(t *testing.T, srv *testollama.Server) (*engine.Engine, string) {
	t.Helper()
	return WithNote(t, engine.Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel,
		EmbedModel: srv.EmbedModel, MaxTokens: 16}, "walden.md", testcorpus.Woods)
}

// WithNote opens an engine as Open does, in lib/ of a new folder unless cfg.Dir names
// one, with one document: text written to that folder as name and ingested. It returns
// the engine and the document's id.
func WithNote(tb testing.TB, cfg engine.Config, name, text string) (*engine.Engine, string) {
	tb.Helper()
	dir := tb.TempDir()
	note := filepath.Join(dir, name)
	if err := os.WriteFile(note, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
	if cfg.Dir == "" {
		cfg.Dir = filepath.Join(dir, "lib")
	}
	eng := Open(tb, cfg)
	r, err := eng.Intake().IngestFile(context.Background(), note, nil)
	if err != nil || r.Status != engine.Inserted {
		tb.Fatalf("ingest %s: %+v %v", name, r, err)
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
