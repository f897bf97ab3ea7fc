package faiss

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// sq8Recall runs nq random queries and returns the recall@k of Search
// against brute force over (ids, vecs); it fails on any score that is not
// the exact inner product of the id it comes with.
func sq8Recall(t *testing.T, x *Index, ids []int64, vecs []float32, dim, k, nq int, seed uint64) float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	row := make(map[int64]int, len(ids))
	for i, id := range ids {
		row[id] = i
	}
	found, total := 0, 0
	for range nq {
		q := randVecs(rng, 1, dim)
		gotIDs, gotScores, err := x.Search(q, k)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteForce(q, vecs, ids, dim, k, nil)
		if len(gotIDs) != len(want) {
			t.Fatalf("got %d results, want %d", len(gotIDs), len(want))
		}
		for i, id := range gotIDs {
			r, ok := row[id]
			if !ok {
				t.Fatalf("result %d: id %d is not in the index", i, id)
			}
			exact := bruteForce(q, vecs[r*dim:(r+1)*dim], []int64{id}, dim, 1, nil)[0].score
			if math.Abs(float64(gotScores[i]-exact)) > 1e-4 {
				t.Fatalf("result %d: id %d scored %.5f, exact %.5f", i, id, gotScores[i], exact)
			}
			if i > 0 && gotScores[i] > gotScores[i-1] {
				t.Fatalf("results out of order at %d: %v", i, gotScores)
			}
		}
		for _, w := range want {
			total++
			if slices.Contains(gotIDs, w.id) {
				found++
			}
		}
	}
	return float64(found) / float64(total)
}

// verifies the 8-bit scan of a large flat index: recall@10 against exact
// search at least 0.95 with exact scores, and the codes staying in step with
// the float rows through removes, adds and a write/read round trip.
func TestSQ8Recall(t *testing.T) {
	const n, dim, k = 20_000, 384, 10
	x, ids, vecs := newFilled(t, Flat, n, dim, 11)
	if r := sq8Recall(t, x, ids, vecs, dim, k, 40, 1); r < 0.95 {
		t.Fatalf("recall@%d = %.3f, want ≥ 0.95", k, r)
	}

	// Remove every third id (rows compact), then add new ones at the end.
	var gone []int64
	keepIDs, keepVecs := []int64{}, []float32{}
	for i, id := range ids {
		if i%3 == 0 {
			gone = append(gone, id)
		} else {
			keepIDs = append(keepIDs, id)
			keepVecs = append(keepVecs, vecs[i*dim:(i+1)*dim]...)
		}
	}
	if m, err := x.Remove(gone); err != nil || m != len(gone) {
		t.Fatalf("Remove = %d, %v; want %d", m, err, len(gone))
	}
	rng := rand.New(rand.NewPCG(12, 12))
	more := randVecs(rng, 1000, dim)
	moreIDs := make([]int64, 1000)
	for i := range moreIDs {
		moreIDs[i] = int64(10_000_000 + i)
	}
	if err := x.Add(moreIDs, more); err != nil {
		t.Fatal(err)
	}
	keepIDs = append(keepIDs, moreIDs...)
	keepVecs = append(keepVecs, more...)
	if r := sq8Recall(t, x, keepIDs, keepVecs, dim, k, 40, 2); r < 0.95 {
		t.Fatalf("after remove and add: recall@%d = %.3f, want ≥ 0.95", k, r)
	}
	// A stored vector finds itself first, with cosine 1.
	for _, i := range []int{0, len(keepIDs) / 2, len(keepIDs) - 1} {
		got, scores, err := x.Search(keepVecs[i*dim:(i+1)*dim], 1)
		if err != nil {
			t.Fatal(err)
		}
		if got[0] != keepIDs[i] || math.Abs(float64(scores[0])-1) > 1e-5 {
			t.Fatalf("self match of %d: got %d (%.5f)", keepIDs[i], got[0], scores[0])
		}
	}

	// The codes are rebuilt on load.
	path := filepath.Join(t.TempDir(), "x.faiss")
	if err := x.Write(path); err != nil {
		t.Fatal(err)
	}
	y, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	if r := sq8Recall(t, y, keepIDs, keepVecs, dim, k, 40, 3); r < 0.95 {
		t.Fatalf("after read: recall@%d = %.3f, want ≥ 0.95", k, r)
	}
	q := randVecs(rng, 1, dim)
	a, _, err := x.Search(q, k)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := y.Search(q, k)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a, b) {
		t.Fatalf("written and read indexes disagree: %v vs %v", a, b)
	}
	// SearchExact agrees with brute force exactly.
	e, es, err := y.SearchExact(q, k)
	if err != nil {
		t.Fatal(err)
	}
	checkExact(t, e, es, bruteForce(q, keepVecs, keepIDs, dim, k, nil))
}

// BenchmarkSearchFlatExact100k is BenchmarkSearchFlat100k by an exact scan
// of the float vectors (the BLAS path), for comparison with the 8-bit scan.
func BenchmarkSearchFlatExact100k(b *testing.B) {
	x, _, rng := benchIndex(b, Flat, 100_000, 384)
	qs := randVecs(rng, 64, 384)
	for i := 0; b.Loop(); i++ {
		if _, _, err := x.SearchExact(qs[(i%64)*384:(i%64+1)*384], 10); err != nil {
			b.Fatal(err)
		}
	}
}

// verifies that every 8-bit kernel this CPU can run gives the same answers,
// including a dimension past the AVX-512 kernel's precomputed registers and
// one that is not a multiple of the register width.
func TestSQ8Kernels(t *testing.T) {
	defer useSQ8Kernel(0)
	for _, dim := range []int{100, 1100} {
		const n, k = 5000, 10
		x, ids, vecs := newFilled(t, Flat, n, dim, uint64(dim))
		rng := rand.New(rand.NewPCG(5, 5))
		qs := randVecs(rng, 10, dim)
		var ref [][]int64
		ran := 0
		for _, kernel := range []int{1, 2, 3} {
			if !useSQ8Kernel(kernel) {
				t.Logf("dim %d: kernel %d not supported by this CPU", dim, kernel)
				continue
			}
			ran++
			if r := sq8Recall(t, x, ids, vecs, dim, k, 10, 9); r < 0.95 {
				t.Fatalf("dim %d kernel %d: recall@%d = %.3f, want ≥ 0.95", dim, kernel, k, r)
			}
			for i := range 10 {
				got, _, err := x.Search(qs[i*dim:(i+1)*dim], k)
				if err != nil {
					t.Fatal(err)
				}
				if kernel == 1 {
					ref = append(ref, got)
				} else if !slices.Equal(got, ref[i]) {
					t.Fatalf("dim %d kernel %d query %d: %v, scalar kernel %v", dim, kernel, i, got, ref[i])
				}
			}
		}
		if want := map[string]int{"amd64": 2}[runtime.GOARCH]; ran < max(1, want) {
			t.Fatalf("dim %d: only %d kernels ran on %s", dim, ran, runtime.GOARCH)
		}
	}
}
