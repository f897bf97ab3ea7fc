//go:build !cgo || windows || nofaiss

// The pure-Go build of this package: the API of faiss.go served by the exact
// index in backend/index/flat, for Windows (no FAISS is cross-built for it)
// and for builds tagged nofaiss. Only flat indexes exist; Search is the
// exact scan (no 4-bit pre-scan), so it returns what SearchExact returns.

package faiss

import (
	"errors"
	"fmt"

	"github.com/carrel-app/carrel/backend/index/flat"
)

const (
	// Flat is an exact, brute-force inner-product index.
	Flat Kind = iota
	// HNSW needs FAISS; NewHNSW fails in this build.
	HNSW
	// IVF needs FAISS; NewIVF fails in this build.
	IVF
)

var (
	// ErrClosed is returned by every method of a closed Index.
	ErrClosed = flat.ErrClosed
	// ErrNotFound is returned by Reconstruct for an id not in the index.
	ErrNotFound = flat.ErrNotFound
	// errNoFAISS is returned for the index kinds only FAISS provides.
	errNoFAISS = fmt.Errorf("faiss: this build has no FAISS (pure-Go flat index only): %w", errors.ErrUnsupported)
)

// Error is a failure reported by FAISS itself; this build never returns one.
type Error struct {
	Op  string
	Msg string
}

func (e *Error) Error() string { return "faiss: " + e.Op + ": " + e.Msg }

// Index is an id-mapped inner-product index.
type Index struct{ f *flat.Index }

// NewFlatIP returns an exact inner-product index of dimension dim.
func NewFlatIP(dim int) (*Index, error) {
	f, err := flat.New(dim)
	if err != nil {
		return nil, err
	}
	return &Index{f}, nil
}

// NewHNSW fails: HNSW needs FAISS.
func NewHNSW(dim, m int) (*Index, error) { return nil, errNoFAISS }

// NewIVF fails: IVF needs FAISS.
func NewIVF(dim, nlist int, train []float32) (*Index, error) { return nil, errNoFAISS }

// Read loads an index written by Write, or by FAISS (IndexIDMap2 over
// IndexFlatIP); other FAISS kinds are refused with an error naming them.
func Read(path string) (*Index, error) {
	f, err := flat.Read(path)
	if err != nil {
		return nil, err
	}
	return &Index{f}, nil
}

func (x *Index) SetNProbe(int) error   { return errNoFAISS }
func (x *Index) NProbe() int           { return 0 }
func (x *Index) NList() int            { return 0 }
func (x *Index) SetEfSearch(int) error { return errNoFAISS }
func (x *Index) EfSearch() int         { return 0 }
func (x *Index) Kind() Kind            { return Flat }
func (x *Index) Dim() int              { return x.f.Dim() }
func (x *Index) Len() int              { return x.f.Len() }
func (x *Index) Contains(id int64) bool {
	return x.f.Contains(id)
}
func (x *Index) IDs() []int64                            { return x.f.IDs() }
func (x *Index) Export() ([]int64, []float32, error)     { return x.f.Export() }
func (x *Index) Add(ids []int64, vecs []float32) error   { return x.f.Add(ids, vecs) }
func (x *Index) Remove(ids []int64) (int, error)         { return x.f.Remove(ids) }
func (x *Index) Reconstruct(id int64) ([]float32, error) { return x.f.Reconstruct(id) }
func (x *Index) Write(path string) error                 { return x.f.Write(path) }
func (x *Index) Close()                                  { x.f.Close() }

// Search returns up to k ids with the highest inner product with q, best
// first, and their scores, by an exact scan.
func (x *Index) Search(q []float32, k int) ([]int64, []float32, error) {
	return x.f.Search(q, k)
}

// SearchExact is Search: every search here is exact.
func (x *Index) SearchExact(q []float32, k int) ([]int64, []float32, error) {
	return x.f.Search(q, k)
}

// SearchFiltered is Search restricted to the ids in allow; an empty allow
// list matches nothing.
func (x *Index) SearchFiltered(q []float32, k int, allow []int64) ([]int64, []float32, error) {
	if allow == nil {
		allow = []int64{}
	}
	return x.f.SearchFiltered(q, k, allow)
}
