package engine

import (
	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/rerank"
	"github.com/carrel-app/carrel/backend/retrieve"
)

// rerank reorders retrieved hits by reading the question with each passage (see
// backend/rerank), unless CARREL_RERANK=off (envconfig.Reranker). A vector-only search is
// left in its
// order: the reader reads words, and the user asked for meaning alone. If the question's
// term weights cannot be read, the retrieval order stands.
func (e *Engine) rerank(query string, mode retrieve.Mode, hits []retrieve.Hit) []retrieve.Hit {
	if len(hits) < 2 || mode == retrieve.Vector || envconfig.Reranker() != envconfig.RerankLexical {
		return hits
	}
	tw, err := e.lex.QueryTerms(query)
	if err != nil {
		return hits
	}
	idf := make(map[string]float64, len(tw))
	for _, t := range tw {
		idf[t.Term] = t.IDF
	}
	rd := rerank.Reader{Analyze: e.lex.Terms, Weight: func(t string) float64 { return idf[t] }}
	ps := make([]rerank.Passage, len(hits))
	for i, h := range hits {
		ps[i] = rerank.Passage{Text: h.Chunk.Text, Section: h.Chunk.Section}
	}
	out := make([]retrieve.Hit, len(hits))
	for i, j := range rd.Order(query, ps) {
		out[i] = hits[j]
	}
	return out
}
