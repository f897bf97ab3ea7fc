package llm

import (
	"math"
	"testing"
)

// verifies Cosine on vectors whose similarity is known: the same direction at any length
// is 1, a right angle 0, the opposite -1, 45 degrees 1/√2; two models' vectors (lengths
// differ), an empty and an all-zero vector give 0.
func TestCosine(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b []float32
		want float64
	}{
		{"same direction", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"right angle", []float32{1, 0}, []float32{0, 3}, 0},
		{"opposite", []float32{1, -2}, []float32{-1, 2}, -1},
		{"45 degrees", []float32{1, 0}, []float32{1, 1}, 1 / math.Sqrt2},
		{"lengths differ", []float32{1, 0, 0}, []float32{1, 0}, 0},
		{"empty", nil, nil, 0},
		{"all zeros", []float32{0, 0}, []float32{1, 1}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := Cosine(c.a, c.b); math.Abs(got-c.want) > 1e-6 {
				t.Errorf("Cosine(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
			}
		})
	}
}
