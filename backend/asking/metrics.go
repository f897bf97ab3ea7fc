package asking

import (
	"context"
	"log/slog"
	"time"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/library"
)

// recordMetric keeps one answer's latency, tokens and cost for the stats view. Without a
// first token (no model, nothing found) the time to the whole answer stands for it.
// A cache hit records Cached and, as SavedUSD, what the reused answer cost.
func (a *Asker) recordMetric(ctx context.Context, r *run, ans *chat.Answer) {
	end := time.Now()
	ms := func(a, b time.Time) float64 { return float64(b.Sub(a).Microseconds()) / 1000 }
	retrieved, firstToken := r.retrieved, r.firstToken
	if retrieved.IsZero() {
		retrieved = end
	}
	if firstToken.IsZero() {
		firstToken = end
	}
	saved := 0.0
	if r.hit != nil {
		saved = r.hit.Entry.CostUSD
	}
	m := library.AnswerMetric{At: r.began, Mode: ans.Mode, Provider: ans.Provider, Model: ans.Model, Status: r.msg.Status,
		RetrievalMS: ms(r.rewritten, retrieved), TTFTMS: ms(r.began, firstToken), TotalMS: ms(r.began, end),
		PromptTokens: ans.Usage.PromptTokens, CompletionTokens: ans.Usage.CompletionTokens, CostUSD: ans.Usage.CostUSD,
		Cached: r.hit != nil, SavedUSD: saved}
	if err := a.lib.AddMetric(context.WithoutCancel(ctx), m); err != nil {
		slog.Warn("recording answer metrics", "err", err)
	}
}

// Stats sums every answer's metrics, in total and per day.
func (a *Asker) Stats(ctx context.Context) (library.Stats, error) { return a.lib.Stats(ctx) }
