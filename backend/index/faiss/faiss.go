//go:build cgo && !windows && !nofaiss

// Package faiss is Carrel's small cgo binding over the FAISS C++ library
// (Debian's libfaiss-dev 1.7.3).
//
// It covers exactly what the vector store needs: an [Index] that maps int64
// ids to vectors (IndexIDMap2) over either an exact inner-product index
// ([NewFlatIP]) or an HNSW graph ([NewHNSW]), or an inverted-file index
// that keeps the ids itself ([NewIVF]), with add, remove, search, filtered
// search, reconstruct, export and file I/O.
//
// The C++ shim (shim.cpp) catches every C++ exception and returns its message,
// which surfaces here as an [*Error]; nothing panics or unwinds across cgo.
//
// An Index is safe for concurrent use: searches run in parallel, mutations are
// exclusive. Close must be called to free the C++ memory.
//
// Building needs the FAISS headers and library and a BLAS (Debian:
// libfaiss-dev, which ships only the static libfaiss.a, and libopenblas-dev).
// OpenBLAS, libgomp and libstdc++ are linked dynamically. On macOS:
// Homebrew's faiss and libomp (see .github/workflows/release.yml for the
// include and library paths).
//
// Importing the package tunes two process-wide settings (see cf_init in
// shim.cpp): single queries go through BLAS, and OpenBLAS uses one thread.
//
// Built for Windows, without cgo, or with the nofaiss tag, the package
// serves the same API from the pure-Go exact index in backend/index/flat
// (purego.go): flat only (NewHNSW and NewIVF fail), the same neighbours and
// scores as FAISS's exact scan, and the same file format.
package faiss

/*
#cgo CXXFLAGS: -std=c++17 -O2
#cgo linux LDFLAGS: -lfaiss -lopenblas -lgomp -lstdc++ -lm
#cgo darwin LDFLAGS: -lfaiss -lomp -lc++
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

func init() { C.cf_init() }

const (
	// Flat is an exact, brute-force inner-product index (IndexFlatIP).
	Flat Kind = C.CF_KIND_FLAT
	// HNSW is an approximate graph index (IndexHNSWFlat, inner product).
	HNSW Kind = C.CF_KIND_HNSW
	// IVF is an inverted-file index (IndexIVFFlat, inner product): vectors
	// are stored exactly in nlist lists around trained centroids, and a
	// search scans the nprobe lists nearest the query. It stores the
	// caller's ids itself and supports remove.
	IVF Kind = C.CF_KIND_IVF
)

var (
	// ErrClosed is returned by every method of a closed Index.
	ErrClosed = errors.New("faiss: index closed")
	// ErrNotFound is returned by Reconstruct for an id not in the index.
	ErrNotFound = errors.New("faiss: id not found")
)

// Error is a failure reported by FAISS itself (a caught C++ exception).
type Error struct {
	// Op is the operation that failed, such as "add" or "read".
	Op string
	// Msg is the C++ exception's message.
	Msg string
}

func (e *Error) Error() string { return "faiss: " + e.Op + ": " + e.Msg }

// cerr converts a shim error string into an *Error and frees it.
func cerr(op string, msg *C.char) error {
	if msg == nil {
		return nil
	}
	defer C.free(unsafe.Pointer(msg))
	return &Error{Op: op, Msg: C.GoString(msg)}
}

// Index is an id-mapped inner-product index. The zero value is not usable;
// create one with NewFlatIP, NewHNSW, NewIVF or Read.
type Index struct {
	mu   sync.RWMutex
	p    *C.cf_index // nil once closed
	dim  int
	kind Kind
}

func wrap(p *C.cf_index) *Index {
	return &Index{p: p, dim: int(C.cf_dim(p)), kind: Kind(C.cf_kind(p))}
}

// NewFlatIP returns an exact inner-product index of dimension dim.
func NewFlatIP(dim int) (*Index, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("faiss: new flat: dimension %d must be positive", dim)
	}
	var p *C.cf_index
	if err := cerr("new flat", C.cf_new_flat_ip(C.int(dim), &p)); err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// NewHNSW returns an HNSW inner-product index of dimension dim with m links
// per node. FAISS 1.7.3 cannot remove vectors from it.
func NewHNSW(dim, m int) (*Index, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("faiss: new hnsw: dimension %d must be positive", dim)
	}
	if m < 2 {
		return nil, fmt.Errorf("faiss: new hnsw: M %d must be at least 2", m)
	}
	var p *C.cf_index
	if err := cerr("new hnsw", C.cf_new_hnsw_ip(C.int(dim), C.int(m), &p)); err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// NewIVF returns an IVF-flat inner-product index of dimension dim with nlist
// lists, whose centroids are trained (spherical k-means) on the vectors in
// train, row after row; at least nlist of them. Training does not add them.
// Searches probe one list until SetNProbe.
func NewIVF(dim, nlist int, train []float32) (*Index, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("faiss: new ivf: dimension %d must be positive", dim)
	}
	if nlist < 1 {
		return nil, fmt.Errorf("faiss: new ivf: nlist %d must be positive", nlist)
	}
	if len(train)%dim != 0 || len(train)/dim < nlist {
		return nil, fmt.Errorf("faiss: new ivf: %d training floats are not at least %d vectors of dim %d",
			len(train), nlist, dim)
	}
	var p *C.cf_index
	if err := cerr("new ivf", C.cf_new_ivf_ip(C.int(dim), C.int64_t(nlist), C.int64_t(len(train)/dim),
		(*C.float)(unsafe.Pointer(&train[0])), &p)); err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// SetNProbe sets how many IVF lists a search scans (higher: better recall,
// slower; capped at NList). It is an error on other kinds. Write saves it.
func (x *Index) SetNProbe(nprobe int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.p == nil {
		return ErrClosed
	}
	return cerr("set nprobe", C.cf_set_nprobe(x.p, C.int64_t(nprobe)))
}

// NProbe reports the IVF lists scanned per search, or 0 for other kinds.
func (x *Index) NProbe() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.p == nil {
		return 0
	}
	return int(C.cf_nprobe(x.p))
}

// NList reports the number of IVF lists, or 0 for other kinds.
func (x *Index) NList() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.p == nil {
		return 0
	}
	return int(C.cf_nlist(x.p))
}

// Export returns every id and its stored vector (row after row), in storage
// order: what a rebuild into another kind needs.
func (x *Index) Export() (ids []int64, vecs []float32, err error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.p == nil {
		return nil, nil, ErrClosed
	}
	n := int(C.cf_len(x.p))
	if n == 0 {
		return nil, nil, nil
	}
	ids = make([]int64, n)
	vecs = make([]float32, n*x.dim)
	if err := cerr("export", C.cf_export(x.p, (*C.int64_t)(unsafe.Pointer(&ids[0])),
		(*C.float)(unsafe.Pointer(&vecs[0])))); err != nil {
		return nil, nil, err
	}
	return ids, vecs, nil
}

// Read loads an index written by Write.
func Read(path string) (*Index, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	var p *C.cf_index
	if err := cerr("read "+path, C.cf_read(cpath, &p)); err != nil {
		return nil, err
	}
	return wrap(p), nil
}

// Kind reports the structure under the id map.
func (x *Index) Kind() Kind { return x.kind }

// Dim reports the vector dimension.
func (x *Index) Dim() int { return x.dim }

// Len reports the number of vectors; 0 once closed.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.p == nil {
		return 0
	}
	return int(C.cf_len(x.p))
}

// Contains reports whether id is in the index.
func (x *Index) Contains(id int64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.p != nil && C.cf_contains(x.p, C.int64_t(id)) != 0
}

// IDs returns every id in the index, in storage order.
func (x *Index) IDs() []int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.p == nil {
		return nil
	}
	ids := make([]int64, int(C.cf_len(x.p)))
	if len(ids) > 0 {
		C.cf_ids(x.p, (*C.int64_t)(unsafe.Pointer(&ids[0])))
	}
	return ids
}

// SetEfSearch sets the HNSW search beam width (higher: better recall,
// slower). It is an error on a flat index. The value is saved by Write.
func (x *Index) SetEfSearch(ef int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.p == nil {
		return ErrClosed
	}
	return cerr("set efSearch", C.cf_set_ef_search(x.p, C.int(ef)))
}

// EfSearch reports the HNSW search beam width, or 0 for a flat index.
func (x *Index) EfSearch() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.p == nil {
		return 0
	}
	return int(C.cf_ef_search(x.p))
}

// Add inserts len(ids) vectors stored row after row in vecs. Ids must be
// non-negative, distinct, and not already present; vectors are stored as
// given (normalise them first for cosine similarity).
func (x *Index) Add(ids []int64, vecs []float32) error {
	if len(vecs) != len(ids)*x.dim {
		return fmt.Errorf("faiss: add: %d ids of dim %d need %d floats, got %d",
			len(ids), x.dim, len(ids)*x.dim, len(vecs))
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.p == nil {
		return ErrClosed
	}
	if len(ids) == 0 {
		return nil
	}
	return cerr("add", C.cf_add(x.p, C.int64_t(len(ids)),
		(*C.float)(unsafe.Pointer(&vecs[0])), (*C.int64_t)(unsafe.Pointer(&ids[0]))))
}

// Remove deletes the given ids, ignoring absent ones, and reports how many
// were removed. A flat index compacts in O(Len); remove in batches.
func (x *Index) Remove(ids []int64) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.p == nil {
		return 0, ErrClosed
	}
	if len(ids) == 0 {
		return 0, nil
	}
	var n C.int64_t
	err := cerr("remove", C.cf_remove(x.p, C.int64_t(len(ids)),
		(*C.int64_t)(unsafe.Pointer(&ids[0])), &n))
	return int(n), err
}

// Search returns up to k ids with the highest inner product with q, best
// first, and their scores.
//
// A flat index of 4096 vectors or more is scanned through a 4-bit copy of
// its vectors kept in memory (an eighth of the bytes to read; one quantiser
// per dimension), and the best 2k+128 candidates are re-scored exactly: the
// scores are exact, the candidate set approximate (recall of the top 10
// 1.000, of the top 60 ≥ 0.9997, on random unit vectors up to 1M). From
// 32768 vectors the scan is shared with helper threads (one per further
// core, at most 3). See sq4 in shim.cpp; SearchExact scans the float
// vectors.
func (x *Index) Search(q []float32, k int) (ids []int64, scores []float32, err error) {
	return x.search("search", q, k, nil)
}

// useSQ4Kernel picks the 4-bit scan's kernel (0 auto, 1 scalar, 2 AVX2, 3
// AVX-512 VNNI), so tests cover the ones this CPU would not pick; false if
// the CPU lacks it. Not safe while searches run.
func useSQ4Kernel(k int) bool { return C.cf_sq4_use(C.int(k)) != 0 }

// setSQ4ParallelRows sets the index size from which the 4-bit scan is
// shared with helper threads. Not safe while searches run.
func setSQ4ParallelRows(n int) { C.cf_sq4_parallel_rows(C.int64_t(n)) }

// SearchExact is Search by an exact scan of every stored vector, whatever
// the index's size: the reference the 4-bit scan is measured against.
func (x *Index) SearchExact(q []float32, k int) (ids []int64, scores []float32, err error) {
	return x.search("search exact", q, k, nil)
}

// SearchFiltered is Search restricted to the ids in allow; an empty allow
// list matches nothing. Ids in allow that are not in the index are ignored.
//
// On a flat index the search is exact: FAISS scans with an IDSelectorBatch
// (via SearchParameters on the sub-index, since FAISS 1.7.3's IndexIDMap2
// rejects search parameters). On HNSW a narrow filter (at most a quarter of
// the index, or 4096 ids) is answered by an exact scan of the allowed
// vectors; a wider one filters during the graph walk with a widened beam.
// IVF does the same: a narrow filter is scanned exactly, a wide one filters
// while scanning lists, probing more of them (nprobe × Len/len(allow)).
func (x *Index) SearchFiltered(q []float32, k int, allow []int64) (ids []int64, scores []float32, err error) {
	if allow == nil {
		allow = []int64{}
	}
	return x.search("search filtered", q, k, allow)
}

func (x *Index) search(op string, q []float32, k int, allow []int64) ([]int64, []float32, error) {
	if len(q) != x.dim {
		return nil, nil, fmt.Errorf("faiss: %s: query has dim %d, index %d", op, len(q), x.dim)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.p == nil {
		return nil, nil, ErrClosed
	}
	// FAISS allocates and heap-sorts k results; never ask for more than exist.
	k = min(k, int(C.cf_len(x.p)))
	if allow != nil {
		k = min(k, len(allow))
	}
	if k <= 0 {
		return nil, nil, nil
	}
	ids := make([]int64, k)
	scores := make([]float32, k)
	cq := (*C.float)(unsafe.Pointer(&q[0]))
	cids := (*C.int64_t)(unsafe.Pointer(&ids[0]))
	cscores := (*C.float)(unsafe.Pointer(&scores[0]))
	var msg *C.char
	switch {
	case op == "search exact":
		msg = C.cf_search_exact(x.p, cq, C.int64_t(k), cscores, cids)
	case allow == nil:
		msg = C.cf_search(x.p, cq, C.int64_t(k), cscores, cids)
	default:
		msg = C.cf_search_filtered(x.p, cq, C.int64_t(k),
			(*C.int64_t)(unsafe.Pointer(&allow[0])), C.int64_t(len(allow)), cscores, cids)
	}
	if err := cerr(op, msg); err != nil {
		return nil, nil, err
	}
	// FAISS pads missing results with id -1; drop them in place.
	n := 0
	for i, id := range ids {
		if id < 0 {
			continue
		}
		ids[n], scores[n] = id, scores[i]
		n++
	}
	return ids[:n], scores[:n], nil
}

// Reconstruct returns a copy of the stored vector for id, or ErrNotFound.
func (x *Index) Reconstruct(id int64) ([]float32, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.p == nil {
		return nil, ErrClosed
	}
	out := make([]float32, x.dim)
	var found C.int
	if err := cerr("reconstruct", C.cf_reconstruct(x.p, C.int64_t(id),
		(*C.float)(unsafe.Pointer(&out[0])), &found)); err != nil {
		return nil, err
	}
	if found == 0 {
		return nil, fmt.Errorf("faiss: reconstruct %d: %w", id, ErrNotFound)
	}
	return out, nil
}

// Write saves the index to path (overwriting it) and fsyncs the file. It
// does not rename anything: callers wanting atomic replacement write to a
// temporary name and rename.
func (x *Index) Write(path string) error {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.p == nil {
		return ErrClosed
	}
	return cerr("write "+path, C.cf_write(x.p, cpath))
}

// Close frees the index. It is idempotent; later calls to other methods
// return ErrClosed.
func (x *Index) Close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.p != nil {
		C.cf_free(x.p)
		x.p = nil
	}
}
