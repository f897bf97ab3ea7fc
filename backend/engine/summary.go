package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/summary"
)

// Summaries' types and values (backend/summary), by the names the engine's callers use.
type (
	SummaryRequest = summary.SummaryRequest
	Selection      = summary.Selection
	SummarySection = summary.SummarySection
	Summary        = summary.Summary
	SummaryScope   = summary.SummaryScope
	SummaryEvent   = summary.SummaryEvent
)

// Scopes of a summary.
const (
	ScopeDocument  = summary.ScopeDocument
	ScopeSection   = summary.ScopeSection
	ScopeSelection = summary.ScopeSelection
)

// ErrNothingToSummarise is returned when the scope has no prose to summarise.
var ErrNothingToSummarise = summary.ErrNothingToSummarise

// Summarize summarises a document, one of its outline sections or a selection of it into
// a study session (see [summary.Summaries.Summarize]): with the local chat model when it
// is installed, in the window Ollama gives it, else by quoting key sentences. A
// read-only library refuses (the summary is saved in it).
func (e *Engine) Summarize(ctx context.Context, req SummaryRequest, fn func(SummaryEvent) error) (*Summary, error) {
	if e.readOnly {
		return nil, e.readOnlyError()
	}
	return e.summaries.Summarize(ctx, req, fn)
}

// summaryPort is the engine as backend/summary sees it.
type summaryPort struct{ e *Engine }

func (p summaryPort) NewSessionID() string { return asking.NewSessionID() }

// Model is Ollama's chat model when it is installed, with its context window (read from
// /api/show, capped by the settings) and, when the embedding model works, an embedder
// that grounds sentences by meaning.
func (p summaryPort) Model(ctx context.Context) *summary.Model {
	e := p.e
	if st := e.Status(ctx); !st.chatOK {
		return nil
	}
	name := e.Config().ChatModel
	numCtx := e.contextLength(ctx, name)
	m := &summary.Model{Provider: ProviderOllama, Name: name, NumCtx: numCtx, Complete: e.ollamaComplete(name, numCtx)}
	if st := e.Status(ctx); st.embedOK {
		emb := e.embedding(st)
		m.Embed = func(ctx context.Context, sents, passages []string) ([][]float32, error) {
			texts := make([]string, 0, len(sents)+len(passages))
			for _, t := range sents {
				texts = append(texts, llm.QueryPrefix(emb.Model)+t)
			}
			for _, t := range passages {
				texts = append(texts, llm.DocPrefix(emb.Model)+t)
			}
			return emb.Embed(ctx, texts)
		}
	}
	return m
}

// ollamaComplete calls the local chat model with the window given, at temperature 0.
func (e *Engine) ollamaComplete(model string, numCtx int) summary.CompleteFunc {
	return func(ctx context.Context, system, user string, onToken func(string) error) (string, error) {
		temp := 0.0
		var out strings.Builder
		_, err := e.ollama.Chat(ctx, llm.ChatRequest{
			Model:       model,
			Messages:    []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
			Temperature: &temp,
			MaxTokens:   summary.ReplyTokens,
			NumCtx:      numCtx,
			KeepAlive:   e.keepAlive(),
		}, func(d llm.Delta) error {
			out.WriteString(d.Text)
			return onToken(d.Text)
		})
		if err != nil && !errors.Is(err, llm.ErrTruncated) {
			return out.String(), fmt.Errorf("summarise: %w", err)
		}
		return strings.TrimSpace(out.String()), nil
	}
}
