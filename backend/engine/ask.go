package engine

import (
	"cmp"
	"context"
	"errors"

	"github.com/carrel-app/carrel/backend/intake"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/retrieve"
)

// Hit is one search result as the CLI and the frontend see it: a passage (parent) with
// its page span, found by its own words or by one of its children.
type Hit struct {
	DocID    string `json:"doc_id"`
	DocPath  string `json:"doc_path"`
	DocTitle string `json:"doc_title"`
	Page     int    `json:"page"`
	PageEnd  int    `json:"page_end"`
	// FocusPage is the page a citation of the hit opens at: where its best match is, in a
	// passage over several pages (Page otherwise).
	FocusPage   int                `json:"focus_page"`
	Start       int                `json:"start"`
	End         int                `json:"end"`
	Section     string             `json:"section"`
	Text        string             `json:"text"`
	Score       float64            `json:"score"`
	MatchType   retrieve.MatchType `json:"match_type"`
	LexicalRank int                `json:"lexical_rank"`
	VectorRank  int                `json:"vector_rank"`
	// LexicalScore is the BM25 score, VectorScore the cosine similarity of the best
	// child (0 when that list did not find the passage).
	LexicalScore float64 `json:"lexical_score"`
	VectorScore  float64 `json:"vector_score"`
}

// SearchOptions shape a search.
type SearchOptions struct {
	K      int
	Mode   retrieve.Mode
	DocIDs []string
	// TokenBudget caps the estimated tokens of the passages returned (0: no cap), for
	// callers that show or send passages without a tokenizer of their own. The answer
	// path leaves it 0: chat trims passages to the prompt budget with the model's own
	// token counts, and a second, cruder cut (four characters a token) here would drop
	// passages that fit.
	TokenBudget int
}

// Search finds the passages best matching query.
func (e *Engine) Search(ctx context.Context, query string, opt SearchOptions) ([]Hit, error) {
	st := e.Status(ctx)
	k := cmp.Or(opt.K, 8)
	// The reranker reads a pool deeper than k and the k it ranks best are kept; the
	// budget is applied to those.
	ropt := retrieve.Options{K: k, Mode: opt.Mode, DocIDs: opt.DocIDs, Pool: e.rerankPool(opt.Mode)}
	raw, err := e.retriever(ctx, st).Search(ctx, query, ropt)
	if err != nil && st.embedOK && (errors.Is(err, llm.ErrUnreachable) || errors.Is(err, llm.ErrStalled) || errors.Is(err, llm.ErrModelNotFound)) {
		// Ollama went away since the status was checked (found by the fault tests: a
		// search right after it was killed failed): check again and search without it.
		e.RefreshStatus()
		st = e.Status(ctx)
		raw, err = e.retriever(ctx, st).Search(ctx, query, ropt)
	}
	if err != nil {
		return nil, err
	}
	raw = e.rerank(query, opt.Mode, raw) // backend/rerank: question and passage read together
	raw = retrieve.TrimToBudget(raw[:min(len(raw), k)], opt.TokenBudget)
	docs := e.docCache(ctx)
	out := make([]Hit, 0, len(raw))
	for _, h := range raw {
		d := docs(h.Chunk.DocID)
		out = append(out, Hit{DocID: d.ID, DocPath: d.Path, DocTitle: d.Title, Page: h.Chunk.PageStart, PageEnd: h.Chunk.PageEnd,
			FocusPage: cmp.Or(h.Focus, h.Chunk.PageStart),
			Start:     h.Chunk.Start, End: h.Chunk.End, Section: h.Chunk.Section, Text: h.Chunk.Text, Score: h.Score,
			MatchType: h.MatchType, LexicalRank: h.LexicalRank, VectorRank: h.VectorRank,
			LexicalScore: h.LexicalScore, VectorScore: h.VectorScore})
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

// rankedOf reads a word index hit back into the passage or child it names.
func rankedOf(id string, score float64) (retrieve.Ranked, bool) {
	seq, parent, ok := intake.ParseLexID(id)
	return retrieve.Ranked{Seq: seq, Score: score, Parent: parent}, ok
}
