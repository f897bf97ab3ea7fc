//go:build cgo && !windows && !nofaiss

package faiss

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"syscall"
	"testing"

	"github.com/carrel-app/carrel/internal/testvec"
)

type hit struct {
	id    int64
	score float32
}

// bruteForce is the reference: exact top-k by inner product over the rows
// whose id passes keep.
func bruteForce(q, vecs []float32, ids []int64, dim, k int, keep func(int64) bool) []hit {
	var hs []hit
	for i, id := range ids {
		if keep != nil && !keep(id) {
			continue
		}
		var s float32
		for j := range dim {
			s += q[j] * vecs[i*dim+j]
		}
		hs = append(hs, hit{id, s})
	}
	sort.Slice(hs, func(a, b int) bool { return hs[a].score > hs[b].score })
	return hs[:min(k, len(hs))]
}

func newFilled(t *testing.T, kind Kind, n, dim int, seed uint64) (*Index, []int64, []float32) {
	t.Helper()
	var (
		x   *Index
		err error
	)
	if kind == HNSW {
		x, err = NewHNSW(dim, 16)
	} else {
		x, err = NewFlatIP(dim)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(x.Close)
	ids := testvec.SparseIDs(n)
	vecs := testvec.Unit(rand.New(rand.NewPCG(seed, 1)), n, dim)
	if err := x.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	return x, ids, vecs
}

func checkExact(t *testing.T, gotIDs []int64, gotScores []float32, want []hit) {
	t.Helper()
	if len(gotIDs) != len(want) || len(gotScores) != len(want) {
		t.Fatalf("got %d/%d results, want %d", len(gotIDs), len(gotScores), len(want))
	}
	for i, w := range want {
		if gotIDs[i] != w.id || math.Abs(float64(gotScores[i]-w.score)) > 1e-4 {
			t.Fatalf("result %d: got (%d, %.5f), want (%d, %.5f)", i, gotIDs[i], gotScores[i], w.id, w.score)
		}
	}
}

// verifies that flat search is exact and maps results back to caller ids.
func TestFlatSearchExact(t *testing.T) {
	const n, dim, k = 2000, 32, 10
	x, ids, vecs := newFilled(t, Flat, n, dim, 1)
	if x.Len() != n || x.Dim() != dim || x.Kind() != Flat {
		t.Fatalf("Len/Dim/Kind = %d/%d/%v", x.Len(), x.Dim(), x.Kind())
	}
	rng := rand.New(rand.NewPCG(99, 1))
	for range 20 {
		q := testvec.Unit(rng, 1, dim)
		gotIDs, gotScores, err := x.Search(q, k)
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, gotIDs, gotScores, bruteForce(q, vecs, ids, dim, k, nil))
	}
	// A stored vector is its own best match with cosine 1.
	gotIDs, gotScores, err := x.Search(vecs[5*dim:6*dim], 1)
	if err != nil {
		t.Fatal(err)
	}
	if gotIDs[0] != ids[5] || math.Abs(float64(gotScores[0])-1) > 1e-5 {
		t.Fatalf("self match: got %d (%.5f), want %d (1)", gotIDs[0], gotScores[0], ids[5])
	}
}

// verifies that padding results (id -1) never reach the caller.
func TestSearchDropsMissing(t *testing.T) {
	for _, kind := range []Kind{Flat, HNSW} {
		t.Run(kind.String(), func(t *testing.T) {
			x, _, vecs := newFilled(t, kind, 3, 8, 2)
			ids, scores, err := x.Search(vecs[:8], 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) != 3 || len(scores) != 3 || slices.Contains(ids, -1) {
				t.Fatalf("got ids %v scores %v, want 3 real results", ids, scores)
			}
			ids, _, err = x.SearchFiltered(vecs[:8], 10, []int64{1000, 424242})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(ids, []int64{1000}) {
				t.Fatalf("filtered: got %v, want [1000]", ids)
			}
		})
	}
}

// verifies that empty indexes (including an empty HNSW graph, which has no
// entry point) search without error.
func TestSearchEmpty(t *testing.T) {
	for _, kind := range []Kind{Flat, HNSW} {
		t.Run(kind.String(), func(t *testing.T) {
			x, _, _ := newFilled(t, kind, 0, 4, 3)
			q := []float32{1, 0, 0, 0}
			for _, allow := range [][]int64{nil, {1, 2}} {
				var (
					ids []int64
					err error
				)
				if allow == nil {
					ids, _, err = x.Search(q, 5)
				} else {
					ids, _, err = x.SearchFiltered(q, 5, allow)
				}
				if err != nil || len(ids) != 0 {
					t.Fatalf("got %v, %v; want nothing", ids, err)
				}
			}
		})
	}
}

// verifies that a flat filtered search equals brute force over the subset.
func TestFlatSearchFiltered(t *testing.T) {
	const n, dim, k = 3000, 16, 8
	x, ids, vecs := newFilled(t, Flat, n, dim, 4)
	rng := rand.New(rand.NewPCG(5, 1))
	allow := []int64{-5, 99999999} // unknown ids are ignored
	set := map[int64]bool{}
	for _, i := range rng.Perm(n)[:150] {
		allow = append(allow, ids[i])
		set[ids[i]] = true
	}
	for range 10 {
		q := testvec.Unit(rng, 1, dim)
		gotIDs, gotScores, err := x.SearchFiltered(q, k, allow)
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, gotIDs, gotScores, bruteForce(q, vecs, ids, dim, k, func(id int64) bool { return set[id] }))
	}
	gotIDs, _, err := x.SearchFiltered(vecs[:dim], k, []int64{})
	if err != nil || len(gotIDs) != 0 {
		t.Fatalf("empty allow list: got %v, %v; want nothing", gotIDs, err)
	}
	gotIDs, _, err = x.SearchFiltered(vecs[:dim], k, nil)
	if err != nil || len(gotIDs) != 0 {
		t.Fatalf("nil allow list: got %v, %v; want nothing", gotIDs, err)
	}
}

// verifies HNSW recall against exact search, and both filtered strategies.
func TestHNSW(t *testing.T) {
	const n, dim, k = 5000, 32, 10
	x, ids, vecs := newFilled(t, HNSW, n, dim, 6)
	if x.Kind() != HNSW {
		t.Fatalf("Kind = %v", x.Kind())
	}
	if err := x.SetEfSearch(64); err != nil {
		t.Fatal(err)
	}
	if x.EfSearch() != 64 {
		t.Fatalf("EfSearch = %d, want 64", x.EfSearch())
	}
	rng := rand.New(rand.NewPCG(7, 1))

	// The queries come from one generator, in the same order as before the subtests.
	t.Run("recall against exact search", func(t *testing.T) {
		var found, total int
		for range 50 {
			q := testvec.Unit(rng, 1, dim)
			got, _, err := x.Search(q, k)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range bruteForce(q, vecs, ids, dim, k, nil) {
				total++
				if slices.Contains(got, w.id) {
					found++
				}
			}
		}
		if recall := float64(found) / float64(total); recall < 0.9 {
			t.Fatalf("recall@%d = %.3f, want >= 0.9", k, recall)
		} else {
			t.Logf("recall@%d = %.3f", k, recall)
		}
	})

	t.Run("a narrow filter is exact", func(t *testing.T) {
		// Narrow filter: answered by an exact scan, so it must equal brute force.
		narrow := map[int64]bool{}
		var narrowList []int64
		for _, i := range rng.Perm(n)[:40] {
			narrow[ids[i]] = true
			narrowList = append(narrowList, ids[i])
		}
		q := testvec.Unit(rng, 1, dim)
		gotIDs, gotScores, err := x.SearchFiltered(q, k, narrowList)
		if err != nil {
			t.Fatal(err)
		}
		checkExact(t, gotIDs, gotScores, bruteForce(q, vecs, ids, dim, k, func(id int64) bool { return narrow[id] }))
	})

	t.Run("a wide filter is respected, with recall", func(t *testing.T) {
		// Wide filter: graph walk with a selector; results must respect it.
		wide := map[int64]bool{}
		var wideList []int64
		for _, i := range rng.Perm(n)[:4500] {
			wide[ids[i]] = true
			wideList = append(wideList, ids[i])
		}
		var found, total int
		for range 20 {
			q := testvec.Unit(rng, 1, dim)
			got, _, err := x.SearchFiltered(q, k, wideList)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range got {
				if !wide[id] {
					t.Fatalf("filtered result %d not in allow list", id)
				}
			}
			for _, w := range bruteForce(q, vecs, ids, dim, k, func(id int64) bool { return wide[id] }) {
				total++
				if slices.Contains(got, w.id) {
					found++
				}
			}
		}
		if recall := float64(found) / float64(total); recall < 0.85 {
			t.Fatalf("wide filtered recall = %.3f, want >= 0.85", recall)
		}
	})

	t.Run("remove is refused with an error, nothing lost", func(t *testing.T) {
		// FAISS 1.7.3 cannot remove from HNSW: an error, not a crash.
		var ferr *Error
		if _, err := x.Remove(ids[:1]); !errors.As(err, &ferr) {
			t.Fatalf("Remove on HNSW: got %v, want *Error", err)
		}
		if x.Len() != n {
			t.Fatalf("Len after failed remove = %d, want %d", x.Len(), n)
		}
	})
}

// verifies removal, including absent ids, and that removed ids vanish.
func TestRemove(t *testing.T) {
	const n, dim = 100, 8
	x, ids, vecs := newFilled(t, Flat, n, dim, 8)
	removed, err := x.Remove([]int64{ids[3], ids[50], 123456789})
	if err != nil {
		t.Fatal(err)
	}
	if removed != 2 || x.Len() != n-2 {
		t.Fatalf("removed %d, Len %d; want 2, %d", removed, x.Len(), n-2)
	}
	if x.Contains(ids[3]) || !x.Contains(ids[4]) {
		t.Fatal("Contains disagrees with removal")
	}
	got, _, err := x.Search(vecs[3*dim:4*dim], n)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(got, ids[3]) || slices.Contains(got, ids[50]) || len(got) != n-2 {
		t.Fatalf("removed ids still found (%d results)", len(got))
	}
	// Rows after the removed ones shifted; reconstruct must follow them.
	v, err := x.Reconstruct(ids[99])
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(v, vecs[99*dim:]) {
		t.Fatal("reconstruct after remove returned the wrong vector")
	}
	// Removed ids can be added again.
	if err := x.Add(ids[3:4], vecs[3*dim:4*dim]); err != nil {
		t.Fatal(err)
	}
}

// verifies that bad input comes back as errors, never as a crash.
func TestAddErrors(t *testing.T) {
	x, ids, vecs := newFilled(t, Flat, 10, 4, 9)
	var ferr *Error
	cases := []struct {
		name string
		ids  []int64
		vecs []float32
		cpp  bool // rejected by the C++ side
	}{
		{"length mismatch", []int64{1}, []float32{1, 2, 3}, false},
		{"already present", ids[:1], vecs[:4], true},
		{"repeated in batch", []int64{5, 5}, make([]float32, 8), true},
		{"negative id", []int64{-2}, make([]float32, 4), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := x.Add(c.ids, c.vecs)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.As(err, &ferr) != c.cpp {
				t.Fatalf("error %q: *Error = %v, want %v", err, !c.cpp, c.cpp)
			}
		})
	}
	if x.Len() != 10 {
		t.Fatalf("Len = %d after failed adds, want 10", x.Len())
	}
	if _, _, err := x.Search([]float32{1, 2}, 3); err == nil {
		t.Fatal("query of wrong dimension accepted")
	}
	if _, err := NewFlatIP(0); err == nil {
		t.Fatal("NewFlatIP(0) accepted")
	}
	if _, err := NewHNSW(8, 1); err == nil {
		t.Fatal("NewHNSW(8, 1) accepted")
	}
	if err := x.SetEfSearch(10); !errors.As(err, &ferr) {
		t.Fatalf("SetEfSearch on flat: got %v, want *Error", err)
	}
}

// verifies Reconstruct returns stored vectors and ErrNotFound otherwise.
func TestReconstruct(t *testing.T) {
	for _, kind := range []Kind{Flat, HNSW} {
		t.Run(kind.String(), func(t *testing.T) {
			const dim = 16
			x, ids, vecs := newFilled(t, kind, 50, dim, 10)
			for _, i := range []int{0, 17, 49} {
				v, err := x.Reconstruct(ids[i])
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(v, vecs[i*dim:(i+1)*dim]) {
					t.Fatalf("vector %d differs", i)
				}
			}
			if _, err := x.Reconstruct(1); !errors.Is(err, ErrNotFound) {
				t.Fatalf("got %v, want ErrNotFound", err)
			}
		})
	}
}

// verifies that Write+Read round-trips vectors, ids, kind and efSearch.
func TestWriteRead(t *testing.T) {
	for _, kind := range []Kind{Flat, HNSW} {
		t.Run(kind.String(), func(t *testing.T) {
			const n, dim = 500, 24
			x, ids, vecs := newFilled(t, kind, n, dim, 11)
			if kind == HNSW {
				if err := x.SetEfSearch(77); err != nil {
					t.Fatal(err)
				}
			} else if _, err := x.Remove(ids[:10]); err != nil {
				t.Fatal(err)
			}
			y := rewrite(t, x)
			if y.Kind() != kind || y.Dim() != dim || y.Len() != x.Len() || y.EfSearch() != x.EfSearch() {
				t.Fatalf("read back kind %v dim %d len %d ef %d; want %v %d %d %d",
					y.Kind(), y.Dim(), y.Len(), y.EfSearch(), kind, dim, x.Len(), x.EfSearch())
			}
			if !slices.Equal(y.IDs(), x.IDs()) {
				t.Fatal("ids differ after read")
			}
			for i := 10; i < n; i += 37 {
				v, err := y.Reconstruct(ids[i])
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(v, vecs[i*dim:(i+1)*dim]) {
					t.Fatalf("vector %d differs after read", i)
				}
			}
			q := testvec.Unit(rand.New(rand.NewPCG(12, 1)), 1, dim)
			a, as, err := x.Search(q, 10)
			if err != nil {
				t.Fatal(err)
			}
			b, bs, err := y.Search(q, 10)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a, b) || !slices.Equal(as, bs) {
				t.Fatalf("search differs after read: %v vs %v", a, b)
			}
		})
	}
}

// verifies that missing, foreign and damaged files are errors, not crashes.
func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	x, _, _ := newFilled(t, Flat, 200, 16, 13)
	good := filepath.Join(dir, "good.faiss")
	if err := x.Write(good); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"empty":     {},
		"garbage":   []byte("this is not a faiss index at all, just text"),
		"truncated": data[:len(data)/2],
	}
	for name, content := range files {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(dir, name)
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
			var ferr *Error
			if y, err := Read(p); !errors.As(err, &ferr) {
				if y != nil {
					y.Close()
				}
				t.Fatalf("got %v, want *Error", err)
			}
		})
	}
	if _, err := Read(filepath.Join(dir, "missing.faiss")); err == nil {
		t.Fatal("reading a missing file succeeded")
	}
	if err := x.Write(filepath.Join(dir, "no", "such", "dir.faiss")); err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}

// verifies Close is idempotent and later calls fail cleanly.
func TestClose(t *testing.T) {
	x, ids, vecs := newFilled(t, Flat, 5, 4, 14)
	x.Close()
	x.Close()
	if x.Len() != 0 || x.Contains(ids[0]) || x.IDs() != nil {
		t.Fatal("closed index still reports contents")
	}
	if err := x.Add([]int64{1}, vecs[:4]); !errors.Is(err, ErrClosed) {
		t.Fatalf("Add: %v", err)
	}
	if _, _, err := x.Search(vecs[:4], 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Search: %v", err)
	}
	if _, err := x.Remove(ids); !errors.Is(err, ErrClosed) {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := x.Reconstruct(ids[0]); !errors.Is(err, ErrClosed) {
		t.Fatalf("Reconstruct: %v", err)
	}
	if err := x.Write(filepath.Join(t.TempDir(), "x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("Write: %v", err)
	}
}

// verifies that concurrent searches, adds and removes are safe (run with -race).
func TestConcurrent(t *testing.T) {
	const dim = 16
	x, _, _ := newFilled(t, Flat, 1000, dim, 15)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 2))
			for i := range 50 {
				q := testvec.Unit(rng, 1, dim)
				if _, _, err := x.Search(q, 5); err != nil {
					t.Error(err)
					return
				}
				if g == 0 {
					id := int64(1_000_000 + i)
					if err := x.Add([]int64{id}, q); err != nil {
						t.Error(err)
						return
					}
					if i%2 == 0 {
						if _, err := x.Remove([]int64{id}); err != nil {
							t.Error(err)
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	if x.Len() != 1025 {
		t.Fatalf("Len = %d, want 1025", x.Len())
	}
}

func benchIndex(b *testing.B, kind Kind, n, dim int) (*Index, []int64, *rand.Rand) {
	b.Helper()
	var (
		x   *Index
		err error
	)
	if kind == HNSW {
		x, err = NewHNSW(dim, 32)
	} else {
		x, err = NewFlatIP(dim)
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(x.Close)
	rng := rand.New(rand.NewPCG(42, 42))
	ids := testvec.SparseIDs(n)
	if err := x.Add(ids, testvec.Unit(rng, n, dim)); err != nil {
		b.Fatal(err)
	}
	return x, ids, rng
}

func benchSearch(b *testing.B, x *Index, rng *rand.Rand, dim int, allow []int64) {
	benchSearchK(b, x, rng, dim, 10, allow)
}

func benchSearchK(b *testing.B, x *Index, rng *rand.Rand, dim, k int, allow []int64) {
	qs := testvec.Unit(rng, 64, dim)
	// The machine is shared: CPU time per query is steadier than wall time.
	cpu0 := processCPU(b)
	for i := 0; b.Loop(); i++ {
		if i == 0 {
			cpu0 = processCPU(b) // b.Loop resets the timer before the first pass
		}
		q := qs[(i%64)*dim : (i%64+1)*dim]
		var err error
		if allow == nil {
			_, _, err = x.Search(q, k)
		} else {
			_, _, err = x.SearchFiltered(q, k, allow)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU is the process's user+system CPU time in nanoseconds.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkSearchFlat100k is one top-10 query over 100k×384 unit vectors
// (the 4-bit scan with exact re-rank; see BenchmarkSearchFlatExact100k).
func BenchmarkSearchFlat100k(b *testing.B) {
	x, _, rng := benchIndex(b, Flat, 100_000, 384)
	benchSearch(b, x, rng, 384, nil)
}

// BenchmarkSearchFlat10k, 100kTop60 and 1M are one top-60 query, what a
// hybrid search asks the vector side for (2 × max(3k, 30) children), over
// n×384 unit vectors.
func BenchmarkSearchFlat10k(b *testing.B) {
	x, _, rng := benchIndex(b, Flat, 10_000, 384)
	benchSearchK(b, x, rng, 384, 60, nil)
}

func BenchmarkSearchFlat100kTop60(b *testing.B) {
	x, _, rng := benchIndex(b, Flat, 100_000, 384)
	benchSearchK(b, x, rng, 384, 60, nil)
}

func BenchmarkSearchFlat1M(b *testing.B) {
	x, _, rng := benchIndex(b, Flat, 1_000_000, 384)
	benchSearchK(b, x, rng, 384, 60, nil)
}

// BenchmarkSearchFlat100kFiltered1k is an exact top-10 query restricted to
// 1,000 of the 100k ids (a scoped question).
func BenchmarkSearchFlat100kFiltered1k(b *testing.B) {
	x, ids, rng := benchIndex(b, Flat, 100_000, 384)
	allow := make([]int64, 0, 1000)
	for _, i := range rng.Perm(len(ids))[:1000] {
		allow = append(allow, ids[i])
	}
	benchSearch(b, x, rng, 384, allow)
}

// BenchmarkSearchHNSW100k is one top-10 HNSW query (M=32, efSearch=64) over
// 100k×384; building the graph takes far longer than the search.
func BenchmarkSearchHNSW100k(b *testing.B) {
	x, _, rng := benchIndex(b, HNSW, 100_000, 384)
	if err := x.SetEfSearch(64); err != nil {
		b.Fatal(err)
	}
	benchSearch(b, x, rng, 384, nil)
}

// rewrite writes x to a new file and reads it back; the copy is closed with the test.
func rewrite(t *testing.T, x *Index) *Index {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.faiss")
	if err := x.Write(path); err != nil {
		t.Fatal(err)
	}
	y, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { y.Close() })
	return y
}
