package asking

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
)

// CacheStatus says how the cache matches questions now.
type CacheStatus struct {
	Enabled bool `json:"enabled"`
	Entries int  `json:"entries"`
	// Match is "meaning" with an embedding model (cosine ≥ Threshold and the same content
	// words), "words" without one (the same content words only).
	Match      chat.CacheMatch `json:"match"`
	Threshold  float64         `json:"threshold"`
	EmbedModel string          `json:"embed_model"`
	Note       string          `json:"note,omitempty"`
}

// CacheStatus reports the cache's state.
func (a *Asker) CacheStatus(ctx context.Context) (CacheStatus, error) {
	n, err := a.cache.Entries(ctx)
	if err != nil {
		return CacheStatus{}, err
	}
	emb := a.co.Embedding(ctx)
	cs := CacheStatus{Enabled: a.cache.Enabled(ctx), Entries: n, Threshold: a.cache.Threshold(ctx), Match: chat.MatchMeaning,
		EmbedModel: emb.Model}
	if !emb.OK {
		cs.Match = chat.MatchWords
		cs.Note = "The embedding model " + cs.EmbedModel + " is not available: a question reuses an answer only when its content words are the same."
	}
	return cs, nil
}

// SetCacheEnabled turns the answer cache on or off (kept in the library).
func (a *Asker) SetCacheEnabled(ctx context.Context, on bool) error {
	return a.cache.SetEnabled(ctx, on)
}

// SetCacheThreshold sets the cosine similarity a cache hit needs (see cache.MinThreshold).
func (a *Asker) SetCacheThreshold(ctx context.Context, t float64) error {
	return a.cache.SetThreshold(ctx, t)
}

// ClearCache forgets every cached answer.
func (a *Asker) ClearCache(ctx context.Context) (int, error) { return a.cache.Clear(ctx) }

// storeCache keeps a finished model answer for reuse under the standalone question.
func (a *Asker) storeCache(ctx context.Context, r *run, ans *chat.Answer) {
	if ans.Mode != chat.ModeModel || ans.Truncated || ans.Stopped || strings.TrimSpace(ans.Text) == "" {
		return
	}
	cites, _ := json.Marshal(ans.Citations)
	claims, _ := json.Marshal(ans.Claims)
	a.cache.Store(ctx, library.CacheEntry{Question: r.standalone, Scope: r.scope.Key, Family: r.family, Provider: ans.Provider,
		Model: ans.Model, Fingerprint: r.scope.Fingerprint, Answer: ans.Text, Mode: ans.Mode, Note: ans.Note,
		Citations: string(cites), Claims: string(claims), PromptTokens: ans.Usage.PromptTokens,
		CompletionTokens: ans.Usage.CompletionTokens, CostUSD: ans.Usage.CostUSD, SessionID: ans.SessionID,
		SessionTitle: r.sess.Title, MessageID: ans.MessageID, DocIDs: r.scope.DocIDs}, embedder(r.emb))
}

// cachedAnswer rebuilds the answer a hit reuses.
func cachedAnswer(h *cache.Hit) *chat.Answer {
	c := h.Entry
	ans := &chat.Answer{Text: c.Answer, Mode: c.Mode, Note: c.Note, Model: c.Model, Provider: c.Provider,
		Citations: []chat.Passage{}, Claims: []chat.Claim{}}
	if err := errors.Join(json.Unmarshal([]byte(c.Citations), &ans.Citations), json.Unmarshal([]byte(c.Claims), &ans.Claims)); err != nil {
		// The answer stands, but the user must not take it for a sourced one.
		slog.Warn("answer cache: the saved sources of an answer are unreadable", "question", c.Question, "err", err)
		ans.Citations, ans.Claims = []chat.Passage{}, []chat.Claim{}
		ans.Note = strings.TrimSpace(ans.Note + "\n\nThe saved sources of this answer could not be read: ask again fresh to get them.")
	}
	from := chat.CachedFrom{SessionID: c.SessionID, SessionTitle: c.SessionTitle, MessageID: c.MessageID, Question: c.Question,
		At: c.CreatedAt, Match: chat.MatchWords, SavedUSD: c.CostUSD}
	if h.ByMeaning {
		from.Match, from.Similarity = chat.MatchMeaning, h.Similarity
	}
	ans.Cached = &from
	return ans
}

// CalibrateCache embeds each pair's questions with the configured embedding model and
// reports how cosine similarity and the word check separate paraphrases from different
// questions, with the threshold they call for (see cache.Calibrate).
func (a *Asker) CalibrateCache(ctx context.Context, pairs []cache.Pair) (cache.Calibration, error) {
	emb := a.co.Embedding(ctx)
	if !emb.OK {
		return cache.Calibration{}, fmt.Errorf("calibrating needs the embedding model %s: %s", emb.Model, emb.Fix)
	}
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		// The form lookups embed (see cache.EmbedForm).
		texts = append(texts, cache.EmbedForm(p.A), cache.EmbedForm(p.B))
	}
	vecs, err := embedder(emb).Embed(ctx, texts)
	if err != nil {
		return cache.Calibration{}, fmt.Errorf("calibrate the cache: %w", err)
	}
	if len(vecs) != len(texts) {
		return cache.Calibration{}, fmt.Errorf("calibrate the cache: %d vectors for %d questions", len(vecs), len(texts))
	}
	cos := make([]float64, len(pairs))
	for i := range pairs {
		cos[i] = llm.Cosine(vecs[2*i], vecs[2*i+1])
	}
	return cache.Calibrate(emb.Model, pairs, cos), nil
}
