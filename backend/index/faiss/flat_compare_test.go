//go:build cgo && !windows && !nofaiss

package faiss

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/carrel-app/carrel/backend/index/flat"

	"github.com/carrel-app/carrel/internal/testvec"
)

// sameHits fails unless two results agree: the same scores to float32
// rounding, and the same ids in the same order, except that ids whose
// scores are within rounding of each other may trade places.
func sameHits(t *testing.T, what string, gotIDs []int64, gotScores []float32, wantIDs []int64, wantScores []float32) {
	t.Helper()
	if len(gotIDs) != len(wantIDs) {
		t.Fatalf("%s: %d hits, FAISS %d", what, len(gotIDs), len(wantIDs))
	}
	for i := range wantIDs {
		if math.Abs(float64(gotScores[i]-wantScores[i])) > 1e-5 {
			t.Fatalf("%s: hit %d scores %.7f, FAISS %.7f", what, i, gotScores[i], wantScores[i])
		}
		if gotIDs[i] == wantIDs[i] {
			continue
		}
		// A swap is only allowed inside a run of (nearly) equal scores.
		j := slices.Index(wantIDs, gotIDs[i])
		if j < 0 || math.Abs(float64(wantScores[j]-wantScores[i])) > 1e-5 {
			t.Fatalf("%s: hit %d is id %d (%.7f), FAISS has id %d (%.7f)", what, i, gotIDs[i], gotScores[i], wantIDs[i], wantScores[i])
		}
	}
}

// The pure-Go index (the Windows build's) and FAISS return the same
// neighbours and scores for the same vectors: unfiltered, filtered and after
// removals, against both FAISS's exact scan and its default search (the
// 4-bit pre-scan with exact re-scoring). Their files are byte-identical and
// each reads the other's.
func TestFlatMatchesFAISS(t *testing.T) {
	const n, dim, queries = 20000, 384, 40
	rng := rand.New(rand.NewPCG(2026, 13))
	ids, vecs := testvec.SparseIDs(n), testvec.Unit(rng, n, dim)
	fx, err := NewFlatIP(dim)
	if err != nil {
		t.Fatal(err)
	}
	defer fx.Close()
	gx, err := flat.New(dim)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range []interface {
		Add([]int64, []float32) error
	}{fx, gx} {
		if err := x.Add(ids, vecs); err != nil {
			t.Fatal(err)
		}
	}
	allow := make([]int64, 0, 600)
	for i := 0; i < n; i += n / 600 {
		allow = append(allow, ids[i])
	}

	compare := func(t *testing.T, stage string) {
		t.Helper()
		if !slices.Equal(gx.IDs(), fx.IDs()) {
			t.Fatalf("%s: ids in storage order differ", stage)
		}
		for qi := range queries {
			q := testvec.Unit(rng, 1, dim)
			// Also a query near a stored vector, where the top hit is clear.
			if qi%2 == 1 {
				r := rng.IntN(gx.Len())
				stored, _ := gx.Reconstruct(gx.IDs()[r])
				for j := range q {
					q[j] = stored[j] + 0.05*q[j]
				}
			}
			for _, k := range []int{10, 60} {
				gi, gs, err := gx.Search(q, k)
				if err != nil {
					t.Fatal(err)
				}
				fi, fs, err := fx.SearchExact(q, k)
				if err != nil {
					t.Fatal(err)
				}
				sameHits(t, fmt.Sprintf("%s q%d k%d exact", stage, qi, k), gi, gs, fi, fs)
				fi, fs, _ = fx.Search(q, k)
				sameHits(t, fmt.Sprintf("%s q%d k%d search", stage, qi, k), gi, gs, fi, fs)
				gi, gs, _ = gx.SearchFiltered(q, k, allow)
				fi, fs, _ = fx.SearchFiltered(q, k, allow)
				sameHits(t, fmt.Sprintf("%s q%d k%d filtered", stage, qi, k), gi, gs, fi, fs)
			}
		}
	}

	// Each step works on the indexes the steps before left.
	t.Run("added: the same hits", func(t *testing.T) {
		compare(t, "added")
	})

	t.Run("after removals: the same hits", func(t *testing.T) {
		var drop []int64
		for i := 3; i < n; i += 10 {
			drop = append(drop, ids[i])
		}
		drop = append(drop, allow[:50]...)
		gn, err := gx.Remove(drop)
		if err != nil {
			t.Fatal(err)
		}
		fn, err := fx.Remove(drop)
		if err != nil || gn != fn {
			t.Fatalf("removed %d (Go), %d (FAISS, %v)", gn, fn, err)
		}
		compare(t, "removed")
	})

	t.Run("the same file, each reading the other's", func(t *testing.T) {
		dir := t.TempDir()
		gp, fp := filepath.Join(dir, "go.faiss"), filepath.Join(dir, "faiss.faiss")
		if err := gx.Write(gp); err != nil {
			t.Fatal(err)
		}
		if err := fx.Write(fp); err != nil {
			t.Fatal(err)
		}
		gb, _ := os.ReadFile(gp)
		fb, _ := os.ReadFile(fp)
		if !bytes.Equal(gb, fb) {
			t.Fatalf("files differ: Go wrote %d bytes, FAISS %d", len(gb), len(fb))
		}
		// Each reads the other's file into the same index.
		fromGo, err := Read(gp)
		if err != nil {
			t.Fatalf("FAISS reading the Go index's file: %v", err)
		}
		defer fromGo.Close()
		fromFAISS, err := flat.Read(fp)
		if err != nil {
			t.Fatalf("the Go index reading FAISS's file: %v", err)
		}
		i1, v1, _ := fromGo.Export()
		i2, v2, _ := fromFAISS.Export()
		i0, v0, _ := gx.Export()
		if !slices.Equal(i1, i0) || !slices.Equal(i2, i0) || !slices.Equal(v1, v0) || !slices.Equal(v2, v0) {
			t.Fatal("an index read from the other implementation's file holds other ids or vectors")
		}
	})
}

// BenchmarkFlatGoVsFAISS times one query (k=10) at 10k and 100k×384 on the
// pure-Go exact index beside FAISS's default search and its exact scan.
func BenchmarkFlatGoVsFAISS(b *testing.B) {
	const dim = 384
	for _, n := range []int{10_000, 100_000} {
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		ids, vecs := testvec.SparseIDs(n), testvec.Unit(rng, n, dim)
		fx, err := NewFlatIP(dim)
		if err != nil {
			b.Fatal(err)
		}
		gx, _ := flat.New(dim)
		if err := fx.Add(ids, vecs); err != nil {
			b.Fatal(err)
		}
		if err := gx.Add(ids, vecs); err != nil {
			b.Fatal(err)
		}
		qs := testvec.Unit(rng, 64, dim)
		run := func(name string, search func([]float32, int) ([]int64, []float32, error)) {
			b.Run(fmt.Sprintf("%s/%dk", name, n/1000), func(b *testing.B) {
				i := 0
				for b.Loop() {
					if _, _, err := search(qs[(i%64)*dim:(i%64+1)*dim], 10); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
		run("go", gx.Search)
		run("faiss", fx.Search)
		run("faiss-exact", fx.SearchExact)
		fx.Close()
		gx.Close()
	}
}
