//go:build cgo && !windows && !nofaiss

package faiss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/carrel-app/carrel/internal/testvec"
)

// sq4Recall runs nq random queries and returns the recall@k of Search
// against brute force over (ids, vecs); it fails on any score that is not
// the exact inner product of the id it comes with.
func sq4Recall(t *testing.T, x *Index, ids []int64, vecs []float32, dim, k, nq int, seed uint64) float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	row := make(map[int64]int, len(ids))
	for i, id := range ids {
		row[id] = i
	}
	found, total := 0, 0
	for range nq {
		q := testvec.Unit(rng, 1, dim)
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

// verifies the 4-bit scan of a large flat index: recall@10 against exact
// search at least 0.99 (1.000 measured) with exact scores, and the codes
// staying in step with the float rows through removes, adds and a
// write/read round trip.
func TestSQ4Recall(t *testing.T) {
	const n, dim, k = 20_000, 384, 10
	x, ids, vecs := newFilled(t, Flat, n, dim, 11)
	if r := sq4Recall(t, x, ids, vecs, dim, k, 40, 1); r < 0.99 {
		t.Fatalf("recall@%d = %.3f, want ≥ 0.99", k, r)
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
	more := testvec.Unit(rng, 1000, dim)
	moreIDs := make([]int64, 1000)
	for i := range moreIDs {
		moreIDs[i] = int64(10_000_000 + i)
	}
	if err := x.Add(moreIDs, more); err != nil {
		t.Fatal(err)
	}
	keepIDs = append(keepIDs, moreIDs...)
	keepVecs = append(keepVecs, more...)
	if r := sq4Recall(t, x, keepIDs, keepVecs, dim, k, 40, 2); r < 0.99 {
		t.Fatalf("after remove and add: recall@%d = %.3f, want ≥ 0.99", k, r)
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
	y := rewrite(t, x)
	if r := sq4Recall(t, y, keepIDs, keepVecs, dim, k, 40, 3); r < 0.99 {
		t.Fatalf("after read: recall@%d = %.3f, want ≥ 0.99", k, r)
	}
	q := testvec.Unit(rng, 1, dim)
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
// of the float vectors (the BLAS path), for comparison with the 4-bit scan.
func BenchmarkSearchFlatExact100k(b *testing.B) {
	x, _, rng := benchIndex(b, Flat, 100_000, 384)
	qs := testvec.Unit(rng, 64, 384)
	for i := 0; b.Loop(); i++ {
		if _, _, err := x.SearchExact(qs[(i%64)*384:(i%64+1)*384], 10); err != nil {
			b.Fatal(err)
		}
	}
}

// verifies that every 4-bit kernel this CPU can run gives the same answers,
// including a dimension past the AVX-512 kernel's stack buffer for the query
// and one that is not a multiple of the register width.
func TestSQ4Kernels(t *testing.T) {
	defer useSQ4Kernel(0)
	for _, dim := range []int{100, 1100} {
		const n, k = 5000, 10
		x, ids, vecs := newFilled(t, Flat, n, dim, uint64(dim))
		rng := rand.New(rand.NewPCG(5, 5))
		qs := testvec.Unit(rng, 10, dim)
		var ref [][]int64
		ran := 0
		for _, kernel := range []int{1, 2, 3} {
			if !useSQ4Kernel(kernel) {
				t.Logf("dim %d: kernel %d not supported by this CPU", dim, kernel)
				continue
			}
			ran++
			if r := sq4Recall(t, x, ids, vecs, dim, k, 10, 9); r < 0.99 {
				t.Fatalf("dim %d kernel %d: recall@%d = %.3f, want ≥ 0.99", dim, kernel, k, r)
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

// verifies the reason for one quantiser per dimension: vectors whose few
// dimensions carry a large offset and spread (as some embedding models'
// do) are still ranked well, and the index grown past each retraining size
// (4096, 8192, 16384 rows) in small batches keeps its recall.
func TestSQ4OutsizedDims(t *testing.T) {
	const n, dim, k = 20_000, 384, 10
	rng := rand.New(rand.NewPCG(21, 21))
	skew := func(v []float32) {
		for i := 0; i < len(v); i += dim {
			row := v[i : i+dim]
			row[7] = 0.6 + row[7]*4 // offset and 4x spread
			row[100] = -0.4 + row[100]*8
			var norm float64
			for _, f := range row {
				norm += float64(f) * float64(f)
			}
			for j := range row {
				row[j] /= float32(math.Sqrt(norm))
			}
		}
	}
	x, err := NewFlatIP(dim)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	var ids []int64
	var vecs []float32
	for len(ids) < n {
		batch := testvec.Unit(rng, 1000, dim)
		skew(batch)
		bids := make([]int64, 1000)
		for i := range bids {
			bids[i] = int64(len(ids) + i)
		}
		if err := x.Add(bids, batch); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, bids...)
		vecs = append(vecs, batch...)
		if len(ids)%5000 == 0 {
			if r := sq4Recall(t, x, ids, vecs, dim, k, 20, uint64(len(ids))); r < 0.99 {
				t.Fatalf("at %d rows: recall@%d = %.3f, want ≥ 0.99", len(ids), k, r)
			}
		}
	}
}

// verifies that a scan shared with the helper threads answers exactly as
// the caller alone, also when several searches run at once (all but one
// then find the helpers busy and scan alone).
func TestSQ4Parallel(t *testing.T) {
	const n, dim, k = 30_000, 128, 60
	x, ids, vecs := newFilled(t, Flat, n, dim, 31)
	rng := rand.New(rand.NewPCG(32, 32))
	qs := testvec.Unit(rng, 40, dim)
	setSQ4ParallelRows(1 << 62)
	var serial [][]int64
	for i := range 40 {
		got, _, err := x.Search(qs[i*dim:(i+1)*dim], k)
		if err != nil {
			t.Fatal(err)
		}
		serial = append(serial, got)
	}
	setSQ4ParallelRows(4096)
	defer setSQ4ParallelRows(32768)
	if r := sq4Recall(t, x, ids, vecs, dim, 10, 20, 33); r < 0.99 {
		t.Fatalf("shared scan: recall@10 = %.3f, want ≥ 0.99", r)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4*40)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				got, _, err := x.Search(qs[i*dim:(i+1)*dim], k)
				if err != nil {
					errs <- err.Error()
					return
				}
				if !slices.Equal(got, serial[i]) {
					errs <- fmt.Sprintf("query %d: shared scan %v, alone %v", i, got, serial[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
