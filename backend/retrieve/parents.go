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
// negated chunk seq for a chunk that is its own parent. children holds the seq of the
// best child by key, from the vector list first (children are what it searches).
func (r *Retriever) toParents(ctx context.Context, lex, vec []Ranked) (lexU, vecU []Ranked, children map[int64]int64, err error) {
	var seqs []int64
	for _, l := range [][]Ranked{lex, vec} {
		for _, e := range l {
			if !e.Parent {
				seqs = append(seqs, e.Seq)
			}
		}
	}
	var ps []int64 // parents of seqs, in order: lex's children, then vec's
	if len(seqs) > 0 {
		if ps, err = r.passagesOf(ctx, seqs); err != nil {
			return nil, nil, nil, err
		}
	}
	children = make(map[int64]int64, len(seqs))
	seen := make(map[int64]bool, len(seqs))
	// collapse maps list's entries to their passages; ps holds the parents of its
	// children in list order.
	collapse := func(list []Ranked, ps []int64) []Ranked {
		clear(seen)
		out := make([]Ranked, 0, len(list))
		j := 0
		for _, e := range list {
			key := e.Seq
			if !e.Parent {
				p := ps[j]
				j++
				switch {
				case p < 0: // index ahead of the store (e.g. a document being removed)
					continue
				case p > 0:
					key = p
				default:
					key = -e.Seq
				}
				if _, ok := children[key]; !ok {
					children[key] = e.Seq
				}
			}
			if !seen[key] {
				seen[key] = true
				out = append(out, Ranked{Seq: key, Score: e.Score})
			}
		}
		return out
	}
	nLex := 0
	for _, e := range lex {
		if !e.Parent {
			nLex++
		}
	}
	// The vector list first: its children are the ones a hit is shown by.
	vecU = collapse(vec, ps[nLex:])
	lexU = collapse(lex, ps[:nLex])
	return lexU, vecU, children, nil
}

// PassageMapper is a ChunkStore that tells each child's parent without reading the
// children (library.Library keeps the map in memory). PassagesOf returns, for each
// seq, its parent's seq, 0 for a chunk that is its own parent, or -1 for an unknown seq.
type PassageMapper interface {
	PassagesOf(ctx context.Context, seqs []int64) ([]int64, error)
}

// passagesOf maps children to parents (see PassageMapper), by reading them from a
// store without the map.
func (r *Retriever) passagesOf(ctx context.Context, seqs []int64) ([]int64, error) {
	if m, ok := r.Store.(PassageMapper); ok {
		return m.PassagesOf(ctx, seqs)
	}
	chunks, err := r.Store.Chunks(ctx, seqs)
	if err != nil {
		return nil, err
	}
	_, parented := r.Store.(ParentStore)
	out := make([]int64, len(seqs))
	for i, s := range seqs {
		c, ok := chunks[s]
		switch {
		case !ok:
			out[i] = -1
		case parented:
			out[i] = c.ParentSeq
		}
	}
	return out, nil
}

// load fills in each fused hit's passage and best child, dropping hits whose passage is
// gone.
func (r *Retriever) load(ctx context.Context, hits []Hit, children map[int64]int64) ([]Hit, error) {
	var parentSeqs, own []int64
	for _, h := range hits {
		if h.Chunk.Seq > 0 {
			parentSeqs = append(parentSeqs, h.Chunk.Seq)
		} else {
			own = append(own, -h.Chunk.Seq)
		}
	}
	parents := map[int64]library.Chunk{}
	if ps, ok := r.Store.(ParentStore); ok && len(parentSeqs) > 0 {
		var err error
		if parents, err = ps.Parents(ctx, parentSeqs); err != nil {
			return nil, err
		}
	}
	var chunks map[int64]library.Chunk
	if len(own) > 0 {
		var err error
		if chunks, err = r.Store.Chunks(ctx, own); err != nil {
			return nil, err
		}
	}
	out := hits[:0]
	for _, h := range hits {
		key := h.Chunk.Seq
		var ok bool
		if key > 0 {
			h.Chunk, ok = parents[key]
			h.ChildSeq = children[key]
		} else {
			h.Chunk, ok = chunks[-key]
			h.ChildSeq = -key
		}
		if ok {
			out = append(out, h)
		}
	}
	return out, r.focus(ctx, out)
}

// NearDuplicate is the share of shared word trigrams (Jaccard) from which a passage
// counts as a near-duplicate of a better-ranked one: the same text with a different
// running header, page number or hyphenation, as in two editions of a paper. Passages
// that merely overlap (neighbours share at most a fifth) stay well below it.
const NearDuplicate = 0.8

// Dedupe drops hits whose passage has the ID (normalised text) of a better-ranked one,
// or nearly its text (NearDuplicate), keeping the order of the rest.
func Dedupe(hits []Hit) []Hit {
	var d deduper
	out := hits[:0]
	for _, h := range hits {
		if d.keep(h) {
			out = append(out, h)
		}
	}
	return out
}

// deduper remembers the passages kept so far, for Dedupe and for a search that stops
// once it has kept enough.
type deduper struct {
	ids  map[string]bool
	kept []keptHit
}

type keptHit struct {
	sk   *sketch
	text string
}

// keep reports whether h is neither a duplicate nor a near-duplicate of a passage kept
// before it, and remembers it if so.
func (d *deduper) keep(h Hit) bool {
	id := h.Chunk.ID
	if id == "" {
		id = strings.Join(strings.Fields(h.Chunk.Text), " ")
	}
	if d.ids[id] {
		return false
	}
	sk := sketches.get(h.Chunk.ID, h.Chunk.Text)
	for _, k := range d.kept {
		if sk.mayBeNear(k.sk) && jaccard(sk.shingles(h.Chunk.Text), k.sk.shingles(k.text)) >= NearDuplicate {
			return false
		}
	}
	if d.ids == nil {
		d.ids = make(map[string]bool)
	}
	d.ids[id] = true
	d.kept = append(d.kept, keptHit{sk: sk, text: h.Chunk.Text})
	return true
}

// sketchK is the size of a passage's bottom-k sketch.
const sketchK = 16

// sketch is a bottom-k sketch of a passage's trigram set: its sketchK smallest distinct
// shingle hashes. Of the k smallest hashes of two sets' union, the share found in both
// sketches estimates their Jaccard similarity (Broder 1997); it gates the exact
// comparison, which almost every pair of passages then skips.
type sketch struct {
	min  [sketchK]uint64
	n    int // filled entries (fewer than sketchK for a short text)
	size int // the text's length, to catch an ID reused for another text

	once sync.Once
	full []uint64 // all the text's shingles, once an exact comparison needed them
}

// shingles returns the full set of text (the sketch's own), computed once: a passage that
// has a near-duplicate in the library meets it again in later searches.
func (s *sketch) shingles(text string) []uint64 {
	s.once.Do(func() { s.full = shingles(text) })
	return s.full
}

// minShared is how many of the union's sketchK smallest hashes two passages must share
// for their exact Jaccard to be computed. At the NearDuplicate similarity (0.8) each of
// the 16 is shared with probability 0.8, so fewer than 4 happens about once in four
// million pairs; unrelated passages share none.
const minShared = 4

// mayBeNear reports whether two sketches leave a near-duplicate possible.
func (a *sketch) mayBeNear(b *sketch) bool {
	if a.n < sketchK || b.n < sketchK {
		return true // a short text: compare exactly
	}
	i, j, both := 0, 0, 0
	for taken := 0; taken < sketchK; taken++ {
		switch {
		case a.min[i] == b.min[j]:
			both++
			i++
			j++
		case a.min[i] < b.min[j]:
			i++
		default:
			j++
		}
		if i == sketchK || j == sketchK {
			break
		}
	}
	return both >= minShared
}

// sketchOf computes text's sketch without building or sorting its whole trigram set.
func sketchOf(text string) *sketch {
	sk := &sketch{size: len(text)}
	eachShingle(text, func(g uint64) {
		if sk.n == sketchK && g >= sk.min[sketchK-1] {
			return
		}
		i, _ := slices.BinarySearch(sk.min[:sk.n], g)
		if i < sk.n && sk.min[i] == g {
			return // a repeated trigram
		}
		if sk.n < sketchK {
			sk.n++
		}
		copy(sk.min[i+1:sk.n], sk.min[i:sk.n-1])
		sk.min[i] = g
	})
	return sk
}

// sketches caches passages' sketches by ID (a hash of the text, so an ID always has the
// same sketch): hashing a search's twenty passages was a fifth of a small library's query,
// and the same passages come back search after search.
var sketches = sketchCache{max: 8192}

type sketchCache struct {
	mu  sync.Mutex
	m   map[string]*sketch
	max int // entries (~150 bytes each, ~1.5 KB with a full set) before the cache starts over
}

// get returns the sketch of text, from the cache when id is known.
func (c *sketchCache) get(id, text string) *sketch {
	if id == "" {
		return sketchOf(text)
	}
	c.mu.Lock()
	sk, ok := c.m[id]
	c.mu.Unlock()
	if ok && sk.size == len(text) {
		return sk
	}
	sk = sketchOf(text)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = map[string]*sketch{}
	}
	c.m[id] = sk
	c.mu.Unlock()
	return sk
}

// shingles returns the sorted, distinct hashes of text's word trigrams (words lowercased,
// punctuation dropped); a text of fewer than three words gives its words.
func shingles(text string) []uint64 {
	out := make([]uint64, 0, len(text)/5+1)
	eachShingle(text, func(g uint64) { out = append(out, g) })
	slices.Sort(out)
	return slices.Compact(out)
}

// asciiWord maps an ASCII byte to itself lowercased if it is a letter or digit, else 0.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
	for c := range t {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			t[c] = byte(c)
		case 'A' <= c && c <= 'Z':
			t[c] = byte(c + 'a' - 'A')
		}
	}
	return t
}()

// eachShingle calls fn with the hash of each word trigram of text in order (see shingles).
// It hashes as it reads, without building the words, and reads ASCII bytes without
// decoding runes.
func eachShingle(text string, fn func(uint64)) {
	const offset, prime = 14695981039346656037, 1099511628211 // FNV-1a
	var w0, w1 uint64                                         // the two words before the current one
	words := 0
	emit := func(w uint64) {
		words++
		if words >= 3 {
			fn((((offset^w0)*prime^w1)*prime ^ w) * prime)
		}
		w0, w1 = w1, w
	}
	h, in := uint64(offset), false
	for i := 0; i < len(text); {
		c := text[i]
		var r rune
		if c < utf8.RuneSelf {
			r, i = rune(asciiWord[c]), i+1
		} else {
			var n int
			r, n = utf8.DecodeRuneInString(text[i:])
			i += n
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				r = unicode.ToLower(r)
			} else {
				r = 0
			}
		}
		if r != 0 {
			h = (h ^ uint64(r)) * prime
			in = true
		} else if in {
			emit(h)
			h, in = offset, false
		}
	}
	if in {
		emit(h)
	}
	if words == 1 {
		fn(((offset ^ w1) * prime))
	} else if words == 2 {
		fn(((offset ^ w0) * prime))
		fn(((offset ^ w1) * prime))
	}
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
