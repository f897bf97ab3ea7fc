package engine

import (
	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/rerank"
	"github.com/carrel-app/carrel/backend/retrieve"
)

// rerank reorders retrieved hits (a pool of RerankPool) by reading the question with each
// passage (see backend/rerank), unless CARREL_RERANK=off (envconfig.Reranker). A
// vector-only search is left in its order: the reader reads words, and the user asked for
// meaning alone. If the question's term weights cannot be read, the retrieval order stands.
func (e *Engine) rerank(query string, mode retrieve.Mode, hits []retrieve.Hit) []retrieve.Hit {
	if len(hits) < 2 || e.rerankPool(mode) == 0 {
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
	if past := e.pastTerms(query); len(past) > 0 {
		// A past form the word query searched for reads as the question's own verb, so
		// "went to the woods" holds the question's pair go→woods.
		rd.Analyze = func(text string) []string {
			ts := e.lex.Terms(text)
			for i, t := range ts {
				if b, ok := past[t]; ok {
					ts[i] = b
				}
			}
			return ts
		}
	}
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

// RerankPool is how many retrieved passages the reader reads, whatever the number asked
// for (the answer is given 6, the eval scores 10), so that the answer's passages are the
// best of the same pool the eval measures. The reader cannot lift what retrieval did not
// return: on the 60 dev questions with MiniLM a pool of 10 (the eval's k), 20 and 30 gave
// lexical MRR@10 0.593, 0.626, 0.634 (hit@10 0.750, 0.769, 0.846) and hybrid 0.687,
// 0.685, 0.703, hit@5 not lower at any, all 8 unanswerable questions still empty; about
// 3 ms a query more than reading 10.
const RerankPool = 30

// rerankPool is the retrieval pool the reranker reads for mode, or 0 when it does not run.
func (e *Engine) rerankPool(mode retrieve.Mode) int {
	if mode == retrieve.Vector || envconfig.Reranker() != envconfig.RerankLexical {
		return 0
	}
	return RerankPool
}

// pastTerms maps the analysed irregular past forms a question's word query searches for
// (index.PastForms) to the analysed base verb the question asked.
func (e *Engine) pastTerms(question string) map[string]string {
	var out map[string]string
	for p, base := range index.PastForms(question) {
		pt, bt := e.lex.Terms(p), e.lex.Terms(base)
		if len(pt) == 1 && len(bt) == 1 {
			if out == nil {
				out = map[string]string{}
			}
			out[pt[0]] = bt[0]
		}
	}
	return out
}
