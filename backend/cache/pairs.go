package cache

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// Pair is one calibration case: two questions and whether they ask the same thing.
type Pair struct {
	A    string `json:"a"`
	B    string `json:"b"`
	Same bool   `json:"same"`
	Note string `json:"note,omitempty"`
}

// ReadPairs reads calibration pairs, one JSON object a line.
func ReadPairs(path string) ([]Pair, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read calibration pairs: %w", err)
	}
	defer f.Close()
	return DecodePairs(f)
}

// DecodePairs reads calibration pairs from r.
func DecodePairs(r io.Reader) ([]Pair, error) {
	var out []Pair
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var p Pair
		if err := json.Unmarshal([]byte(line), &p); err != nil {
			return nil, fmt.Errorf("calibration pairs line %d: %w", n, err)
		}
		if strings.TrimSpace(p.A) == "" || strings.TrimSpace(p.B) == "" {
			return nil, fmt.Errorf("calibration pairs line %d: both questions (a, b) are needed", n)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read calibration pairs: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no calibration pairs found")
	}
	return out, nil
}

// Calibration summarises how an embedding model's cosine similarities and the word check
// separate paraphrases from different questions.
type Calibration struct {
	Model string `json:"model"`
	// Same and Different are the cosine distributions of each kind of pair.
	Same      Dist `json:"same"`
	Different Dist `json:"different"`
	// Threshold is the one chosen: just above the highest different pair that the word
	// check lets through (what the embedding must catch), never below MinThreshold.
	// ThresholdAlone is what the embedding alone would need: just above every different
	// pair.
	Threshold      float64 `json:"threshold"`
	ThresholdAlone float64 `json:"threshold_alone"`
	// EmbeddingRecall is the share of paraphrases at or above Threshold; EmbeddingFalse the
	// share of different pairs at or above it (embedding alone).
	EmbeddingRecall float64 `json:"embedding_recall"`
	EmbeddingFalse  float64 `json:"embedding_false_hits"`
	// WordsRecall and WordsFalse are the same for the word check alone; HitRecall and
	// HitFalse for both together (what the cache does).
	WordsRecall float64 `json:"words_recall"`
	WordsFalse  float64 `json:"words_false_hits"`
	HitRecall   float64 `json:"hit_recall"`
	HitFalse    float64 `json:"hit_false_hits"`
}

// Dist is a cosine distribution.
type Dist struct {
	N                  int     `json:"n"`
	Min, P10, P50, Max float64 `json:"-"`
}

// MarshalJSON names the fields.
func (d Dist) MarshalJSON() ([]byte, error) {
	return json.Marshal(map[string]any{"n": d.N, "min": d.Min, "p10": d.P10, "p50": d.P50, "max": d.Max})
}

func dist(v []float64) Dist {
	if len(v) == 0 {
		return Dist{}
	}
	v = slices.Clone(v)
	slices.Sort(v)
	at := func(q float64) float64 { return v[min(len(v)-1, int(q*float64(len(v))))] }
	return Dist{N: len(v), Min: v[0], P10: at(0.1), P50: at(0.5), Max: v[len(v)-1]}
}

// MinThreshold is the lowest cosine the cache accepts whatever a calibration says.
const MinThreshold = 0.85

// DefaultThreshold is the cosine a hit needs unless configured (see docs/cache-and-memory.md).
const DefaultThreshold = 0.92

// Calibrate measures pairs whose cosines are given in the same order (cos[i] for
// pairs[i]) and picks a threshold.
func Calibrate(model string, pairs []Pair, cos []float64) Calibration {
	c := Calibration{Model: model}
	var same, diff []float64
	for i, p := range pairs {
		if p.Same {
			same = append(same, cos[i])
		} else {
			diff = append(diff, cos[i])
		}
	}
	c.Same, c.Different = dist(same), dist(diff)
	c.Threshold, c.ThresholdAlone = MinThreshold, MinThreshold
	if c.Different.N > 0 {
		c.ThresholdAlone = max(MinThreshold, min(0.999, c.Different.Max+0.01))
	}
	for i, p := range pairs {
		if !p.Same && Agree(p.A, p.B) {
			c.Threshold = max(c.Threshold, min(0.999, cos[i]+0.01))
		}
	}
	var nSame, nDiff int
	var eR, eF, wR, wF, hR, hF int
	for i, p := range pairs {
		emb := cos[i] >= c.Threshold
		words := Agree(p.A, p.B)
		if p.Same {
			nSame++
			eR, wR, hR = eR+b2i(emb), wR+b2i(words), hR+b2i(emb && words)
		} else {
			nDiff++
			eF, wF, hF = eF+b2i(emb), wF+b2i(words), hF+b2i(emb && words)
		}
	}
	frac := func(a, n int) float64 {
		if n == 0 {
			return 0
		}
		return float64(a) / float64(n)
	}
	c.EmbeddingRecall, c.EmbeddingFalse = frac(eR, nSame), frac(eF, nDiff)
	c.WordsRecall, c.WordsFalse = frac(wR, nSame), frac(wF, nDiff)
	c.HitRecall, c.HitFalse = frac(hR, nSame), frac(hF, nDiff)
	return c
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
