package glove

import (
	"math"
	"strings"

	"github.com/carrel-app/carrel/internal/gguf"
)

// The two embedders of a vocabulary, by the model name the tests and evalglove give them.
const (
	MeanModel = "glove-mean" // the mean of the known words' normalised vectors (Model)
	SIFModel  = "glove-sif"  // SIF: the weighted sum less the common component (SIF)
)

// SIFa is SIF's a, the weight a/(a + p(w)) of a word of probability p(w): 1e-3, as in
// Arora, Liang and Ma, "A Simple but Tough-to-Beat Baseline for Sentence Embeddings"
// (ICLR 2017).
const SIFa = 1e-3

// Prob estimates the unigram probability of each word of v. The package has no counts,
// only the frequency order, so it is Zipf's law over the package's words:
// p(rank r) = 1 / (r · H_Size), H the harmonic number.
func (v *Vocab) Prob() []float64 {
	h := 0.0
	for k := v.Size; k >= 1; k-- {
		h += 1 / float64(k)
	}
	p := make([]float64, len(v.Ranks))
	for i, r := range v.Ranks {
		p[i] = 1 / (float64(r) * h)
	}
	return p
}

// SIFWeights are the words' SIF weights a/(a + p(w)) with a = SIFa and p from Prob.
func (v *Vocab) SIFWeights() []float64 {
	p := v.Prob()
	w := make([]float64, len(p))
	for i := range p {
		w[i] = SIFa / (SIFa + p[i])
	}
	return w
}

// SIF is the SIF sentence embedder over v, baked into word vectors for a model that sums
// them (gguf.Options.Weighted): each word's vector is its GloVe vector times its SIF
// weight, less its projection on Common, so the sum over a text's words is SIF's weighted
// sum with the common component removed (both are linear).
type SIF struct {
	Words   []string
	Vectors [][]float32 // the baked vectors, Dims long
	Weights []float64
	// Common is the common direction (unit length): the top singular vector of the
	// vocabulary's weighted vectors, each row √p(w) · weight(w) · vector(w), so the
	// direction an average text's weighted sum leans along. The paper takes it from the
	// sentences embedded; here it comes from the vocabulary alone, so nothing of any
	// corpus or question set tunes it.
	Common []float64
}

// NewSIF computes the SIF embedder of v.
func NewSIF(v *Vocab) *SIF {
	s := &SIF{Words: v.Words, Weights: v.SIFWeights()}
	p := v.Prob()
	// Second moments M = Σ p(w) · (c(w) v(w)) (c(w) v(w))ᵀ; its top eigenvector is the top
	// right singular vector of the rows √p(w) c(w) v(w).
	var m [Dims][Dims]float64
	row := make([]float64, Dims)
	for i, vec := range v.Vectors {
		for j := range Dims {
			row[j] = s.Weights[i] * float64(vec[j])
		}
		for j := range Dims {
			pj := p[i] * row[j]
			for k := range Dims {
				m[j][k] += pj * row[k]
			}
		}
	}
	s.Common = topEigenvector(&m)
	s.Vectors = make([][]float32, len(v.Vectors))
	for i, vec := range v.Vectors {
		dot := 0.0
		for j := range Dims {
			row[j] = s.Weights[i] * float64(vec[j])
			dot += row[j] * s.Common[j]
		}
		out := make([]float32, Dims)
		for j := range Dims {
			out[j] = float32(row[j] - dot*s.Common[j])
		}
		s.Vectors[i] = out
	}
	return s
}

// topEigenvector returns the unit eigenvector of the largest eigenvalue of the symmetric
// positive semi-definite m, by power iteration from a fixed start.
func topEigenvector(m *[Dims][Dims]float64) []float64 {
	x := make([]float64, Dims)
	for i := range x {
		x[i] = 1 / math.Sqrt(Dims)
	}
	y := make([]float64, Dims)
	for range 1000 {
		for j := range Dims {
			y[j] = 0
			for k := range Dims {
				y[j] += m[j][k] * x[k]
			}
		}
		n := math.Sqrt(dot(y, y))
		change := 0.0
		for j := range Dims {
			y[j] /= n
			change = max(change, math.Abs(y[j]-x[j]))
		}
		x, y = y, x
		if change < 1e-12 {
			break
		}
	}
	return x
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Model returns gguf options for the SIF embedder: the baked vectors, summed as they are
// (Weighted) by the same WordPiece model as the mean's.
func (s *SIF) Model() gguf.Options {
	return gguf.Options{Words: s.Words, Vectors: s.Vectors, WordPiece: true, Weighted: true, Width: 104, ContextLength: 2048}
}

// Models returns the gguf options of the embedder named name (MeanModel or SIFModel)
// over v, and false for another name.
func Models(name string, v *Vocab) (gguf.Options, bool) {
	switch name {
	case MeanModel:
		return Model(v), true
	case SIFModel:
		return NewSIF(v).Model(), true
	}
	return gguf.Options{}, false
}

// Embedder embeds text as the served model of one name does, in Go: lower-cased, split at
// everything but letters, the known words' vectors (normalised for MeanModel, the baked
// SIF vectors for SIFModel) summed and the sum normalised. llama.cpp's WordPiece
// tokenizer splits a little differently (digits, non-ASCII letters), so this is the
// served embedding only for texts of plain words. Nil if no word is known.
type Embedder struct {
	index   map[string]int
	vectors [][]float32
	unit    bool
}

// NewEmbedder returns the Go embedder of the model named name over v (and s for
// SIFModel; nil computes it).
func NewEmbedder(name string, v *Vocab, s *SIF) *Embedder {
	e := &Embedder{index: make(map[string]int, len(v.Words))}
	for i, w := range v.Words {
		e.index[w] = i
	}
	if name == SIFModel {
		if s == nil {
			s = NewSIF(v)
		}
		e.vectors = s.Vectors
	} else {
		e.vectors, e.unit = v.Vectors, true
	}
	return e
}

// Embed returns the normalised embedding of text.
func (e *Embedder) Embed(text string) []float64 {
	sum := make([]float64, Dims)
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return r < 'a' || r > 'z' }) {
		i, ok := e.index[w]
		if !ok {
			continue
		}
		vec := e.vectors[i]
		scale := 1.0
		if e.unit {
			scale = 1 / math.Sqrt(sq32(vec))
		}
		for j := range Dims {
			sum[j] += scale * float64(vec[j])
		}
		n++
	}
	if n == 0 {
		return nil
	}
	l := math.Sqrt(dot(sum, sum))
	for j := range sum {
		sum[j] /= l
	}
	return sum
}

func sq32(v []float32) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}
