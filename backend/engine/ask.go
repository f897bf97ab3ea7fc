package engine

import (
	"context"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/retrieve"
)

// Hit is one search result as the CLI and the frontend see it.
type Hit struct {
	DocID       string  `json:"doc_id"`
	DocPath     string  `json:"doc_path"`
	DocTitle    string  `json:"doc_title"`
	Page        int     `json:"page"`
	PageEnd     int     `json:"page_end"`
	Start       int     `json:"start"`
	End         int     `json:"end"`
	Section     string  `json:"section"`
	Text        string  `json:"text"`
	Score       float64 `json:"score"`
	MatchType   string  `json:"match_type"`
	LexicalRank int     `json:"lexical_rank"`
	VectorRank  int     `json:"vector_rank"`
}

// SearchOptions shape a search.
type SearchOptions struct {
	K      int
	Mode   retrieve.Mode
	DocIDs []string
}

// Search finds the passages best matching query.
func (e *Engine) Search(ctx context.Context, query string, opt SearchOptions) ([]Hit, error) {
	st := e.Status(ctx)
	raw, err := e.retriever(st).Search(ctx, query, retrieve.Options{K: opt.K, Mode: opt.Mode, DocIDs: opt.DocIDs})
	if err != nil {
		return nil, err
	}
	docs := e.docCache(ctx)
	out := make([]Hit, 0, len(raw))
	for _, h := range raw {
		d := docs(h.Chunk.DocID)
		out = append(out, Hit{DocID: d.ID, DocPath: d.Path, DocTitle: d.Title, Page: h.Chunk.PageStart, PageEnd: h.Chunk.PageEnd,
			Start: h.Chunk.Start, End: h.Chunk.End, Section: h.Chunk.Section, Text: h.Chunk.Text, Score: h.Score,
			MatchType: h.MatchType, LexicalRank: h.LexicalRank, VectorRank: h.VectorRank})
	}
	return out, nil
}

// docCache returns a lookup that reads each document at most once.
func (e *Engine) docCache(ctx context.Context) func(id string) library.Document {
	m := map[string]library.Document{}
	return func(id string) library.Document {
		if d, ok := m[id]; ok {
			return d
		}
		d, err := e.lib.Document(ctx, id)
		if err != nil {
			d = library.Document{ID: id}
		}
		m[id] = d
		return d
	}
}

// AskEvent is streamed while answering.
type AskEvent = chat.Event

// Ask answers question from the library (or the documents in docIDs), streaming to fn.
// On a model failure after some text, the partial answer comes back with the error.
func (e *Engine) Ask(ctx context.Context, question string, docIDs []string, fn func(AskEvent) error) (*chat.Answer, error) {
	st := e.Status(ctx)
	cfg := e.Config()
	hits, err := e.Search(ctx, question, SearchOptions{K: cfg.TopK, DocIDs: docIDs})
	if err != nil {
		return nil, err
	}
	passages := make([]chat.Passage, len(hits))
	for i, h := range hits {
		passages[i] = chat.Passage{N: i + 1, DocID: h.DocID, DocTitle: h.DocTitle, DocPath: h.DocPath, Page: h.Page,
			PageEnd: h.PageEnd, Start: h.Start, End: h.End, Section: h.Section, Text: h.Text}
	}
	searched := len(docIDs)
	if searched == 0 {
		searched = st.Documents
	}
	req := chat.Request{Question: question, Passages: passages, Searched: searched, MaxTokens: cfg.MaxTokens, ModelName: cfg.ChatModel}
	if st.chatOK {
		req.Model = e.ollama
		req.NumCtx = e.contextLength(ctx, cfg.ChatModel)
	} else {
		req.ModelName = ""
		req.NoModelReason = st.Reason + " " + st.Fix
	}
	if fn == nil {
		fn = func(AskEvent) error { return nil }
	}
	return chat.Respond(ctx, req, fn)
}

// contextLength is the num_ctx to ask for: the model's own window, capped by MaxContext,
// because Ollama's default window silently truncates long prompts.
func (e *Engine) contextLength(ctx context.Context, model string) int {
	e.statusMu.Lock()
	n, ok := e.numCtx[model]
	e.statusMu.Unlock()
	if !ok {
		var err error
		if n, err = e.ollama.ContextLength(ctx, model); err != nil || n <= 0 {
			n = 4096
		}
		e.statusMu.Lock()
		e.numCtx[model] = n
		e.statusMu.Unlock()
	}
	return min(n, e.cfg.MaxContext)
}
