package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/crashpoint"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/library"
)

// answerCache is the vector index of cached questions (DIR/cache/), beside their
// entries in SQLite. An entry's vector id is its row id.
type answerCache struct {
	mu  sync.Mutex // serialises changes to vec (and its saves)
	vec *index.Vectors
}

// CacheDir is the cache's vector index folder inside the library folder.
const CacheDir = "cache"

// openCache opens the cache's vector index and drops vectors whose entry is gone (a crash
// between the SQLite delete and the index save).
func openCache(ctx context.Context, dir string, lib *library.Library, readOnly bool, notices *[]string) (*answerCache, error) {
	cdir := filepath.Join(dir, CacheDir)
	if readOnly && size(cdir) < 0 {
		// Never made, and cannot be now: an empty index of its own, never saved.
		tmp, err := os.MkdirTemp("", "carrel-cache-*")
		if err != nil {
			return nil, fmt.Errorf("open the answer cache index: %w", err)
		}
		cdir = tmp
	}
	vec, err := openVectorsKept(cdir, "answer cache index", readOnly, notices)
	if err != nil {
		return nil, fmt.Errorf("open the answer cache index: %w", err)
	}
	c := &answerCache{vec: vec}
	if vec.Len() > 0 && !readOnly {
		ids, err := lib.CacheIDs(ctx)
		if err != nil {
			vec.Close()
			return nil, err
		}
		var stale []int64
		for _, id := range vec.IDs() {
			if m, ok := ids[id]; !ok || m == "" {
				stale = append(stale, id)
			}
		}
		if len(stale) > 0 {
			if err := errors.Join(vec.Remove(stale), vec.Save()); err != nil {
				vec.Close()
				return nil, fmt.Errorf("tidy the answer cache index: %w", err)
			}
		}
	}
	return c, nil
}

func (c *answerCache) close() error {
	if c == nil {
		return nil
	}
	return c.vec.Close()
}

// Prefs keys.
const (
	prefCacheThreshold = "cache_threshold"
	prefCache          = "cache"        // "off" turns the cache off
	prefMemory         = "memory"       // "off" turns memory off
	prefMemoryModel    = "memory_model" // "on" lets the local model propose memories
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
func (e *Engine) CacheStatus(ctx context.Context) (CacheStatus, error) {
	ids, err := e.lib.CacheIDs(ctx)
	if err != nil {
		return CacheStatus{}, err
	}
	st := e.Status(ctx)
	cs := CacheStatus{Enabled: e.cacheEnabled(ctx), Entries: len(ids), Threshold: e.cacheThreshold(ctx), Match: chat.MatchMeaning,
		EmbedModel: e.Config().EmbedModel}
	if !st.embedOK {
		cs.Match = chat.MatchWords
		cs.Note = "The embedding model " + cs.EmbedModel + " is not available: a question reuses an answer only when its content words are the same."
	}
	return cs, nil
}

// SetCacheEnabled turns the answer cache on or off (kept in the library).
func (e *Engine) SetCacheEnabled(ctx context.Context, on bool) error {
	v := "on"
	if !on {
		v = "off"
	}
	return e.lib.SetPref(ctx, prefCache, v)
}

// SetCacheThreshold sets the cosine similarity a cache hit needs (see cache.MinThreshold).
func (e *Engine) SetCacheThreshold(ctx context.Context, t float64) error {
	if t < cache.MinThreshold || t > 1 {
		return fmt.Errorf("a cache threshold must be between %.2f and 1 (a wrong reuse is worse than a miss), got %.3f", cache.MinThreshold, t)
	}
	return e.lib.SetPref(ctx, prefCacheThreshold, strconv.FormatFloat(t, 'f', 3, 64))
}

// ClearCache forgets every cached answer.
func (e *Engine) ClearCache(ctx context.Context) (int, error) {
	e.cache.mu.Lock()
	defer e.cache.mu.Unlock()
	n, err := e.lib.ClearCache(ctx)
	if err != nil {
		return 0, err
	}
	return n, errors.Join(e.cache.vec.Remove(e.cache.vec.IDs()), e.cache.vec.Save())
}

func (e *Engine) cacheEnabled(ctx context.Context) bool {
	v, err := e.lib.Pref(ctx, prefCache)
	return err == nil && v != "off"
}

func (e *Engine) cacheThreshold(ctx context.Context) float64 {
	if v, err := e.lib.Pref(ctx, prefCacheThreshold); err == nil && v != "" {
		if t, err := strconv.ParseFloat(v, 64); err == nil && t >= cache.MinThreshold && t <= 1 {
			return t
		}
	}
	return cache.DefaultThreshold
}

var dateSuffix = regexp.MustCompile(`-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$`)

// modelFamily is what a cached answer must share with the model answering now: the
// provider and the model without its size or quantisation tag or date ("llama3.2:3b" →
// "ollama/llama3.2", "gpt-4.1-mini-2025-04-14" → "openai/gpt-4.1-mini").
func modelFamily(provider, model string) string {
	if provider == "" || model == "" {
		return ""
	}
	name, _, _ := strings.Cut(model, ":")
	return provider + "/" + dateSuffix.ReplaceAllString(strings.ToLower(name), "")
}

// cacheScope is what a question searched: its scope's canonical key, the ready documents
// in it, and a fingerprint of those documents (ids are hashes of the bytes; the update
// time changes when a document is ingested again) and of the memories in force (an
// answer pitched for one user context is not reused under another).
type cacheScope struct {
	key         string
	docIDs      []string
	fingerprint string
}

func (e *Engine) scopeOf(ctx context.Context, docIDs []string, about []string) (cacheScope, error) {
	ids := slices.Clone(docIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	docs, err := e.lib.Documents(ctx)
	if err != nil {
		return cacheScope{}, err
	}
	var ready []library.Document
	for _, d := range docs {
		if d.Status == library.StatusReady && (len(ids) == 0 || slices.Contains(ids, d.ID)) {
			ready = append(ready, d)
		}
	}
	slices.SortFunc(ready, func(a, b library.Document) int { return strings.Compare(a.ID, b.ID) })
	h := sha256.New()
	s := cacheScope{key: library.ScopeKey(ids)}
	for _, d := range ready {
		fmt.Fprintf(h, "%s@%d\n", d.ID, d.UpdatedAt.UnixMilli())
		s.docIDs = append(s.docIDs, d.ID)
	}
	for _, a := range about {
		fmt.Fprintf(h, "memory:%s\n", a)
	}
	s.fingerprint = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

// cacheHit is a cached entry found for a question.
type cacheHit struct {
	entry library.CacheEntry
	from  chat.CachedFrom
}

// lookupCache finds a reusable answer to the standalone question: same scope, same model
// family, documents unchanged, the same content words (cache.Agree) and, with an
// embedding model, cosine similarity at or above the threshold. Entries whose documents
// changed are deleted on the way.
func (e *Engine) lookupCache(ctx context.Context, st Status, question, family string, scope cacheScope) (*cacheHit, error) {
	q := cache.Parse(question)
	if family == "" || q.Empty() {
		return nil, nil
	}
	cands, err := e.lib.CacheCandidates(ctx, scope.key, family, q.Key())
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	var stale []int64
	var ok []library.CacheEntry
	for _, c := range cands {
		switch {
		case c.Fingerprint != scope.fingerprint:
			stale = append(stale, c.ID)
		case cache.Agree(question, c.Question):
			ok = append(ok, c)
		}
	}
	if len(stale) > 0 {
		e.dropCacheEntries(ctx, stale)
	}
	if len(ok) == 0 {
		return nil, nil
	}
	if st.embedOK {
		hit, err := e.nearestCached(ctx, question, ok)
		if err == nil {
			return hit, nil
		}
		slog.Warn("answer cache: matching by meaning failed, matching by words", "err", err)
	}
	c := ok[0]
	return &cacheHit{entry: c, from: cachedFrom(c, chat.MatchWords, 0)}, nil
}

// nearestCached scores the candidates by the cosine of their question's embedding with
// the question's, in the cache's FAISS index; nil when none reaches the threshold.
func (e *Engine) nearestCached(ctx context.Context, question string, cands []library.CacheEntry) (*cacheHit, error) {
	model := e.Config().EmbedModel
	texts := []string{queryPrefix(model) + embedForm(question)}
	var missing []library.CacheEntry
	for _, c := range cands {
		if c.EmbedModel != model {
			// Cached before this embedding model: embed its question now.
			missing = append(missing, c)
			texts = append(texts, queryPrefix(model)+embedForm(c.Question))
		}
	}
	vecs, err := e.ollama.Embed(ctx, model, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedding model returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, c := range missing {
		if err := e.addCacheVector(ctx, c.ID, model, vecs[i+1]); err != nil {
			return nil, err
		}
	}
	allow := make([]int64, len(cands))
	for i, c := range cands {
		allow[i] = c.ID
	}
	hits, err := e.cache.vec.Search(vecs[0], len(allow), allow)
	if err != nil {
		return nil, fmt.Errorf("search the answer cache: %w", err)
	}
	th := e.cacheThreshold(ctx)
	for _, h := range hits {
		if float64(h.Score) < th {
			break
		}
		for _, c := range cands {
			if c.ID == h.ID {
				return &cacheHit{entry: c, from: cachedFrom(c, chat.MatchMeaning, float64(h.Score))}, nil
			}
		}
	}
	return nil, nil
}

func cachedFrom(c library.CacheEntry, match chat.CacheMatch, sim float64) chat.CachedFrom {
	return chat.CachedFrom{SessionID: c.SessionID, SessionTitle: c.SessionTitle, MessageID: c.MessageID, Question: c.Question,
		At: c.CreatedAt, Match: match, Similarity: sim, SavedUSD: c.CostUSD}
}

// addCacheVector puts an entry's question vector into the cache index and saves it.
func (e *Engine) addCacheVector(ctx context.Context, id int64, model string, v []float32) error {
	e.cache.mu.Lock()
	defer e.cache.mu.Unlock()
	if err := e.cache.vec.Ensure(model, len(v)); errors.Is(err, index.ErrModelMismatch) {
		// A new embedding model: the old vectors cannot be compared with its own.
		if err := e.cache.vec.Reset(model, len(v)); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if err := e.cache.vec.Remove([]int64{id}); err != nil {
		return err
	}
	if err := e.cache.vec.Add([]int64{id}, [][]float32{v}); err != nil {
		return err
	}
	if err := e.cache.vec.Save(); err != nil {
		return err
	}
	crashpoint.Hit("cache.vector")
	return e.lib.SetCacheEmbedModel(ctx, id, model)
}

// dropCacheEntries deletes entries and their vectors; failures are logged (a stale entry
// never matches: its fingerprint no longer agrees).
func (e *Engine) dropCacheEntries(ctx context.Context, ids []int64) {
	e.cache.mu.Lock()
	defer e.cache.mu.Unlock()
	if err := e.lib.DeleteCacheEntries(context.WithoutCancel(ctx), ids); err != nil {
		slog.Warn("answer cache: delete entries", "err", err)
		return
	}
	if err := errors.Join(e.cache.vec.Remove(ids), e.cache.vec.Save()); err != nil {
		slog.Warn("answer cache: delete vectors", "err", err)
	}
}

// forgetCachedFor deletes every cached answer that searched a document, when it is
// removed or ingested again.
func (e *Engine) forgetCachedFor(ctx context.Context, docID string) {
	if e.cache == nil {
		return
	}
	e.cache.mu.Lock()
	defer e.cache.mu.Unlock()
	ids, err := e.lib.DeleteCacheForDocument(context.WithoutCancel(ctx), docID)
	if err != nil {
		slog.Warn("answer cache: forget a document's answers", "doc", docID, "err", err)
		return
	}
	if len(ids) > 0 {
		if err := errors.Join(e.cache.vec.Remove(ids), e.cache.vec.Save()); err != nil {
			slog.Warn("answer cache: delete vectors", "err", err)
		}
	}
}

// storeCache keeps a finished model answer for reuse, replacing older entries for the
// same question in the same scope and family.
func (e *Engine) storeCache(ctx context.Context, st Status, ans *chat.Answer, question, family string, scope cacheScope, sessionTitle string) {
	q := cache.Parse(question)
	if family == "" || q.Empty() || ans.Mode != chat.ModeModel || ans.Truncated || ans.Stopped || strings.TrimSpace(ans.Text) == "" {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if old, err := e.lib.CacheCandidates(ctx, scope.key, family, q.Key()); err == nil {
		var ids []int64
		for _, c := range old {
			if c.Fingerprint != scope.fingerprint || cache.Agree(question, c.Question) {
				ids = append(ids, c.ID)
			}
		}
		if len(ids) > 0 {
			e.dropCacheEntries(ctx, ids)
		}
	}
	cites, _ := json.Marshal(ans.Citations)
	claims, _ := json.Marshal(ans.Claims)
	entry := library.CacheEntry{Question: question, TextKey: q.Key(), Scope: scope.key, Family: family, Provider: ans.Provider,
		Model: ans.Model, Fingerprint: scope.fingerprint, Answer: ans.Text, Mode: ans.Mode, Note: ans.Note,
		Citations: string(cites), Claims: string(claims), PromptTokens: ans.Usage.PromptTokens,
		CompletionTokens: ans.Usage.CompletionTokens, CostUSD: ans.Usage.CostUSD, SessionID: ans.SessionID,
		SessionTitle: sessionTitle, MessageID: ans.MessageID, DocIDs: scope.docIDs}
	if err := e.lib.AddCacheEntry(ctx, &entry); err != nil {
		slog.Warn("answer cache: store", "err", err)
		return
	}
	crashpoint.Hit("cache.entry")
	if !st.embedOK {
		return
	}
	model := e.Config().EmbedModel
	vecs, err := e.ollama.Embed(ctx, model, []string{queryPrefix(model) + embedForm(question)})
	if err == nil && len(vecs) == 1 {
		err = e.addCacheVector(ctx, entry.ID, model, vecs[0])
	}
	if err != nil {
		// Left without a vector: the next lookup that finds it embeds it.
		slog.Warn("answer cache: embed the question", "err", err)
	}
}

// embedForm is the form of a question the cache embeds: lowercased, spaces collapsed,
// without its final punctuation, which say nothing about what is asked.
func embedForm(q string) string {
	return strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(q), " ")), "?.!… ")
}

// cachedAnswer rebuilds the answer a hit reuses.
func cachedAnswer(h *cacheHit) *chat.Answer {
	c := h.entry
	ans := &chat.Answer{Text: c.Answer, Mode: c.Mode, Note: c.Note, Model: c.Model, Provider: c.Provider,
		Citations: []chat.Passage{}, Claims: []chat.Claim{}}
	if err := errors.Join(json.Unmarshal([]byte(c.Citations), &ans.Citations), json.Unmarshal([]byte(c.Claims), &ans.Claims)); err != nil {
		// The answer stands, but the user must not take it for a sourced one.
		slog.Warn("answer cache: the saved sources of an answer are unreadable", "question", c.Question, "err", err)
		ans.Citations, ans.Claims = []chat.Passage{}, []chat.Claim{}
		ans.Note = strings.TrimSpace(ans.Note + "\n\nThe saved sources of this answer could not be read: ask again fresh to get them.")
	}
	from := h.from
	ans.Cached = &from
	return ans
}
