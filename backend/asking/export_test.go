package asking

import (
	"context"

	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/chat"
)

// What the tests of package asking_test reach inside an Asker.

// LookupCache looks the standalone question up in the cache under family, in the scope
// of the whole library with the memories in force.
func (a *Asker) LookupCache(ctx context.Context, question, family string) (*cache.Hit, error) {
	scope, err := a.cache.ScopeOf(ctx, nil, a.memory.About(ctx))
	if err != nil {
		return nil, err
	}
	return a.cache.Lookup(ctx, question, family, scope, embedder(a.co.Embedding(ctx)))
}

// AnswerOnce answers question from the library without a session, rewrite, cache or
// memory learning: the prompt budget test times the answer alone.
func (a *Asker) AnswerOnce(ctx context.Context, question string, docIDs []string, fn func(Event) error) (*chat.Answer, error) {
	m, emb, err := a.co.ChooseModel(ctx, false)
	if err != nil {
		return nil, err
	}
	if m.Local {
		m.tokens = a.estimator(m.Name)
	}
	ans, err := a.answer(ctx, emb, m, question, "", docIDs, a.memory.About(ctx), fn)
	if ans != nil {
		ans.Usage.CostUSD = m.cost(ans.Usage)
		ans.Warning = m.Warning
	}
	return ans, err
}

// Estimator is the token estimator calibrated for a local model so far.
func (a *Asker) Estimator(model string) chat.Estimator { return a.estimator(model) }

// NumCtx is the context window the answering model is asked for.
func (a *Asker) NumCtx(ctx context.Context) int {
	m, _, _ := a.co.ChooseModel(ctx, false)
	return m.NumCtx
}

// GroundByMeaning is groundByMeaning with the embedding model in force.
func (a *Asker) GroundByMeaning(ctx context.Context, ans *chat.Answer) {
	groundByMeaning(ctx, a.co.Embedding(ctx), ans)
}
