package gguf

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"testing"
)

// verifies the mean-pooling embedder's weights: the first block attends uniformly (zero
// queries) and passes values through (identity value, scaled identity output), every
// other block output and feed-forward output is zero, and control tokens embed as zero,
// while the default model's bytes are unchanged by the option's existence.
func TestMeanPoolWeights(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, Options{MeanPool: true, Words: []string{"goroutine", "channel"}}); err != nil {
		t.Fatal(err)
	}
	p, err := readGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	f32 := func(name string, i int) float32 {
		return math.Float32frombits(binary.LittleEndian.Uint32(p.tensorBytes[name][4*i:]))
	}
	allZero := func(name string) bool {
		for i := range len(p.tensorBytes[name]) / 4 {
			if f32(name, i) != 0 {
				return false
			}
		}
		return true
	}
	for _, name := range []string{"blk.0.attn_q.weight", "blk.0.ffn_down.weight", "blk.1.attn_output.weight", "blk.1.ffn_down.weight", "blk.1.attn_v.weight"} {
		if !allZero(name) {
			t.Errorf("%s is not zero", name)
		}
	}
	for i := range Width {
		for j := range Width {
			v, o := f32("blk.0.attn_v.weight", i*Width+j), f32("blk.0.attn_output.weight", i*Width+j)
			if (i == j) != (v == 1) || (i == j) != (o == 20) {
				t.Fatalf("blk.0 value/output at %d,%d: %v %v", i, j, v, o)
			}
		}
	}
	for i := range Width {
		if f32("token_embd.weight", BOSID*Width+i) != 0 {
			t.Fatal("<s> has a non-zero embedding")
		}
	}
	if f32("token_embd.weight", 300*Width) == 0 {
		t.Fatal("a word token embeds as zero")
	}
	// The default model is byte for byte what it was before MeanPool existed (the models
	// other tests rely on must not move).
	var def bytes.Buffer
	Write(&def, Options{})
	if sum := fmt.Sprintf("%x", sha256.Sum256(def.Bytes())); sum != "35620802f8eb6ba24c65618d3231ccb512d76bcd86822715bbf102ec4f492bb5" {
		t.Fatalf("the default model changed: sha256 %s", sum)
	}
}

// verifies the Weighted embedder's weights: every word token embeds at one length, its
// vector scaled as the others (so their lengths keep their ratios) and padded in the last
// dimension, which the value projection and the output norm drop.
func TestWeightedVectors(t *testing.T) {
	const width = 16
	vecs := [][]float32{{3, 4}, {0, 1}, {-6, 8}} // lengths 5, 1, 10
	var buf bytes.Buffer
	if err := Write(&buf, Options{Words: []string{"aa", "bb", "cc"}, Vectors: vecs, WordPiece: true, Weighted: true, Width: width}); err != nil {
		t.Fatal(err)
	}
	p, err := readGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	f32 := func(name string, i int) float64 {
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(p.tensorBytes[name][4*i:])))
	}
	scale := math.Sqrt(width) / 10
	for w, vec := range vecs {
		row := (3 + w) * width // after [UNK], [CLS], [SEP]
		var n float64
		for j := range width {
			x := f32("token_embd.weight", row+j)
			n += x * x
			switch {
			case j < len(vec) && math.Abs(x-float64(vec[j])*scale) > 1e-5:
				t.Errorf("word %d dimension %d: %v, want %v", w, j, x, float64(vec[j])*scale)
			case j >= len(vec) && j < width-1 && x != 0:
				t.Errorf("word %d dimension %d: %v, want 0", w, j, x)
			}
		}
		if math.Abs(n-width) > 1e-4 {
			t.Errorf("word %d has squared length %v, want %d", w, n, width)
		}
	}
	if f32("token_embd.weight", (3+2)*width+width-1) != 0 {
		t.Error("the longest vector is padded")
	}
	for j := range width {
		v, o := f32("blk.0.attn_v.weight", j*width+j), f32("output_norm.weight", j)
		if want := float64(min(width-1-j, 1)); v != want || o != want {
			t.Errorf("dimension %d: value weight %v, output norm %v, want %v", j, v, o, want)
		}
	}
	full := make([]float32, width)
	full[0] = 1
	if err := Write(&bytes.Buffer{}, Options{Words: []string{"aa"}, Vectors: [][]float32{full}, WordPiece: true, Weighted: true, Width: width}); err == nil {
		t.Error("a vector filling the width was accepted")
	}
}
