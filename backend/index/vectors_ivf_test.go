//go:build cgo && !windows && !nofaiss

package index

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/carrel-app/carrel/backend/index/faiss"
)

// verifies the flat → IVF switch at the threshold, that the IVF store
// persists with its kind in the sidecar, that remove and exact filtered
// search work on it, that it retrains after growing 4×, and that it returns
// to flat when it shrinks below half the threshold.
func TestVectorsIVFSwitch(t *testing.T) {
	const dim = 16
	dir := t.TempDir()
	v := openVectors(t, dir)
	if err := v.Ensure("m", dim); err != nil {
		t.Fatal(err)
	}
	if err := v.SetIVF(2000, 1); err != nil { // nprobe = nlist: exhaustive
		t.Fatal(err)
	}

	// Each step works on the index the steps before left.
	t.Run("flat below the threshold, IVF at it", func(t *testing.T) {
		ids, vecs := batchFor(1, 1999, dim)
		if err := v.Add(ids, vecs); err != nil {
			t.Fatal(err)
		}
		if k := v.idx.Kind(); k != faiss.Flat {
			t.Fatalf("below threshold: kind %v", k)
		}
		ids, vecs = batchFor(2000, 1, dim)
		if err := v.Add(ids, vecs); err != nil {
			t.Fatal(err)
		}
		if k := v.idx.Kind(); k != faiss.IVF || v.Len() != 2000 || v.idx.NList() != ivfLists(2000) {
			t.Fatalf("at threshold: kind %v len %d nlist %d", k, v.Len(), v.idx.NList())
		}
	})

	t.Run("with every list probed the search is exact, and a narrow filter", func(t *testing.T) {
		// With every list probed the search is exact: the vector finds itself.
		hs, err := v.Search(vecFor(1234, dim), 3, nil)
		if err != nil || len(hs) != 3 || hs[0].ID != 1234 {
			t.Fatalf("search: %v, %v", hs, err)
		}
		// A narrow filter is exact.
		allow := []int64{5, 17, 1234, 99999}
		hs, err = v.Search(vecFor(17, dim), 10, allow)
		if err != nil || len(hs) != 3 || hs[0].ID != 17 || !slices.Contains(hitIDs(hs), 5) {
			t.Fatalf("filtered: %v, %v", hs, err)
		}
	})

	t.Run("remove and read back a vector", func(t *testing.T) {
		if err := v.Remove([]int64{1234}); err != nil {
			t.Fatal(err)
		}
		if hs, _ := v.Search(vecFor(1234, dim), 1, nil); len(hs) != 1 || hs[0].ID == 1234 {
			t.Fatalf("after remove: %v", hs)
		}
		if got, err := v.Vector(17); err != nil || !slices.Equal(got, unit(vecFor(17, dim))) {
			t.Fatalf("vector: %v", err)
		}
	})

	t.Run("saved with its kind in the sidecar", func(t *testing.T) {
		if err := v.Save(); err != nil {
			t.Fatal(err)
		}
		var meta vectorsMeta
		data, _ := os.ReadFile(filepath.Join(dir, sidecarFile))
		if err := json.Unmarshal(data, &meta); err != nil || meta.Kind != "ivf" || meta.Count != 1999 || meta.NList != ivfLists(2000) {
			t.Fatalf("sidecar: %s", data)
		}
	})
	v.Close()

	w := openVectors(t, dir)
	t.Run("reopened as IVF", func(t *testing.T) {
		if err := w.SetIVF(2000, 1); err != nil {
			t.Fatal(err)
		}
		if k := w.idx.Kind(); k != faiss.IVF || w.Len() != 1999 || w.Model() != "m" {
			t.Fatalf("reopened: kind %v len %d model %q", k, w.Len(), w.Model())
		}
		if hs, err := w.Search(vecFor(77, dim), 1, nil); err != nil || hs[0].ID != 77 {
			t.Fatalf("reopened search: %v, %v", hs, err)
		}
	})

	// The vectors added as it grows, removed as it shrinks.
	var grown []int64
	t.Run("retrained after growing 4×", func(t *testing.T) {
		// Grow past 4× the training size (nlist 178 → trained for ~1980): retrain.
		var vecs [][]float32
		grown, vecs = batchFor(3000, 6000, dim)
		if err := w.Add(grown, vecs); err != nil {
			t.Fatal(err)
		}
		if w.idx.Kind() != faiss.IVF || w.idx.NList() != ivfLists(7999) {
			t.Fatalf("after growth: kind %v nlist %d", w.idx.Kind(), w.idx.NList())
		}
	})

	t.Run("flat again below half the threshold, nothing lost", func(t *testing.T) {
		// Shrink below half the threshold: back to flat, nothing lost.
		if err := w.Remove(grown); err != nil {
			t.Fatal(err)
		}
		rm, _ := batchFor(1, 1000, dim)
		if err := w.Remove(rm); err != nil {
			t.Fatal(err)
		}
		if w.idx.Kind() != faiss.Flat || w.Len() != 999 {
			t.Fatalf("after shrink: kind %v len %d", w.idx.Kind(), w.Len())
		}
		if hs, err := w.Search(vecFor(1500, dim), 1, nil); err != nil || hs[0].ID != 1500 {
			t.Fatalf("flat again: %v, %v", hs, err)
		}
	})
}
