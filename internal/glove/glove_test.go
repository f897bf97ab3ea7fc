package glove

import (
	"bytes"
	"math"
	"testing"

	"github.com/carrel-app/carrel/internal/gguf"
)

func cos(a, b []float32) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += float64(a[i]) * float64(b[i])
		aa += float64(a[i]) * float64(a[i])
		bb += float64(b[i]) * float64(b[i])
	}
	return ab / math.Sqrt(aa*bb)
}

// verifies the vectors load in frequency order without stop words, mean something (a
// loon is nearer a bird than a treaty) and make a GGUF model.
func TestLoadAndModel(t *testing.T) {
	tgz, err := Fetch(t.Context(), CacheDir())
	if err != nil {
		t.Fatal(err)
	}
	v, err := Load(tgz, 50000)
	if err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, w := range v.Words {
		idx[w] = i
	}
	for _, w := range []string{"the", "of", "and", "is"} {
		if _, ok := idx[w]; ok {
			t.Errorf("stop word %q kept", w)
		}
	}
	for _, w := range []string{"pond", "ice", "bird", "loon", "treaty", "compression"} {
		if _, ok := idx[w]; !ok {
			t.Fatalf("%q not among the first 50000 words", w)
		}
	}
	vec := func(w string) []float32 { return v.Vectors[idx[w]] }
	if a, b := cos(vec("loon"), vec("bird")), cos(vec("loon"), vec("treaty")); a <= b+0.2 {
		t.Errorf("cos(loon, bird) %.3f not well above cos(loon, treaty) %.3f", a, b)
	}
	opts := Model(v)
	tokens, _, _ := gguf.Vocab(opts)
	t.Logf("%d words, %d model words, %d tokens", len(v.Words), len(opts.Words), len(tokens))
	var buf bytes.Buffer
	if err := gguf.Write(&buf, opts); err != nil {
		t.Fatal(err)
	}
	if buf.Len() < 50000*Dims*4 {
		t.Errorf("model of %d bytes is too small for the vectors", buf.Len())
	}
}
