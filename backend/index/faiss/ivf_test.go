//go:build cgo && !windows && !nofaiss

package faiss

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/carrel-app/carrel/internal/testvec"
)

// newIVF builds an IVF index over n random unit vectors, trained on all of
// them, with nlist = 4·sqrt(n).
func newIVF(t testing.TB, n, dim, nprobe int, seed uint64) (*Index, []int64, []float32) {
	t.Helper()
	ids := testvec.SparseIDs(n)
	vecs := testvec.Unit(rand.New(rand.NewPCG(seed, 1)), n, dim)
	nlist := int(4 * math.Sqrt(float64(n)))
	x, err := NewIVF(dim, nlist, vecs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	if err := x.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	if err := x.SetNProbe(nprobe); err != nil {
		t.Fatal(err)
	}
	return x, ids, vecs
}

// recallAt measures mean recall@k of x against an exact flat index over the
// same vectors, on nq random queries.
func recallAt(t testing.TB, x *Index, ids []int64, vecs []float32, dim, k, nq int) float64 {
	t.Helper()
	exact, err := NewFlatIP(dim)
	if err != nil {
		t.Fatal(err)
	}
	defer exact.Close()
	if err := exact.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(777, 3))
	found := 0
	for range nq {
		q := testvec.Unit(rng, 1, dim)
		want, _, err := exact.Search(q, k)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := x.Search(q, k)
		if err != nil {
			t.Fatal(err)
		}
		for _, id := range got {
			if slices.Contains(want, id) {
				found++
			}
		}
	}
	return float64(found) / float64(nq*k)
}

// verifies that IVF probing 3/4 of its lists finds at least 95% of the exact
// top 10 on random unit vectors. Random vectors have no cluster structure,
// the worst case for IVF: it takes this many probes (1/4 gives 0.83 here),
// which is slower than a flat scan; see TestIVFSweep and Vectors.SetIVF.
func TestIVFRecall(t *testing.T) {
	const n, dim, k = 20000, 64, 10
	nlist := int(4 * math.Sqrt(n))
	x, ids, vecs := newIVF(t, n, dim, nlist*3/4, 11)
	if x.Kind() != IVF || x.NList() != nlist || x.NProbe() != nlist*3/4 || x.Len() != n {
		t.Fatalf("Kind/NList/NProbe/Len = %v/%d/%d/%d", x.Kind(), x.NList(), x.NProbe(), x.Len())
	}
	r := recallAt(t, x, ids, vecs, dim, k, 200)
	t.Logf("recall@%d = %.3f (nlist %d, nprobe %d)", k, r, nlist, nlist*3/4)
	if r < 0.95 {
		t.Fatalf("recall@%d = %.3f, want >= 0.95", k, r)
	}
}

// TestIVFSweep prints recall and latency per nprobe at CARREL_IVF_SWEEP
// vectors of dim 384 (a measurement, skipped by default).
func TestIVFSweep(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CARREL_IVF_SWEEP"))
	if n == 0 {
		t.Skip("set CARREL_IVF_SWEEP=N to measure")
	}
	const dim, k = 384, 10
	start := time.Now()
	x, ids, vecs := newIVF(t, n, dim, 1, 5)
	t.Logf("n=%d nlist=%d built in %v", n, x.NList(), time.Since(start))
	flat, err := NewFlatIP(dim)
	if err != nil {
		t.Fatal(err)
	}
	defer flat.Close()
	flat.Add(ids, vecs)
	qs := testvec.Unit(rand.New(rand.NewPCG(1, 1)), 200, dim)
	timeIt := func(ix *Index) time.Duration {
		start := time.Now()
		for i := range 200 {
			ix.Search(qs[i*dim:(i+1)*dim], k)
		}
		return time.Since(start) / 200
	}
	t.Logf("flat: %v/query", timeIt(flat))
	for _, div := range []int{32, 16, 8, 6, 4, 3, 2} {
		np := x.NList() / div
		x.SetNProbe(np)
		t.Logf("nprobe=%d (1/%d): recall@10=%.3f %v/query", np, div, recallAt(t, x, ids, vecs, dim, k, 200), timeIt(x))
	}
}

// verifies remove, reconstruct, contains, ids and filtered search on IVF,
// filtered results against brute force (exact for a narrow filter).
func TestIVFRemoveFilterReconstruct(t *testing.T) {
	const n, dim, k = 5000, 16, 8
	x, ids, vecs := newIVF(t, n, dim, 8, 12)
	v, err := x.Reconstruct(ids[7])
	if err != nil || !slices.Equal(v, vecs[7*dim:8*dim]) {
		t.Fatalf("reconstruct: %v %v", v, err)
	}
	if err := x.Add([]int64{ids[3]}, vecs[:dim]); err == nil {
		t.Fatal("adding a present id succeeded")
	}
	removed, err := x.Remove([]int64{ids[0], ids[1], ids[1], 424242})
	if err != nil || removed != 2 {
		t.Fatalf("remove: %d, %v; want 2", removed, err)
	}
	if x.Len() != n-2 || x.Contains(ids[0]) || !x.Contains(ids[2]) {
		t.Fatalf("after remove: Len %d contains %v/%v", x.Len(), x.Contains(ids[0]), x.Contains(ids[2]))
	}
	if _, err := x.Reconstruct(ids[1]); err == nil {
		t.Fatal("reconstruct of a removed id succeeded")
	}
	all := x.IDs()
	if len(all) != n-2 || slices.Contains(all, ids[0]) {
		t.Fatalf("IDs: %d ids", len(all))
	}
	// Every other vector is still found by itself, after the swaps remove did.
	for _, i := range []int{2, 500, n - 1} {
		got, err := x.Reconstruct(ids[i])
		if err != nil || !slices.Equal(got, vecs[i*dim:(i+1)*dim]) {
			t.Fatalf("reconstruct %d after remove: %v", i, err)
		}
	}
	rng := rand.New(rand.NewPCG(5, 1))
	allow := []int64{ids[0], -3} // removed and unknown ids are ignored
	set := map[int64]bool{}
	for _, i := range rng.Perm(n)[:300] {
		if i > 1 {
			allow = append(allow, ids[i])
			set[ids[i]] = true
		}
	}
	for range 10 {
		q := testvec.Unit(rng, 1, dim)
		gotIDs, gotScores, err := x.SearchFiltered(q, k, allow)
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, gotIDs, gotScores, bruteForce(q, vecs, ids, dim, k, func(id int64) bool { return set[id] }))
	}
	// A wide filter (most of the index) goes through the lists; results
	// must all be allowed.
	wide := slices.Clone(all[:len(all)*3/4])
	wset := map[int64]bool{}
	for _, id := range wide {
		wset[id] = true
	}
	got, _, err := x.SearchFiltered(testvec.Unit(rng, 1, dim), k, wide)
	if err != nil || len(got) != k {
		t.Fatalf("wide filter: %v, %v", got, err)
	}
	for _, id := range got {
		if !wset[id] {
			t.Fatalf("wide filter returned %d, not allowed", id)
		}
	}
	exp, ev, err := x.Export()
	if err != nil || len(exp) != n-2 || len(ev) != (n-2)*dim {
		t.Fatalf("export: %d ids, %d floats, %v", len(exp), len(ev), err)
	}
	i := slices.Index(exp, ids[9])
	if !slices.Equal(ev[i*dim:(i+1)*dim], vecs[9*dim:10*dim]) {
		t.Fatal("export: vector of an id differs")
	}
}

// verifies that an IVF index survives Write/Read with its ids, nprobe and
// results, and still supports remove after loading.
func TestIVFPersist(t *testing.T) {
	const n, dim = 3000, 16
	x, ids, vecs := newIVF(t, n, dim, 9, 13)
	y := rewrite(t, x)
	if y.Kind() != IVF || y.Len() != n || y.NProbe() != 9 || y.NList() != x.NList() {
		t.Fatalf("read: Kind/Len/NProbe/NList = %v/%d/%d/%d", y.Kind(), y.Len(), y.NProbe(), y.NList())
	}
	q := vecs[4*dim : 5*dim]
	a, as, _ := x.Search(q, 10)
	b, bs, _ := y.Search(q, 10)
	if !slices.Equal(a, b) || !slices.Equal(as, bs) || a[0] != ids[4] {
		t.Fatalf("search after read: %v vs %v", a, b)
	}
	if n, err := y.Remove([]int64{ids[4]}); err != nil || n != 1 {
		t.Fatalf("remove after read: %d, %v", n, err)
	}
	if y.Contains(ids[4]) || y.Len() != 2999 {
		t.Fatal("remove after read did not remove")
	}
}

// verifies NewIVF's argument checks and that nprobe is refused on flat.
func TestIVFErrors(t *testing.T) {
	if _, err := NewIVF(4, 10, make([]float32, 4*5)); err == nil {
		t.Fatal("training with fewer vectors than lists succeeded")
	}
	x, err := NewFlatIP(4)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if err := x.SetNProbe(3); err == nil || x.NProbe() != 0 || x.NList() != 0 {
		t.Fatal("nprobe on a flat index")
	}
}
