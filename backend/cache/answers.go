package cache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/carrel-app/carrel/backend/crashpoint"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/provider"
)

// Dir is the cache's vector index folder inside the library folder.
const Dir = "cache"

// Answers is the answer cache of one library: its entries in SQLite
// (library.CacheEntry) and the vector index of their questions (Dir), in which an
// entry's vector id is its row id.
type Answers struct {
	lib *library.Library
	mu  sync.Mutex // serialises changes to vec (and its saves)
	vec *index.Vectors
}

// Open takes over vec, the cache's vector index, and drops the vectors whose entry is
// gone (a crash between the SQLite delete and the index save). A read-only library is
// left as it is.
func Open(ctx context.Context, lib *library.Library, vec *index.Vectors, readOnly bool) (*Answers, error) {
	c := &Answers{lib: lib, vec: vec}
	if vec.Len() == 0 || readOnly {
		return c, nil
	}
	ids, err := lib.CacheIDs(ctx)
	if err != nil {
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
			return nil, fmt.Errorf("tidy the answer cache index: %w", err)
		}
	}
	return c, nil
}

// Close closes the vector index.
func (c *Answers) Close() error {
	if c == nil {
		return nil
	}
	return c.vec.Close()
}

// Prefs keys.
const (
	prefThreshold = "cache_threshold"
	prefEnabled   = "cache" // "off" turns the cache off
)

// Enabled reports whether answers are reused (on unless turned off).
func (c *Answers) Enabled(ctx context.Context) bool {
	v, err := c.lib.Pref(ctx, prefEnabled)
	return err == nil && v != "off"
}

// SetEnabled turns the answer cache on or off (kept in the library).
func (c *Answers) SetEnabled(ctx context.Context, on bool) error {
	v := "on"
	if !on {
		v = "off"
	}
	return c.lib.SetPref(ctx, prefEnabled, v)
}

// Threshold is the cosine similarity a hit by meaning needs.
func (c *Answers) Threshold(ctx context.Context) float64 {
	if v, err := c.lib.Pref(ctx, prefThreshold); err == nil && v != "" {
		if t, err := strconv.ParseFloat(v, 64); err == nil && t >= MinThreshold && t <= 1 {
			return t
		}
	}
	return DefaultThreshold
}

// SetThreshold sets the cosine similarity a hit needs (see MinThreshold).
func (c *Answers) SetThreshold(ctx context.Context, t float64) error {
	if t < MinThreshold || t > 1 {
		return fmt.Errorf("a cache threshold must be between %.2f and 1 (a wrong reuse is worse than a miss), got %.3f", MinThreshold, t)
	}
	return c.lib.SetPref(ctx, prefThreshold, strconv.FormatFloat(t, 'f', 3, 64))
}

// Entries counts the cached answers.
func (c *Answers) Entries(ctx context.Context) (int, error) {
	ids, err := c.lib.CacheIDs(ctx)
	return len(ids), err
}

// Clear forgets every cached answer.
func (c *Answers) Clear(ctx context.Context) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.lib.ClearCache(ctx)
	if err != nil {
		return 0, err
	}
	return n, errors.Join(c.vec.Remove(c.vec.IDs()), c.vec.Save())
}

var dateSuffix = regexp.MustCompile(`-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$`)

// Family is what a cached answer must share with the model answering now: the
// provider and the model without its size or quantisation tag or date ("llama3.2:3b" →
// "ollama/llama3.2", "gpt-4.1-mini-2025-04-14" → "openai/gpt-4.1-mini").
func Family(p provider.Name, model string) string {
	if p == "" || model == "" {
		return ""
	}
	name, _, _ := strings.Cut(model, ":")
	return string(p) + "/" + dateSuffix.ReplaceAllString(strings.ToLower(name), "")
}

// Scope is what a question searched: its scope's canonical key, the ready documents in
// it, and a fingerprint of those documents (ids are hashes of the bytes; the update time
// changes when a document is ingested again) and of the memories in force (an answer
// pitched for one user context is not reused under another).
type Scope struct {
	Key         string
	DocIDs      []string
	Fingerprint string
}

// ScopeOf is the scope of a question asked over docIDs (none: the whole library) with
// the memories about in the prompt.
func (c *Answers) ScopeOf(ctx context.Context, docIDs []string, about []string) (Scope, error) {
	ids := slices.Clone(docIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	docs, err := c.lib.Documents(ctx)
	if err != nil {
		return Scope{}, err
	}
	var ready []library.Document
	for _, d := range docs {
		if d.Status == library.StatusReady && (len(ids) == 0 || slices.Contains(ids, d.ID)) {
			ready = append(ready, d)
		}
	}
	slices.SortFunc(ready, func(a, b library.Document) int { return strings.Compare(a.ID, b.ID) })
	h := sha256.New()
	s := Scope{Key: library.ScopeKey(ids)}
	for _, d := range ready {
		fmt.Fprintf(h, "%s@%d\n", d.ID, d.UpdatedAt.UnixMilli())
		s.DocIDs = append(s.DocIDs, d.ID)
	}
	for _, a := range about {
		fmt.Fprintf(h, "memory:%s\n", a)
	}
	s.Fingerprint = hex.EncodeToString(h.Sum(nil))
	return s, nil
}

// Embedder embeds questions for matching by meaning.
type Embedder struct {
	// Model names the embedding model (vectors of another model are not compared).
	Model string
	// Embed embeds texts as search queries (the model's query prefix added).
	Embed func(ctx context.Context, texts []string) ([][]float32, error)
}

// Hit is a cached entry found for a question: by meaning (Similarity is the cosine) or,
// without an embedding model, by words.
type Hit struct {
	Entry      library.CacheEntry
	ByMeaning  bool
	Similarity float64
}

// Lookup finds a reusable answer to the standalone question: same scope, same model
// family, documents unchanged, the same content words (Agree) and, with an embedder
// (nil: none available), cosine similarity at or above the threshold. Entries whose
// documents changed are deleted on the way.
func (c *Answers) Lookup(ctx context.Context, question, family string, scope Scope, emb *Embedder) (*Hit, error) {
	q := Parse(question)
	if family == "" || q.Empty() {
		return nil, nil
	}
	cands, err := c.lib.CacheCandidates(ctx, scope.Key, family, q.Key())
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	var stale []int64
	var ok []library.CacheEntry
	for _, e := range cands {
		switch {
		case e.Fingerprint != scope.Fingerprint:
			stale = append(stale, e.ID)
		case Agree(question, e.Question):
			ok = append(ok, e)
		}
	}
	if len(stale) > 0 {
		c.Drop(ctx, stale)
	}
	if len(ok) == 0 {
		return nil, nil
	}
	if emb != nil {
		hit, err := c.nearest(ctx, question, ok, emb)
		if err == nil {
			return hit, nil
		}
		slog.Warn("answer cache: matching by meaning failed, matching by words", "err", err)
	}
	return &Hit{Entry: ok[0]}, nil
}

// nearest scores the candidates by the cosine of their question's embedding with the
// question's, in the cache's FAISS index; nil when none reaches the threshold.
func (c *Answers) nearest(ctx context.Context, question string, cands []library.CacheEntry, emb *Embedder) (*Hit, error) {
	texts := []string{EmbedForm(question)}
	var missing []library.CacheEntry
	for _, e := range cands {
		if e.EmbedModel != emb.Model {
			// Cached before this embedding model: embed its question now.
			missing = append(missing, e)
			texts = append(texts, EmbedForm(e.Question))
		}
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embedding model returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, e := range missing {
		if err := c.addVector(ctx, e.ID, emb.Model, vecs[i+1]); err != nil {
			return nil, err
		}
	}
	allow := make([]int64, len(cands))
	for i, e := range cands {
		allow[i] = e.ID
	}
	hits, err := c.vec.Search(vecs[0], len(allow), allow)
	if err != nil {
		return nil, fmt.Errorf("search the answer cache: %w", err)
	}
	th := c.Threshold(ctx)
	for _, h := range hits {
		if float64(h.Score) < th {
			break
		}
		for _, e := range cands {
			if e.ID == h.ID {
				return &Hit{Entry: e, ByMeaning: true, Similarity: float64(h.Score)}, nil
			}
		}
	}
	return nil, nil
}

// addVector puts an entry's question vector into the cache index and saves it.
func (c *Answers) addVector(ctx context.Context, id int64, model string, v []float32) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.vec.Ensure(model, len(v)); errors.Is(err, index.ErrModelMismatch) {
		// A new embedding model: the old vectors cannot be compared with its own.
		if err := c.vec.Reset(model, len(v)); err != nil {
			return err
		}
	} else if err != nil {
		return err
	}
	if err := c.vec.Remove([]int64{id}); err != nil {
		return err
	}
	if err := c.vec.Add([]int64{id}, [][]float32{v}); err != nil {
		return err
	}
	if err := c.vec.Save(); err != nil {
		return err
	}
	crashpoint.Hit("cache.vector")
	return c.lib.SetCacheEmbedModel(ctx, id, model)
}

// Drop deletes entries and their vectors; failures are logged (a stale entry never
// matches: its fingerprint no longer agrees).
func (c *Answers) Drop(ctx context.Context, ids []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.lib.DeleteCacheEntries(context.WithoutCancel(ctx), ids); err != nil {
		slog.Warn("answer cache: delete entries", "err", err)
		return
	}
	if err := errors.Join(c.vec.Remove(ids), c.vec.Save()); err != nil {
		slog.Warn("answer cache: delete vectors", "err", err)
	}
}

// Forget deletes every cached answer that searched a document, when it is removed or
// ingested again.
func (c *Answers) Forget(ctx context.Context, docID string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	ids, err := c.lib.DeleteCacheForDocument(context.WithoutCancel(ctx), docID)
	if err != nil {
		slog.Warn("answer cache: forget a document's answers", "doc", docID, "err", err)
		return
	}
	if len(ids) > 0 {
		if err := errors.Join(c.vec.Remove(ids), c.vec.Save()); err != nil {
			slog.Warn("answer cache: delete vectors", "err", err)
		}
	}
}

// Store keeps a finished answer for reuse (entry as the caller filled it in, its
// question the standalone question), replacing older entries for the same question in
// the same scope and family, and embeds its question when emb is not nil. Failures are
// logged: a question not cached is asked of the model again.
func (c *Answers) Store(ctx context.Context, entry library.CacheEntry, emb *Embedder) {
	q := Parse(entry.Question)
	if entry.Family == "" || q.Empty() {
		return
	}
	ctx = context.WithoutCancel(ctx)
	entry.TextKey = q.Key()
	if old, err := c.lib.CacheCandidates(ctx, entry.Scope, entry.Family, entry.TextKey); err == nil {
		var ids []int64
		for _, e := range old {
			if e.Fingerprint != entry.Fingerprint || Agree(entry.Question, e.Question) {
				ids = append(ids, e.ID)
			}
		}
		if len(ids) > 0 {
			c.Drop(ctx, ids)
		}
	}
	if err := c.lib.AddCacheEntry(ctx, &entry); err != nil {
		slog.Warn("answer cache: store", "err", err)
		return
	}
	crashpoint.Hit("cache.entry")
	if emb == nil {
		return
	}
	vecs, err := emb.Embed(ctx, []string{EmbedForm(entry.Question)})
	if err == nil && len(vecs) == 1 {
		err = c.addVector(ctx, entry.ID, emb.Model, vecs[0])
	}
	if err != nil {
		// Left without a vector: the next lookup that finds it embeds it.
		slog.Warn("answer cache: embed the question", "err", err)
	}
}

// EmbedForm is the form of a question the cache embeds: lowercased, spaces collapsed,
// without its final punctuation, which say nothing about what is asked.
func EmbedForm(q string) string {
	return strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(q), " ")), "?.!… ")
}
