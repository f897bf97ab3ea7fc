package asking

import (
	"context"
	"slices"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
)

// answer retrieves passages for question within docIDs and streams the answer from m,
// with the user's memories (about) in the prompt. asked is the question as typed when
// question is its standalone rewrite ("" when the same).
func (a *Asker) answer(ctx context.Context, emb Embedding, m Model, question, asked string, docIDs, about []string, fn func(Event) error) (*chat.Answer, error) {
	passages, err := a.co.Search(ctx, question, docIDs)
	if err != nil {
		return nil, err
	}
	titles, err := a.searchedTitles(ctx, docIDs)
	if err != nil {
		return nil, err
	}
	if m.Local && m.tokens == 0 && len(passages) > 0 {
		// First answer with this model: measure its tokenizer before budgeting the prompt.
		m.tokens = chat.Probe(ctx, m.Provider, a.request(m), question, passages)
		if m.tokens > 0 {
			a.calib.Store(m.Name, m.tokens)
		}
	}
	set := a.co.Settings()
	req := chat.Request{Question: question, Asked: asked, Passages: passages, Searched: len(titles), SearchedTitles: titles, MaxTokens: set.MaxTokens,
		Model: m.Provider, ModelName: m.Name, NumCtx: m.NumCtx, NoModelReason: m.Reason, KeepAlive: set.KeepAlive, Tokens: m.tokens,
		AboutUser: about}
	if fn == nil {
		fn = func(Event) error { return nil }
	}
	ans, err := chat.Respond(ctx, req, fn)
	if err == nil && ans != nil && ans.Mode == chat.ModeModel && emb.OK {
		groundByMeaning(ctx, emb, ans)
	}
	// A count at the window's edge may be a truncated prompt's: it says nothing then.
	if ans != nil && m.Local && !ans.UsageEstimated && ans.Usage.PromptTokens > 0 &&
		ans.Usage.PromptTokens+set.MaxTokens < m.NumCtx {
		a.calib.Store(m.Name, chat.Calibrate(m.tokens, ans.PromptBytes, ans.Usage.PromptTokens))
	}
	return ans, err
}

// groundByMeaning places sentences that share no words with any passage (paraphrases)
// by embedding similarity, then recomputes the claims. A failure leaves the answer as
// lexical grounding made it.
func groundByMeaning(ctx context.Context, emb Embedding, ans *chat.Answer) {
	un := chat.Unsupported(ans.Text)
	if len(un) == 0 || len(ans.Citations) == 0 {
		return
	}
	texts := make([]string, 0, len(un)+len(ans.Citations))
	for _, s := range un {
		texts = append(texts, llm.QueryPrefix(emb.Model)+s)
	}
	for _, p := range ans.Citations {
		texts = append(texts, llm.DocPrefix(emb.Model)+p.Text)
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil || len(vecs) != len(texts) {
		return
	}
	ans.Text = chat.AttachBySimilarity(ans.Text, ans.Citations, vecs[:len(un)], vecs[len(un):], chat.SimilarityThreshold)
	ans.Claims = chat.Claims(ans.Text, ans.Citations)
}

// estimator is the token estimator calibrated for a local model so far (0: default).
func (a *Asker) estimator(model string) chat.Estimator {
	if v, ok := a.calib.Load(model); ok {
		return v.(chat.Estimator)
	}
	return 0
}

// searchedTitles names the ready documents a question searches: those in scope, or all.
func (a *Asker) searchedTitles(ctx context.Context, docIDs []string) ([]string, error) {
	docs, err := a.lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range docs {
		if d.Status == library.StatusReady && (len(docIDs) == 0 || slices.Contains(docIDs, d.ID)) {
			out = append(out, d.Title)
		}
	}
	return out, nil
}
