package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/memory"
)

// Asking is the library's sessions: asking questions in them, resuming, exporting, the
// answer cache's settings and the answer metrics (backend/asking).
func (e *Engine) Asking() *asking.Asker { return e.asker }

// Memory is what the library remembers about the user (backend/memory).
func (e *Engine) Memory() *memory.Store { return e.memory }

// openAnswers opens the answer cache (its vector index in DIR/cache, beside its entries
// in SQLite), the memory and the asker over them.
func (e *Engine) openAnswers(ctx context.Context, readOnly bool, notices *[]string) error {
	cdir := filepath.Join(e.cfg.Dir, cache.Dir)
	if readOnly && size(cdir) < 0 {
		// Never made, and cannot be now: an empty index of its own, never saved.
		tmp, err := os.MkdirTemp("", "carrel-cache-*")
		if err != nil {
			return fmt.Errorf("open the answer cache index: %w", err)
		}
		cdir = tmp
	}
	vec, err := openVectorsKept(cdir, "answer cache index", readOnly, notices)
	if err != nil {
		return fmt.Errorf("open the answer cache index: %w", err)
	}
	if e.answers, err = cache.Open(ctx, e.lib, vec, readOnly); err != nil {
		vec.Close()
		return err
	}
	e.memory = memory.NewStore(e.lib)
	e.asker = asking.New(askingPort{e}, e.lib, e.answers, e.memory)
	return nil
}

// askingPort is the engine as backend/asking sees it.
type askingPort struct{ e *Engine }

func (p askingPort) Writable() error {
	if p.e.readOnly {
		return p.e.readOnlyError()
	}
	return nil
}

func (p askingPort) ChooseModel(ctx context.Context, overrideBudget bool) (asking.Model, asking.Embedding, error) {
	st := p.e.Status(ctx)
	m, err := p.e.answerModel(ctx, st, overrideBudget)
	return m, p.e.embedding(st), err
}

func (p askingPort) Embedding(ctx context.Context) asking.Embedding {
	return p.e.embedding(p.e.Status(ctx))
}

func (p askingPort) Search(ctx context.Context, question string, docIDs []string) ([]chat.Passage, error) {
	hits, err := p.e.Search(ctx, question, SearchOptions{K: p.e.Config().TopK, DocIDs: docIDs})
	if err != nil {
		return nil, err
	}
	passages := make([]chat.Passage, len(hits))
	for i, h := range hits {
		passages[i] = chat.Passage{N: i + 1, DocID: h.DocID, DocTitle: h.DocTitle, DocPath: h.DocPath, Page: h.Page,
			PageEnd: h.PageEnd, FocusPage: h.FocusPage, Start: h.Start, End: h.End, Section: h.Section, Text: h.Text, URL: p.e.SourceURL(ctx, h.DocID, h.Page)}
	}
	return passages, nil
}

func (p askingPort) Settings() asking.Settings {
	return asking.Settings{MaxTokens: p.e.Config().MaxTokens, KeepAlive: p.e.keepAlive()}
}

func (p askingPort) BudgetWarning(ctx context.Context) string {
	if meter, err := p.e.Meter(ctx); err == nil {
		return meter.Warning
	}
	return ""
}

func (p askingPort) ModelsChanged() { p.e.RefreshStatus() }

// embedding is the embedding model's state in st.
func (e *Engine) embedding(st Status) asking.Embedding {
	model := e.Config().EmbedModel
	return asking.Embedding{Model: model, OK: st.embedOK, Fix: st.Fix,
		Embed: func(ctx context.Context, texts []string) ([][]float32, error) {
			return e.ollama.Embed(ctx, model, texts)
		}}
}

// keepAlive is how long Ollama keeps the chat model loaded after an answer: long enough
// that a study session does not reload it between questions.
func (e *Engine) keepAlive() time.Duration {
	s := strings.TrimSpace(e.Config().KeepAlive)
	if s == "" {
		return DefaultKeepAlive
	}
	if d, err := time.ParseDuration(s); err == nil && d != 0 {
		return d
	}
	if s == "-1" {
		return -1
	}
	return DefaultKeepAlive
}

// DefaultKeepAlive keeps the local chat model loaded for half an hour after each answer.
const DefaultKeepAlive = 30 * time.Minute
