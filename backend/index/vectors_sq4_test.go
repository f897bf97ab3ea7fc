package index

import (
	"math"
	"slices"
	"testing"
)

// verifies that a store large enough for the 4-bit scan answers like an
// exact scan (recall@10 ≥ 0.95, exact scores), before and after Save and a
// reopen, and after removing vectors.
func TestVectorsSearchMatchesExact(t *testing.T) {
	const n, dim, k = 8000, 64, 10
	dir := t.TempDir()
	v := openVectors(t, dir)
	if err := v.Ensure("m", dim); err != nil {
		t.Fatal(err)
	}
	ids, vecs := batchFor(1, n, dim)
	if err := v.Add(ids, vecs); err != nil {
		t.Fatal(err)
	}
	recall := func(v *Vectors) float64 {
		t.Helper()
		found, total := 0, 0
		for i := range 30 {
			q := vecFor(int64(1_000_000+i), dim)
			got, err := v.Search(q, k, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := v.SearchExact(q, k)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != k || len(want) != k {
				t.Fatalf("got %d and %d hits, want %d", len(got), len(want), k)
			}
			for _, g := range got {
				// The score is the exact cosine of the id it comes with.
				exact := float64(0)
				for j, f := range unit(q) {
					exact += float64(f) * float64(unit(vecFor(g.ID, dim))[j])
				}
				if math.Abs(exact-float64(g.Score)) > 1e-4 {
					t.Fatalf("id %d scored %.5f, exact %.5f", g.ID, g.Score, exact)
				}
			}
			for _, w := range want {
				total++
				if slices.Contains(hitIDs(got), w.ID) {
					found++
				}
			}
		}
		return float64(found) / float64(total)
	}
	if r := recall(v); r < 0.95 {
		t.Fatalf("recall@%d = %.3f, want ≥ 0.95", k, r)
	}
	if err := v.Remove(ids[:n/2]); err != nil {
		t.Fatal(err)
	}
	if err := v.Save(); err != nil {
		t.Fatal(err)
	}
	v.Close()
	w := openVectors(t, dir)
	if w.Len() != n/2 {
		t.Fatalf("reopened Len = %d, want %d", w.Len(), n/2)
	}
	if r := recall(w); r < 0.95 {
		t.Fatalf("after remove and reopen: recall@%d = %.3f, want ≥ 0.95", k, r)
	}
	hs, err := w.Search(vecFor(ids[n/2], dim), 1, nil)
	if err != nil || len(hs) != 1 || hs[0].ID != ids[n/2] {
		t.Fatalf("self match after reopen: %v, %v", hs, err)
	}
}
