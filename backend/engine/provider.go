package engine

import (
	"context"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/llm"
)

// answerModel picks the model that answers now: the configured provider when it can
// answer, else none (the passages answer, with the reason).
func (e *Engine) answerModel(ctx context.Context, st Status, overrideBudget bool) (answerModel, error) {
	cfg := e.Config()
	if !st.chatOK {
		return answerModel{reason: st.Reason + " " + st.Fix}, nil
	}
	return answerModel{provider: e.ollama, name: cfg.ChatModel, numCtx: e.contextLength(ctx, cfg.ChatModel)}, nil
}

// cost prices an answer (and the follow-up rewrite before it) with m's price; local
// models cost nothing.
func (e *Engine) cost(m answerModel, u chat.Usage, rewrite *llm.Usage) float64 {
	if m.price == nil {
		return 0
	}
	return m.price.Cost(llm.Usage{PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, CachedTokens: u.CachedTokens})
}
