// Package testvec makes the vectors and ids the vector index tests search: the FAISS
// binding's and the pure-Go index's tests use the same ones.
package testvec

import (
	"math"
	"math/rand/v2"
)

// Unit returns n random unit vectors of dimension dim, row after row.
func Unit(rng *rand.Rand, n, dim int) []float32 {
	v := make([]float32, n*dim)
	for i := range n {
		row := v[i*dim : (i+1)*dim]
		var s float64
		for j := range row {
			f := rng.NormFloat64()
			row[j] = float32(f)
			s += f * f
		}
		inv := float32(1 / math.Sqrt(s))
		for j := range row {
			row[j] *= inv
		}
	}
	return v
}

// SparseIDs returns n ids that never coincide with row numbers, so a test cannot pass
// by confusing an index's internal rows with the caller's ids.
func SparseIDs(n int) []int64 {
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)*7 + 1000
	}
	return ids
}
