package retrieve

import (
	"context"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/library"
)

// toParents maps each list's entries to the passages hits are made of: a child to its
// parent, a parent to itself, and (in a library without parents) a chunk to itself. A
// list keeps the rank of a passage's best entry and that entry's score (max-pooling):
// a parent is as relevant as its best child. Passages are keyed by parent seq, or by the
// negated chunk seq for a chunk that is its own parent. children holds the best child
// by key, from the vector list first (children are what it searches).
func (r *Retriever) toParents(ctx context.Context, lex, vec []Ranked) (lexU, vecU []Ranked, children map[int64]library.Chunk, err error) {
	var seqs []int64
	for _, l := range [][]Ranked{lex, vec} {
		for _, e := range l {
			if !e.Parent {
				seqs = append(seqs, e.Seq)
			}
		}
	}
	chunks := map[int64]library.Chunk{}
	if len(seqs) > 0 {
		if chunks, err = r.Store.Chunks(ctx, seqs); err != nil {
			return nil, nil, nil, err
		}
	}
	_, parented := r.Store.(ParentStore)
	children = map[int64]library.Chunk{}
	collapse := func(list []Ranked) []Ranked {
		seen := map[int64]bool{}
		var out []Ranked
		for _, e := range list {
			key := e.Seq
			if !e.Parent {
				c, ok := chunks[e.Seq]
				if !ok { // index ahead of the store (e.g. a document being removed)
					continue
				}
				if parented && c.ParentSeq != 0 {
					key = c.ParentSeq
				} else {
					key = -c.Seq
				}
				if _, ok := children[key]; !ok {
					children[key] = c
				}
			}
			if !seen[key] {
				seen[key] = true
				out = append(out, Ranked{Seq: key, Score: e.Score})
			}
		}
		return out
	}
	vecU = collapse(vec)
	lexU = collapse(lex)
	return lexU, vecU, children, nil
}

// load fills in each fused hit's passage and best child, dropping hits whose passage is
// gone.
func (r *Retriever) load(ctx context.Context, hits []Hit, children map[int64]library.Chunk) ([]Hit, error) {
	var parentSeqs []int64
	for _, h := range hits {
		if h.Chunk.Seq > 0 {
			parentSeqs = append(parentSeqs, h.Chunk.Seq)
		}
	}
	parents := map[int64]library.Chunk{}
	if ps, ok := r.Store.(ParentStore); ok && len(parentSeqs) > 0 {
		var err error
		if parents, err = ps.Parents(ctx, parentSeqs); err != nil {
			return nil, err
		}
	}
	out := hits[:0]
	for _, h := range hits {
		key := h.Chunk.Seq
		var ok bool
		if key > 0 {
			h.Chunk, ok = parents[key]
			h.Child = children[key]
		} else {
			h.Chunk, ok = children[key]
		}
		if ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// NearDuplicate is the share of shared word trigrams (Jaccard) from which a passage
// counts as a near-duplicate of a better-ranked one: the same text with a different
// running header, page number or hyphenation, as in two editions of a paper. Passages
// that merely overlap (neighbours share at most a fifth) stay well below it.
const NearDuplicate = 0.8

// Dedupe drops hits whose passage has the ID (normalised text) of a better-ranked one,
// or nearly its text (NearDuplicate), keeping the order of the rest.
func Dedupe(hits []Hit) []Hit {
	ids := make(map[string]bool, len(hits))
	kept := make([][]uint64, 0, len(hits))
	out := hits[:0]
	for _, h := range hits {
		id := h.Chunk.ID
		if id == "" {
			id = strings.Join(strings.Fields(h.Chunk.Text), " ")
		}
		if ids[id] {
			continue
		}
		sh := signatures.get(h.Chunk.ID, h.Chunk.Text)
		dup := false
		for _, k := range kept {
			// Jaccard is at most the smaller set's share of the larger: skip the merge
			// when sizes alone rule a near-duplicate out (the common case).
			a, b := min(len(sh), len(k)), max(len(sh), len(k))
			if float64(a) < NearDuplicate*float64(b) {
				continue
			}
			if jaccard(sh, k) >= NearDuplicate {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		ids[id] = true
		kept = append(kept, sh)
		out = append(out, h)
	}
	return out
}

// signatures caches the shingle sets of passages by ID (a hash of the text, so an ID
// always has the same set): the same passages come back search after search, and
// hashing their words was a fifth of a small library's query.
var signatures = shingleCache{max: 4096}

type shingleCache struct {
	mu  sync.Mutex
	m   map[string][]uint64
	max int // entries before the cache starts over (~1.5 KB each for a 1000-character passage)
}

// get returns the shingles of text, from the cache when id is known. The returned
// slice is shared: callers only read it.
func (c *shingleCache) get(id, text string) []uint64 {
	if id == "" {
		return shingles(text)
	}
	c.mu.Lock()
	sh, ok := c.m[id]
	c.mu.Unlock()
	if ok {
		return sh
	}
	sh = shingles(text)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = map[string][]uint64{}
	}
	c.m[id] = sh
	c.mu.Unlock()
	return sh
}

// shingles returns the sorted, distinct hashes of text's word trigrams (words lowercased,
// punctuation dropped); a text of fewer than three words gives its words. It hashes as it
// reads, without building the words, and reads ASCII bytes without decoding runes.
func shingles(text string) []uint64 {
	const offset, prime = 14695981039346656037, 1099511628211 // FNV-1a
	words := make([]uint64, 0, len(text)/5+1)
	h, in := uint64(offset), false
	for i := 0; i < len(text); {
		c := text[i]
		var r rune
		var letter bool
		if c < utf8.RuneSelf {
			r, i = rune(c), i+1
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				letter = true
			case 'A' <= c && c <= 'Z':
				r += 'a' - 'A'
				letter = true
			}
		} else {
			var n int
			r, n = utf8.DecodeRuneInString(text[i:])
			i += n
			if letter = unicode.IsLetter(r) || unicode.IsDigit(r); letter {
				r = unicode.ToLower(r)
			}
		}
		if letter {
			h = (h ^ uint64(r)) * prime
			in = true
		} else if in {
			words = append(words, h)
			h, in = offset, false
		}
	}
	if in {
		words = append(words, h)
	}
	n := 3
	if len(words) < n {
		n = 1
	}
	out := make([]uint64, 0, len(words))
	for i := 0; i+n <= len(words); i++ {
		g := uint64(offset)
		for _, w := range words[i : i+n] {
			g = (g ^ w) * prime
		}
		out = append(out, g)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// jaccard is |a∩b| / |a∪b| of two sorted sets.
func jaccard(a, b []uint64) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	i, j, both := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			both++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(both) / float64(len(a)+len(b)-both)
}

// EstimateTokens estimates the tokens of text for budgeting: about four characters per
// token of English (the chat side counts precisely with the model's own tokenizer).
func EstimateTokens(text string) int { return (utf8.RuneCountInString(text) + 3) / 4 }

// TrimToBudget keeps the best hits whose texts fit in budget tokens together
// (EstimateTokens); the first hit is always kept. budget ≤ 0 keeps all.
func TrimToBudget(hits []Hit, budget int) []Hit {
	if budget <= 0 {
		return hits
	}
	used := 0
	for i, h := range hits {
		used += EstimateTokens(h.Chunk.Text)
		if used > budget && i > 0 {
			return hits[:i]
		}
	}
	return hits
}
