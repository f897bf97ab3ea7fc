package index

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// vecFor returns a deterministic, unnormalised vector for id.
func vecFor(id int64, dim int) []float32 {
	rng := rand.New(rand.NewPCG(uint64(id), 7))
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(rng.NormFloat64() * 3)
	}
	return v
}

func unit(v []float32) []float32 {
	out, err := appendNormalized(nil, v)
	if err != nil {
		panic(err)
	}
	return out
}

func batchFor(first, n int64, dim int) ([]int64, [][]float32) {
	ids := make([]int64, n)
	vecs := make([][]float32, n)
	for i := range ids {
		ids[i] = first + int64(i)
		vecs[i] = vecFor(ids[i], dim)
	}
	return ids, vecs
}

func openVectors(t *testing.T, dir string) *Vectors {
	t.Helper()
	v, err := OpenVectors(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func hitIDs(hs []VectorHit) []int64 {
	ids := make([]int64, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	return ids
}

// verifies add, cosine search, scope filter and removal on a fresh store.
func TestVectorsAddSearchRemove(t *testing.T) {
	const dim = 16
	v := openVectors(t, t.TempDir())
	if err := v.Add([]int64{1}, [][]float32{vecFor(1, dim)}); !errors.Is(err, ErrNoModel) {
		t.Fatalf("Add before Ensure: got %v, want ErrNoModel", err)
	}
	if hits, err := v.Search(vecFor(1, dim), 5, nil); err != nil || hits != nil {
		t.Fatalf("Search before Ensure: got %v, %v; want nothing", hits, err)
	}
	if err := v.Ensure("nomic-embed-text", dim); err != nil {
		t.Fatal(err)
	}
	ids, vecs := batchFor(100, 200, dim)
	if err := v.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	if v.Len() != 200 || v.Dim() != dim || v.Model() != "nomic-embed-text" {
		t.Fatalf("Len/Dim/Model = %d/%d/%q", v.Len(), v.Dim(), v.Model())
	}

	// A scaled copy of a stored vector has cosine 1 with it: both sides are
	// normalised.
	q := slices.Clone(vecs[7])
	for i := range q {
		q[i] *= 0.01
	}
	hits, err := v.Search(q, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 10 || hits[0].ID != 107 || math.Abs(float64(hits[0].Score)-1) > 1e-5 {
		t.Fatalf("top hit %+v of %d, want id 107 with score 1", hits[0], len(hits))
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score || hits[i].Score > 1.0001 || hits[i].Score < -1.0001 {
			t.Fatalf("scores not descending cosines: %+v", hits)
		}
	}

	// Scope: only the allowed ids, best first; unknown ids are ignored.
	allow := []int64{150, 160, 170, 9999}
	hits, err = v.Search(q, 10, allow)
	if err != nil {
		t.Fatal(err)
	}
	got := hitIDs(hits)
	slices.Sort(got)
	if !slices.Equal(got, []int64{150, 160, 170}) {
		t.Fatalf("scoped search returned %v", hitIDs(hits))
	}
	if hits, err := v.Search(q, 10, []int64{}); err != nil || len(hits) != 0 {
		t.Fatalf("empty scope: got %v, %v; want nothing", hits, err)
	}

	if err := v.Remove([]int64{107, 108, 424242}); err != nil {
		t.Fatal(err)
	}
	if v.Len() != 198 {
		t.Fatalf("Len after remove = %d, want 198", v.Len())
	}
	hits, err = v.Search(q, 200, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 198 || slices.Contains(hitIDs(hits), 107) || slices.Contains(hitIDs(hits), 108) {
		t.Fatalf("removed ids still searchable (%d hits)", len(hits))
	}
	if _, err := v.Vector(107); err == nil {
		t.Fatal("Vector of a removed id succeeded")
	}
}

// verifies that invalid vectors are rejected before anything changes.
func TestVectorsAddErrors(t *testing.T) {
	const dim = 4
	v := openVectors(t, t.TempDir())
	if err := v.Ensure("m", dim); err != nil {
		t.Fatal(err)
	}
	if err := v.Add([]int64{1}, [][]float32{{1, 2, 3, 4}}); err != nil {
		t.Fatal(err)
	}
	nan := float32(math.NaN())
	cases := []struct {
		name string
		ids  []int64
		vecs [][]float32
	}{
		{"count mismatch", []int64{2, 3}, [][]float32{{1, 1, 1, 1}}},
		{"wrong dim", []int64{2}, [][]float32{{1, 1, 1}}},
		{"zero vector", []int64{2}, [][]float32{{0, 0, 0, 0}}},
		{"NaN", []int64{2}, [][]float32{{1, nan, 1, 1}}},
		{"repeated id", []int64{2, 2}, [][]float32{{1, 1, 1, 1}, {1, 1, 1, 1}}},
		{"negative id", []int64{-1}, [][]float32{{1, 1, 1, 1}}},
		// The valid first entry replaces id 1 only if the batch is accepted.
		{"bad entry after replace", []int64{1, 3}, [][]float32{{4, 3, 2, 1}, {0, 0, 0, 0}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := v.Add(c.ids, c.vecs); err == nil {
				t.Fatal("accepted")
			}
		})
	}
	if v.Len() != 1 {
		t.Fatalf("Len = %d after rejected adds, want 1", v.Len())
	}
	got, err := v.Vector(1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, unit([]float32{1, 2, 3, 4})) {
		t.Fatalf("vector 1 changed to %v", got)
	}
	if _, err := v.Search([]float32{0, 0, 0, 0}, 1, nil); err == nil {
		t.Fatal("zero query accepted")
	}
	if _, err := v.Search([]float32{1, 1}, 1, nil); err == nil {
		t.Fatal("query of wrong dim accepted")
	}
}

// verifies that re-adding an id replaces its vector (idempotent replay).
func TestVectorsUpsert(t *testing.T) {
	const dim = 8
	v := openVectors(t, t.TempDir())
	if err := v.Ensure("m", dim); err != nil {
		t.Fatal(err)
	}
	ids, vecs := batchFor(1, 10, dim)
	if err := v.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	if err := v.Add(ids[:3], vecs[:3]); err != nil { // replay
		t.Fatal(err)
	}
	fresh := vecFor(5000, dim)
	if err := v.Add([]int64{4}, [][]float32{fresh}); err != nil {
		t.Fatal(err)
	}
	if v.Len() != 10 {
		t.Fatalf("Len = %d, want 10", v.Len())
	}
	got, err := v.Vector(4)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, unit(fresh)) {
		t.Fatal("id 4 was not replaced")
	}
}

// verifies that Save+reopen gives back identical vectors, ids, model and
// search results, and writes the documented sidecar.
func TestVectorsPersist(t *testing.T) {
	const dim = 32
	dir := t.TempDir()
	v, err := OpenVectors(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Save(); err != nil { // nothing to save yet
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, vectorsFile)); !os.IsNotExist(err) {
		t.Fatalf("Save before Ensure wrote a file: %v", err)
	}
	if err := v.Ensure("bge-small", dim); err != nil {
		t.Fatal(err)
	}
	ids, vecs := batchFor(10, 500, dim)
	if err := v.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	if err := v.Remove(ids[:20]); err != nil {
		t.Fatal(err)
	}
	q := vecFor(77777, dim)
	before, err := v.Search(q, 25, nil)
	if err != nil {
		t.Fatal(err)
	}
	scope := ids[100:300]
	beforeScoped, err := v.Search(q, 25, scope)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Save(); err != nil {
		t.Fatal(err)
	}
	wantIDs := v.IDs()
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if err := v.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	if err := v.Save(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Save after Close: %v", err)
	}

	// Saved and closed; each subtest checks one thing of what was kept.
	w := openVectors(t, dir)
	t.Run("the sidecar says model, dimension, kind and count", func(t *testing.T) {
		data, err := os.ReadFile(filepath.Join(dir, sidecarFile))
		if err != nil {
			t.Fatal(err)
		}
		var side map[string]any
		if err := json.Unmarshal(data, &side); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"model": "bge-small", "dim": float64(dim), "kind": "flat", "count": float64(480)}
		for k, w := range want {
			if side[k] != w {
				t.Fatalf("sidecar %s = %v, want %v (%s)", k, side[k], w, data)
			}
		}
	})

	t.Run("reopened: the same model, ids and vectors", func(t *testing.T) {
		if w.Model() != "bge-small" || w.Dim() != dim || w.Len() != 480 {
			t.Fatalf("reopened Model/Dim/Len = %q/%d/%d", w.Model(), w.Dim(), w.Len())
		}
		if !slices.Equal(w.IDs(), wantIDs) {
			t.Fatal("ids differ after reopen")
		}
		for i := 20; i < len(ids); i++ {
			got, err := w.Vector(ids[i])
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, unit(vecs[i])) {
				t.Fatalf("vector %d differs after reopen", ids[i])
			}
		}
	})

	t.Run("reopened: the same search results", func(t *testing.T) {
		after, err := w.Search(q, 25, nil)
		if err != nil {
			t.Fatal(err)
		}
		afterScoped, err := w.Search(q, 25, scope)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(before, after) || !slices.Equal(beforeScoped, afterScoped) {
			t.Fatal("search results differ after reopen")
		}
	})

	t.Run("reopened: Ensure takes the stored model", func(t *testing.T) {
		if err := w.Ensure("bge-small", dim); err != nil {
			t.Fatalf("Ensure with the stored model: %v", err)
		}
	})
}

// verifies ErrModelMismatch for another model or dim, and Reset.
func TestVectorsModelMismatch(t *testing.T) {
	dir := t.TempDir()
	v := openVectors(t, dir)
	if err := v.Ensure("nomic-embed-text", 16); err != nil {
		t.Fatal(err)
	}
	ids, vecs := batchFor(1, 5, 16)
	if err := v.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	if err := v.Save(); err != nil {
		t.Fatal(err)
	}
	v.Close()

	w := openVectors(t, dir)
	for _, c := range []struct {
		model string
		dim   int
	}{{"mxbai-embed-large", 16}, {"nomic-embed-text", 32}, {"all-minilm", 384}} {
		err := w.Ensure(c.model, c.dim)
		if !errors.Is(err, ErrModelMismatch) {
			t.Fatalf("Ensure(%q, %d): got %v, want ErrModelMismatch", c.model, c.dim, err)
		}
		if msg := err.Error(); !strings.Contains(msg, "nomic-embed-text") || !strings.Contains(msg, c.model) {
			t.Fatalf("error %q does not name both models", msg)
		}
	}
	if w.Len() != 5 {
		t.Fatal("a failed Ensure changed the store")
	}

	if err := w.Reset("all-minilm", 384); err != nil {
		t.Fatal(err)
	}
	if w.Len() != 0 || w.Model() != "all-minilm" || w.Dim() != 384 {
		t.Fatalf("after Reset: Len/Model/Dim = %d/%q/%d", w.Len(), w.Model(), w.Dim())
	}
	if err := w.Save(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	x := openVectors(t, dir)
	if x.Model() != "all-minilm" || x.Dim() != 384 || x.Len() != 0 {
		t.Fatalf("reopened after Reset: Model/Dim/Len = %q/%d/%d", x.Model(), x.Dim(), x.Len())
	}
}

// savedStore builds a store in dir holding n vectors of model "m", saved.
func savedStore(t *testing.T, dir string, n int64, dim int) {
	t.Helper()
	v, err := OpenVectors(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.Ensure("m", dim); err != nil {
		t.Fatal(err)
	}
	ids, vecs := batchFor(maxID(v)+1, n, dim)
	if err := v.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	if err := v.Save(); err != nil {
		t.Fatal(err)
	}
}

// maxID returns the largest stored id, or 0.
func maxID(v *Vectors) int64 {
	ids := v.IDs()
	if len(ids) == 0 {
		return 0
	}
	return slices.Max(ids)
}

// verifies that the leftovers of a Save killed before its rename (partial
// .tmp files) are ignored and removed, and the previous index loads.
func TestVectorsSaveLeftoverTmp(t *testing.T) {
	dir := t.TempDir()
	savedStore(t, dir, 50, 8)
	// A half-written index and sidecar from a killed Save.
	good, err := os.ReadFile(filepath.Join(dir, vectorsFile))
	if err != nil {
		t.Fatal(err)
	}
	tmpIndex := filepath.Join(dir, vectorsFile+tmpSuffix)
	tmpSide := filepath.Join(dir, sidecarFile+tmpSuffix)
	if err := os.WriteFile(tmpIndex, good[:len(good)/3], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tmpSide, []byte(`{"model":"other","dim":`), 0o644); err != nil {
		t.Fatal(err)
	}
	v := openVectors(t, dir)
	if v.Len() != 50 || v.Model() != "m" {
		t.Fatalf("Len/Model = %d/%q, want 50/m", v.Len(), v.Model())
	}
	for _, p := range []string{tmpIndex, tmpSide} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Fatalf("%s still present", filepath.Base(p))
		}
	}
	for id := int64(1); id <= 50; id++ {
		got, err := v.Vector(id)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, unit(vecFor(id, 8))) {
			t.Fatalf("vector %d differs", id)
		}
	}
}

// verifies recovery from a kill between the two renames of Save: the new
// index with the old sidecar.
func TestVectorsStaleSidecar(t *testing.T) {
	dir := t.TempDir()
	savedStore(t, dir, 30, 8)
	oldSide, err := os.ReadFile(filepath.Join(dir, sidecarFile))
	if err != nil {
		t.Fatal(err)
	}
	savedStore(t, dir, 20, 8)
	if err := os.WriteFile(filepath.Join(dir, sidecarFile), oldSide, 0o644); err != nil {
		t.Fatal(err)
	}

	v := openVectors(t, dir)
	if v.Len() != 50 || v.Model() != "m" || v.Dim() != 8 {
		t.Fatalf("Len/Model/Dim = %d/%q/%d, want 50/m/8", v.Len(), v.Model(), v.Dim())
	}
	if err := v.Save(); err != nil { // must rewrite the stale sidecar
		t.Fatal(err)
	}
	var meta vectorsMeta
	data, err := os.ReadFile(filepath.Join(dir, sidecarFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Count != 50 {
		t.Fatalf("sidecar count = %d after Save, want 50", meta.Count)
	}
}

// verifies a missing sidecar (first Save killed after its first rename):
// the model is unknown and the next Ensure adopts one of the right dim.
func TestVectorsMissingSidecar(t *testing.T) {
	dir := t.TempDir()
	savedStore(t, dir, 10, 8)
	if err := os.Remove(filepath.Join(dir, sidecarFile)); err != nil {
		t.Fatal(err)
	}
	v := openVectors(t, dir)
	if v.Model() != "" || v.Len() != 10 || v.Dim() != 8 {
		t.Fatalf("Model/Len/Dim = %q/%d/%d", v.Model(), v.Len(), v.Dim())
	}
	if err := v.Ensure("m", 16); !errors.Is(err, ErrModelMismatch) {
		t.Fatalf("Ensure with another dim: %v", err)
	}
	if err := v.Ensure("m", 8); err != nil {
		t.Fatal(err)
	}
	if err := v.Ensure("other", 8); !errors.Is(err, ErrModelMismatch) {
		t.Fatalf("Ensure after adoption: %v", err)
	}
}

// verifies that an unreadable index is reported, not silently replaced.
func TestVectorsCorruptIndex(t *testing.T) {
	dir := t.TempDir()
	savedStore(t, dir, 10, 8)
	if err := os.WriteFile(filepath.Join(dir, vectorsFile), []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if v, err := OpenVectors(dir); err == nil {
		v.Close()
		t.Fatal("opened a corrupt index")
	}
}

// TestHelperSaveLoop is the child process of TestVectorsKillDuringSave: it
// adds a batch, saves, and reports the saved count, forever.
func TestHelperSaveLoop(t *testing.T) {
	dir := os.Getenv("CARREL_SAVE_LOOP_DIR")
	if dir == "" {
		t.Skip("helper process for TestVectorsKillDuringSave")
	}
	v, err := OpenVectors(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Ensure("m", killDim); err != nil {
		t.Fatal(err)
	}
	for {
		ids, vecs := batchFor(int64(v.Len())+1, killBatch, killDim)
		if err := v.Add(ids, vecs); err != nil {
			t.Fatal(err)
		}
		if err := v.Save(); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("saved %d\n", v.Len())
	}
}

const (
	killDim   = 96
	killBatch = 1500 // ~0.6 MB of vectors per Save
)

// verifies crash safety for real: a process that keeps adding and saving is
// killed with SIGKILL at random moments, and every time the store reopens
// with a complete state at least as new as the last acknowledged Save.
func TestVectorsKillDuringSave(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	acked := 0
	for round := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSaveLoop$")
		cmd.Env = append(os.Environ(), "CARREL_SAVE_LOOP_DIR="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		want := 2 + rng.IntN(3)
		for seen := 0; seen < want && sc.Scan(); {
			if n, ok := strings.CutPrefix(sc.Text(), "saved "); ok {
				acked, _ = strconv.Atoi(n)
				seen++
			}
		}
		time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		if acked == 0 {
			t.Fatalf("round %d: helper never saved", round)
		}

		_, statErr := os.Stat(filepath.Join(dir, vectorsFile+tmpSuffix))
		midSave := statErr == nil
		v, err := OpenVectors(dir)
		if err != nil {
			t.Fatalf("round %d: reopen after kill: %v", round, err)
		}
		n := v.Len()
		if n < acked || n%killBatch != 0 || v.Model() != "m" || v.Dim() != killDim {
			v.Close()
			t.Fatalf("round %d: reopened Len/Model/Dim = %d/%q/%d; acked %d", round, n, v.Model(), v.Dim(), acked)
		}
		for _, id := range []int64{1, int64(n / 2), int64(n)} {
			got, err := v.Vector(id)
			if err != nil || !slices.Equal(got, unit(vecFor(id, killDim))) {
				v.Close()
				t.Fatalf("round %d: vector %d wrong after kill (%v)", round, id, err)
			}
		}
		t.Logf("round %d: killed after ack of %d (mid-write: %v), reopened with %d", round, acked, midSave, n)
		v.Close()
		acked = n
	}
}

// verifies that searches run safely alongside adds, removes and saves (run
// with -race).
func TestVectorsConcurrent(t *testing.T) {
	const dim = 16
	dir := t.TempDir()
	v := openVectors(t, dir)
	if err := v.Ensure("m", dim); err != nil {
		t.Fatal(err)
	}
	ids, vecs := batchFor(1, 500, dim)
	if err := v.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	errs := make(chan error, 8)
	for g := range 3 {
		go func() {
			for i := 0; ; i++ {
				select {
				case <-done:
					errs <- nil
					return
				default:
				}
				q := vecFor(int64(10_000+g*1000+i), dim)
				var allow []int64
				if i%2 == 1 {
					allow = ids[:50]
				}
				if _, err := v.Search(q, 10, allow); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for i := range 20 {
		b, bv := batchFor(int64(1000+i*10), 10, dim)
		if err := v.Add(b, bv); err != nil {
			t.Fatal(err)
		}
		if err := v.Remove(b[:5]); err != nil {
			t.Fatal(err)
		}
		if i%5 == 0 {
			if err := v.Save(); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(done)
	for range 3 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if v.Len() != 600 {
		t.Fatalf("Len = %d, want 600", v.Len())
	}
}
