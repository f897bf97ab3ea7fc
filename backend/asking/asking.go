// Package asking answers questions in study sessions and keeps the sessions. One question
// goes through a few steps, each a function here: the model is chosen (by the
// coordinator, which knows the providers and the budget), the session opened, a
// follow-up rewritten into a standalone question, the answer cache consulted, the
// answer produced (retrieval by the coordinator, the prompt, stream and citations by
// backend/chat), its usage priced, the exchange saved, the cache and the metrics
// updated, and the question read for what it says about the user (backend/memory).
package asking

import (
	"context"
	"sync"
	"time"

	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/memory"
)

// Coordinator is what asking needs of the open library's coordinator (backend/engine).
type Coordinator interface {
	// Writable is nil when the library can be changed, else the reason it cannot.
	Writable() error
	// ChooseModel picks the model that answers now and says whether embeddings work. A
	// cloud model past its budget is refused unless overrideBudget.
	ChooseModel(ctx context.Context, overrideBudget bool) (Model, Embedding, error)
	// Embedding says whether the embedding model is available now.
	Embedding(ctx context.Context) Embedding
	// Search finds the passages for question within docIDs (none: the whole library),
	// numbered from 1.
	Search(ctx context.Context, question string, docIDs []string) ([]chat.Passage, error)
	// Settings are the answering settings in force.
	Settings() Settings
	// BudgetWarning is the cloud budget's warning as spending stands now ("" for none).
	BudgetWarning(ctx context.Context) string
	// ModelsChanged says a model went away since the status was checked.
	ModelsChanged()
}

// Model is the model that answers now, with what is needed to call and price it.
type Model struct {
	// Provider answers; nil: no model (the passages answer), Reason says why.
	Provider llm.Provider
	Name     string
	NumCtx   int
	Reason   string
	Price    *llm.Price
	Warning  string
	// Local is set for Ollama's chat model: its tokenizer is measured, and it may
	// propose memories.
	Local bool
	// tokens estimates the prompt's tokens (0: the default estimate).
	tokens chat.Estimator
}

// Embedding is the state of the embedding model.
type Embedding struct {
	Model string
	// OK: installed and reachable; Fix says what to do otherwise.
	OK  bool
	Fix string
	// Embed embeds texts with Model (the caller adds the task prefixes).
	Embed func(ctx context.Context, texts []string) ([][]float32, error)
}

// Settings are the answering settings asking reads from the library's configuration.
type Settings struct {
	MaxTokens int
	KeepAlive time.Duration
}

// Asker answers questions in the sessions of one library. It is safe for concurrent use.
type Asker struct {
	co     Coordinator
	lib    *library.Library
	cache  *cache.Answers
	memory *memory.Store
	// calib holds each local model's token estimator (chat.Estimator), calibrated from
	// the prompt token counts Ollama reports.
	calib sync.Map
}

// New makes the asker of a library.
func New(co Coordinator, lib *library.Library, answers *cache.Answers, mem *memory.Store) *Asker {
	return &Asker{co: co, lib: lib, cache: answers, memory: mem}
}

// cost prices an answer's usage (the follow-up rewrite included) with m's price; local
// models cost nothing.
func (m Model) cost(u chat.Usage) float64 {
	if m.Price == nil {
		return 0
	}
	return m.Price.Cost(llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CachedTokens: u.CachedTokens})
}

// request is a chat request to m with the keep-alive in force.
func (a *Asker) request(m Model) llm.ChatRequest {
	return llm.ChatRequest{Model: m.Name, NumCtx: m.NumCtx, KeepAlive: a.co.Settings().KeepAlive}
}

// embedder is the cache's embedder, nil without a working embedding model.
func embedder(emb Embedding) *cache.Embedder {
	if !emb.OK || emb.Embed == nil {
		return nil
	}
	return &cache.Embedder{Model: emb.Model, Embed: func(ctx context.Context, texts []string) ([][]float32, error) {
		q := make([]string, len(texts))
		for i, t := range texts {
			q[i] = llm.QueryPrefix(emb.Model) + t
		}
		return emb.Embed(ctx, q)
	}}
}
