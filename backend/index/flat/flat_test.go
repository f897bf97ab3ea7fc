package flat

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/carrel-app/carrel/internal/testvec"
)

type hit struct {
	id    int64
	score float64
}

// reference is exact top-k by inner product summed in float64, over the
// rows whose id passes keep.
func reference(q, vecs []float32, ids []int64, dim, k int, keep func(int64) bool) []hit {
	var hs []hit
	for i, id := range ids {
		if keep != nil && !keep(id) {
			continue
		}
		var s float64
		for j := range dim {
			s += float64(q[j]) * float64(vecs[i*dim+j])
		}
		hs = append(hs, hit{id, s})
	}
	sort.SliceStable(hs, func(a, b int) bool { return hs[a].score > hs[b].score })
	return hs[:min(k, len(hs))]
}

// check compares a search result with the reference: the scores to
// float32 rounding, and the ids exactly, except that hits whose exact scores
// are within rounding of each other may trade places (exactScores holds the exact
// score of every id).
func check(t *testing.T, ids []int64, scores []float32, want []hit, exactScores map[int64]float64) {
	t.Helper()
	if len(ids) != len(want) || len(scores) != len(want) {
		t.Fatalf("got %d ids, %d scores, want %d", len(ids), len(scores), len(want))
	}
	seen := map[int64]bool{}
	for i, w := range want {
		if seen[ids[i]] {
			t.Fatalf("hit %d: id %d returned twice", i, ids[i])
		}
		seen[ids[i]] = true
		ts, ok := exactScores[ids[i]]
		if math.Abs(float64(scores[i])-w.score) > 1e-5 || !ok || math.Abs(ts-w.score) > 1e-6 {
			t.Fatalf("hit %d: got %d (%.7f), want %d (%.7f)", i, ids[i], scores[i], w.id, w.score)
		}
	}
}

// exact maps every id to its exact score.
func exact(q, vecs []float32, ids []int64, dim int) map[int64]float64 {
	m := map[int64]float64{}
	for _, h := range reference(q, vecs, ids, dim, len(ids), nil) {
		m[h.id] = h.score
	}
	return m
}

func filled(t testing.TB, n, dim int, seed uint64) (*Index, []int64, []float32) {
	t.Helper()
	x, err := New(dim)
	if err != nil {
		t.Fatal(err)
	}
	ids, vecs := testvec.SparseIDs(n), testvec.Unit(rand.New(rand.NewPCG(seed, 1)), n, dim)
	if err := x.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	return x, ids, vecs
}

// The search is exact: small and large (parallel) indexes, every k up to
// more than the index holds.
func TestSearchExact(t *testing.T) {
	for _, n := range []int{1, 37, 5000, parallelRows + 1234} {
		const dim = 48
		x, ids, vecs := filled(t, n, dim, uint64(n))
		rng := rand.New(rand.NewPCG(9, 9))
		for _, k := range []int{1, 10, 100, n + 5} {
			q := testvec.Unit(rng, 1, dim)
			got, scores, err := x.Search(q, k)
			if err != nil {
				t.Fatal(err)
			}
			check(t, got, scores, reference(q, vecs, ids, dim, k, nil), exact(q, vecs, ids, dim))
		}
	}
}

// Equal scores rank by storage order, whichever goroutine scanned them.
func TestTiesKeepStorageOrder(t *testing.T) {
	const dim, n = 4, parallelRows * 2
	x, _ := New(dim)
	ids := make([]int64, n)
	vecs := make([]float32, n*dim)
	for i := range n {
		ids[i] = int64(n - i) // ids descend, so id order cannot pass for row order
		vecs[i*dim] = 1
	}
	if err := x.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	got, _, err := x.Search([]float32{1, 0, 0, 0}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if want := ids[:5]; !slices.Equal(got, want) {
		t.Fatalf("ties: got %v, want the first rows %v", got, want)
	}
}

func TestSearchFiltered(t *testing.T) {
	const n, dim = 3000, 32
	x, ids, vecs := filled(t, n, dim, 3)
	allow := []int64{ids[5], ids[700], ids[700], ids[2999], 999_999_999, ids[1234]}
	keep := map[int64]bool{}
	for _, id := range allow {
		keep[id] = true
	}
	q := testvec.Unit(rand.New(rand.NewPCG(4, 4)), 1, dim)
	got, scores, err := x.SearchFiltered(q, 10, allow)
	if err != nil {
		t.Fatal(err)
	}
	check(t, got, scores, reference(q, vecs, ids, dim, 10, func(id int64) bool { return keep[id] }), exact(q, vecs, ids, dim))
	if got, _, _ := x.SearchFiltered(q, 10, []int64{}); len(got) != 0 {
		t.Fatalf("empty allow list matched %v", got)
	}
}

// Remove keeps the remaining rows in order (as FAISS does), and the index
// stays searchable and consistent.
func TestRemove(t *testing.T) {
	const n, dim = 1000, 16
	x, ids, vecs := filled(t, n, dim, 5)
	var drop []int64
	for i := 0; i < n; i += 3 {
		drop = append(drop, ids[i])
	}
	removed, err := x.Remove(append(drop, -7, 123456789))
	if err != nil || removed != len(drop) {
		t.Fatalf("removed %d, %v; want %d", removed, err, len(drop))
	}
	var keptIDs []int64
	var keptVecs []float32
	for i, id := range ids {
		if i%3 != 0 {
			keptIDs = append(keptIDs, id)
			keptVecs = append(keptVecs, vecs[i*dim:(i+1)*dim]...)
		}
	}
	if !slices.Equal(x.IDs(), keptIDs) {
		t.Fatal("ids after remove are not the remaining ids in order")
	}
	if x.Contains(drop[0]) || !x.Contains(keptIDs[0]) {
		t.Fatal("Contains disagrees with Remove")
	}
	v, err := x.Reconstruct(keptIDs[len(keptIDs)-1])
	if err != nil || !slices.Equal(v, keptVecs[len(keptVecs)-dim:]) {
		t.Fatalf("reconstruct after remove: %v", err)
	}
	if _, err := x.Reconstruct(drop[1]); !errors.Is(err, ErrNotFound) {
		t.Fatalf("reconstruct removed id: %v, want ErrNotFound", err)
	}
	q := testvec.Unit(rand.New(rand.NewPCG(6, 6)), 1, dim)
	got, scores, _ := x.Search(q, 20)
	check(t, got, scores, reference(q, keptVecs, keptIDs, dim, 20, nil), exact(q, keptVecs, keptIDs, dim))
	// Re-adding a removed id is allowed.
	if err := x.Add(drop[:1], vecs[:dim]); err != nil {
		t.Fatal(err)
	}
}

func TestAddErrors(t *testing.T) {
	x, ids, _ := filled(t, 10, 4, 7)
	for name, c := range map[string]struct {
		ids  []int64
		vecs []float32
	}{
		"present":   {ids[:1], make([]float32, 4)},
		"repeated":  {[]int64{1, 1}, make([]float32, 8)},
		"negative":  {[]int64{-1}, make([]float32, 4)},
		"floats":    {[]int64{1}, make([]float32, 3)},
		"partially": {[]int64{2, ids[3]}, make([]float32, 8)},
	} {
		if err := x.Add(c.ids, c.vecs); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if x.Len() != 10 || x.Contains(2) {
		t.Fatalf("a failed add changed the index: len %d", x.Len())
	}
	if _, err := New(0); err == nil {
		t.Fatal("New(0): no error")
	}
	if _, _, err := x.Search(make([]float32, 3), 1); err == nil {
		t.Fatal("search with a wrong dimension: no error")
	}
}

func TestWriteRead(t *testing.T) {
	const n, dim = 2500, 24
	x, ids, vecs := filled(t, n, dim, 8)
	x.Remove(ids[:100])
	path := filepath.Join(t.TempDir(), "v.faiss")
	if err := x.Write(path); err != nil {
		t.Fatal(err)
	}
	y, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if y.Dim() != dim || !slices.Equal(y.IDs(), ids[100:]) {
		t.Fatalf("read back dim %d, %d ids", y.Dim(), y.Len())
	}
	_, got, _ := y.Export()
	if !slices.Equal(got, vecs[100*dim:]) {
		t.Fatal("vectors differ after a write and read")
	}
	// An empty index round-trips too.
	e, _ := New(dim)
	if err := e.Write(path); err != nil {
		t.Fatal(err)
	}
	if e2, err := Read(path); err != nil || e2.Len() != 0 || e2.Dim() != dim {
		t.Fatalf("empty index: %v", err)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	x, _, _ := filled(t, 50, 8, 10)
	good := filepath.Join(dir, "good")
	if err := x.Write(good); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	ivf := slices.Clone(data)
	copy(ivf, "IwFl")
	cases := map[string][]byte{
		"truncated": data[:len(data)-9],
		"header":    data[:20],
		"empty":     nil,
		"ivf":       ivf,
		"garbage":   []byte("not a faiss index at all, clearly"),
	}
	for name, b := range cases {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		_, err := Read(p)
		if err == nil {
			t.Errorf("%s: read without error", name)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
	if _, err := Read(filepath.Join(dir, "ivf")); err == nil || !strings.Contains(err.Error(), "IndexIVFFlat") {
		t.Errorf("IVF file: error %v does not name the index type", err)
	}
	if _, err := Read(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
}

func TestClose(t *testing.T) {
	x, ids, _ := filled(t, 10, 4, 11)
	x.Close()
	x.Close()
	if _, _, err := x.Search(make([]float32, 4), 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("search after close: %v", err)
	}
	if err := x.Add([]int64{1}, make([]float32, 4)); !errors.Is(err, ErrClosed) {
		t.Fatalf("add after close: %v", err)
	}
	if x.Len() != 0 || x.Contains(ids[0]) || x.IDs() != nil {
		t.Fatal("a closed index still reports vectors")
	}
}

// Searches run while vectors are added and removed (run with -race).
func TestConcurrent(t *testing.T) {
	const dim = 16
	x, ids, _ := filled(t, 2000, dim, 12)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 0))
			for range 50 {
				if _, _, err := x.Search(testvec.Unit(rng, 1, dim), 10); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(99, 0))
		for i := range 50 {
			x.Remove(ids[i : i+1])
			x.Add([]int64{int64(1e9 + i)}, testvec.Unit(rng, 1, dim))
		}
	})
	wg.Wait()
	if x.Len() != 2000 {
		t.Fatalf("len %d after balanced adds and removes", x.Len())
	}
}
