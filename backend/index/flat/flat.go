// Package flat is an exact inner-product vector index in pure Go: the same
// results as FAISS's IndexIDMap2 over IndexFlatIP, and the same file format.
//
// It is what Carrel's vector store runs on where the FAISS binding is not
// built (Windows, or the nofaiss build tag; see backend/index/faiss). Every
// search scans every stored vector, so it returns exactly the neighbours and
// scores an exact FAISS scan returns (scores agree to float32 rounding; the
// sum order differs from BLAS). Large indexes share the scan among up to four
// goroutines.
//
// Write produces, and Read accepts, FAISS's own serialisation of an
// IndexIDMap2 wrapping an IndexFlatIP ("IxM2" then "IxFI", little-endian), so
// a library's vectors.faiss moves between a FAISS build and this one.
//
// An Index is safe for concurrent use: searches run in parallel, mutations
// are exclusive.
package flat

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
)

var (
	// ErrClosed is returned by every method of a closed Index.
	ErrClosed = errors.New("flat: index closed")
	// ErrNotFound is returned by Reconstruct for an id not in the index.
	ErrNotFound = errors.New("flat: id not found")
)

// Index maps int64 ids to vectors and finds those with the highest inner
// product with a query. Create one with New or Read.
type Index struct {
	mu     sync.RWMutex
	dim    int
	vecs   []float32       // row after row, in storage (insertion) order
	ids    []int64         // ids[i] is the id of row i
	pos    map[int64]int32 // id → row
	closed bool
}

// New returns an empty index of dimension dim.
func New(dim int) (*Index, error) {
	if dim <= 0 {
		return nil, fmt.Errorf("flat: new: dimension %d must be positive", dim)
	}
	return &Index{dim: dim, pos: map[int64]int32{}}, nil
}

// Dim reports the vector dimension.
func (x *Index) Dim() int { return x.dim }

// Len reports the number of vectors; 0 once closed.
func (x *Index) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.ids)
}

// Contains reports whether id is in the index.
func (x *Index) Contains(id int64) bool {
	x.mu.RLock()
	defer x.mu.RUnlock()
	_, ok := x.pos[id]
	return ok
}

// IDs returns every id in storage order.
func (x *Index) IDs() []int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		return nil
	}
	return slices.Clone(x.ids)
}

// Export returns every id and its vector (row after row) in storage order.
func (x *Index) Export() (ids []int64, vecs []float32, err error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		return nil, nil, ErrClosed
	}
	if len(x.ids) == 0 {
		return nil, nil, nil
	}
	return slices.Clone(x.ids), slices.Clone(x.vecs), nil
}

// Add appends len(ids) vectors stored row after row in vecs. Ids must be
// non-negative, distinct and not yet present; nothing is added otherwise.
// Vectors are stored as given (normalise them for cosine similarity).
func (x *Index) Add(ids []int64, vecs []float32) error {
	if len(vecs) != len(ids)*x.dim {
		return fmt.Errorf("flat: add: %d ids of dim %d need %d floats, got %d",
			len(ids), x.dim, len(ids)*x.dim, len(vecs))
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return ErrClosed
	}
	if len(x.ids)+len(ids) > math.MaxInt32 {
		return fmt.Errorf("flat: add: more than %d vectors", math.MaxInt32)
	}
	seen := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		if id < 0 {
			return fmt.Errorf("flat: add: negative id %d", id)
		}
		if _, ok := x.pos[id]; ok {
			return fmt.Errorf("flat: add: id %d already present", id)
		}
		if _, ok := seen[id]; ok {
			return fmt.Errorf("flat: add: id %d repeated", id)
		}
		seen[id] = struct{}{}
	}
	for i, id := range ids {
		x.pos[id] = int32(len(x.ids) + i)
	}
	x.ids = append(x.ids, ids...)
	x.vecs = append(x.vecs, vecs...)
	return nil
}

// Remove deletes the given ids, ignoring absent ones, and reports how many
// were removed. The remaining rows keep their order, as in FAISS.
func (x *Index) Remove(ids []int64) (int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return 0, ErrClosed
	}
	drop := make(map[int64]struct{}, len(ids))
	for _, id := range ids {
		if _, ok := x.pos[id]; ok {
			drop[id] = struct{}{}
		}
	}
	if len(drop) == 0 {
		return 0, nil
	}
	d, j := x.dim, 0
	for i, id := range x.ids {
		if _, gone := drop[id]; gone {
			delete(x.pos, id)
			continue
		}
		if i != j {
			x.ids[j] = id
			copy(x.vecs[j*d:(j+1)*d], x.vecs[i*d:(i+1)*d])
			x.pos[id] = int32(j)
		}
		j++
	}
	x.ids = x.ids[:j]
	x.vecs = x.vecs[:j*d]
	return len(drop), nil
}

// Reconstruct returns a copy of the stored vector of id, or ErrNotFound.
func (x *Index) Reconstruct(id int64) ([]float32, error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		return nil, ErrClosed
	}
	r, ok := x.pos[id]
	if !ok {
		return nil, fmt.Errorf("flat: reconstruct %d: %w", id, ErrNotFound)
	}
	return slices.Clone(x.vecs[int(r)*x.dim : (int(r)+1)*x.dim]), nil
}

// Close frees the vectors. It is idempotent; later calls to other methods
// return ErrClosed (or nothing, for those without an error).
func (x *Index) Close() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.closed = true
	x.vecs, x.ids, x.pos = nil, nil, map[int64]int32{}
}

// parallelRows is the size from which a search is split among goroutines:
// below it the fork and merge cost more than the scan (about 1 ms at
// 32768×384 on one core).
const parallelRows = 32768

// Search returns up to k ids with the highest inner product with q, best
// first, and their scores. Ties keep storage order.
func (x *Index) Search(q []float32, k int) (ids []int64, scores []float32, err error) {
	if len(q) != x.dim {
		return nil, nil, fmt.Errorf("flat: search: query has dim %d, index %d", len(q), x.dim)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		return nil, nil, ErrClosed
	}
	n := len(x.ids)
	k = min(k, n)
	if k <= 0 {
		return nil, nil, nil
	}
	parts := 1
	if n >= parallelRows {
		parts = min(runtime.GOMAXPROCS(0), 4, n/(parallelRows/2))
	}
	tops := make([]topK, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		tops[p] = topK{k: k}
		scan := func() {
			t := &tops[p]
			for r := lo; r < hi; r++ {
				t.offer(dot(q, x.vecs[r*x.dim:(r+1)*x.dim]), int32(r))
			}
		}
		if p == parts-1 {
			scan() // the caller's goroutine takes the last part
			continue
		}
		wg.Go(scan)
	}
	wg.Wait()
	for p := 1; p < parts; p++ {
		for _, c := range tops[p].h {
			tops[0].offer(c.score, c.row)
		}
	}
	return x.results(tops[0])
}

// SearchFiltered is Search restricted to the ids in allow; an empty allow
// list matches nothing, and ids not in the index are ignored.
func (x *Index) SearchFiltered(q []float32, k int, allow []int64) (ids []int64, scores []float32, err error) {
	if len(q) != x.dim {
		return nil, nil, fmt.Errorf("flat: search filtered: query has dim %d, index %d", len(q), x.dim)
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		return nil, nil, ErrClosed
	}
	k = min(k, len(x.ids), len(allow))
	if k <= 0 {
		return nil, nil, nil
	}
	t := topK{k: k}
	seen := make(map[int32]struct{}, len(allow))
	for _, id := range allow {
		r, ok := x.pos[id]
		if !ok {
			continue
		}
		if _, dup := seen[r]; dup {
			continue
		}
		seen[r] = struct{}{}
		t.offer(dot(q, x.vecs[int(r)*x.dim:(int(r)+1)*x.dim]), r)
	}
	return x.results(t)
}

// results turns a top-k into ids and scores, best first; the caller holds
// x.mu.
func (x *Index) results(t topK) ([]int64, []float32, error) {
	slices.SortFunc(t.h, func(a, b cand) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.row, b.row)
	})
	ids := make([]int64, len(t.h))
	scores := make([]float32, len(t.h))
	for i, c := range t.h {
		ids[i], scores[i] = x.ids[c.row], c.score
	}
	return ids, scores, nil
}

type cand struct {
	score float32
	row   int32
}

// topK keeps the k best candidates in a min-heap whose root is the worst
// kept: a worse-ranked candidate (lower score, or equal score and later
// row) is rejected by one comparison.
type topK struct {
	k int
	h []cand
}

func (t *topK) Len() int { return len(t.h) }
func (t *topK) Less(i, j int) bool {
	a, b := t.h[i], t.h[j]
	return a.score < b.score || (a.score == b.score && a.row > b.row)
}
func (t *topK) Swap(i, j int) { t.h[i], t.h[j] = t.h[j], t.h[i] }
func (t *topK) Push(v any)    { t.h = append(t.h, v.(cand)) }
func (t *topK) Pop() any {
	v := t.h[len(t.h)-1]
	t.h = t.h[:len(t.h)-1]
	return v
}

func (t *topK) offer(score float32, row int32) {
	if len(t.h) < t.k {
		heap.Push(t, cand{score, row})
		return
	}
	w := t.h[0]
	if score < w.score || (score == w.score && row > w.row) {
		return
	}
	t.h[0] = cand{score, row}
	heap.Fix(t, 0)
}

// dot is the inner product of two equal-length vectors, summed in eight
// float32 lanes (fewer dependent adds; 2.4× a single accumulator here).
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3, s4, s5, s6, s7 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa, bb := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += aa[0] * bb[0]
		s1 += aa[1] * bb[1]
		s2 += aa[2] * bb[2]
		s3 += aa[3] * bb[3]
		s4 += aa[4] * bb[4]
		s5 += aa[5] * bb[5]
		s6 += aa[6] * bb[6]
		s7 += aa[7] * bb[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

// FAISS serialisation (faiss/impl/index_write.cpp, stable from 1.5 through
// 1.9): a fourcc, the index header, then the sub-index and the id map.
const (
	fourIDMap2  = "IxM2"
	fourFlatIP  = "IxFI"
	metricIP    = 0       // faiss::METRIC_INNER_PRODUCT (METRIC_L2 is 1)
	headerDummy = 1 << 20 // two int64s FAISS writes and ignores
)

// header is faiss::write_index_header: d, ntotal, two dummies, is_trained,
// metric type.
type header struct {
	D         int32
	NTotal    int64
	Dummy1    int64
	Dummy2    int64
	IsTrained uint8
	Metric    int32
}

// Write saves the index to path in FAISS's format (overwriting it) and
// fsyncs the file. It does not rename anything: callers wanting atomic
// replacement write to a temporary name and rename.
func (x *Index) Write(path string) error {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if x.closed {
		return ErrClosed
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("flat: write: %w", err)
	}
	if err := x.encode(f); err != nil {
		f.Close()
		return fmt.Errorf("flat: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("flat: write %s: sync: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("flat: write %s: close: %w", path, err)
	}
	return nil
}

func (x *Index) encode(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	n := int64(len(x.ids))
	h := header{D: int32(x.dim), NTotal: n, Dummy1: headerDummy, Dummy2: headerDummy, IsTrained: 1, Metric: metricIP}
	le := binary.LittleEndian
	for _, v := range []any{[]byte(fourIDMap2), h, []byte(fourFlatIP), h, uint64(len(x.vecs))} {
		if err := binary.Write(bw, le, v); err != nil {
			return err
		}
	}
	if err := writeChunked(bw, x.vecs); err != nil {
		return err
	}
	if err := binary.Write(bw, le, uint64(n)); err != nil {
		return err
	}
	if err := writeChunked(bw, x.ids); err != nil {
		return err
	}
	return bw.Flush()
}

// ioChunk bounds the temporary buffer binary.Read and binary.Write allocate
// (they encode a whole slice at once: 150 MB for 100k×384).
const ioChunk = 1 << 16

func writeChunked[T float32 | int64](w io.Writer, s []T) error {
	for len(s) > 0 {
		c := s[:min(len(s), ioChunk)]
		if err := binary.Write(w, binary.LittleEndian, c); err != nil {
			return err
		}
		s = s[len(c):]
	}
	return nil
}

func readChunked[T float32 | int64](r io.Reader, s []T) error {
	for len(s) > 0 {
		c := s[:min(len(s), ioChunk)]
		if err := binary.Read(r, binary.LittleEndian, c); err != nil {
			return err
		}
		s = s[len(c):]
	}
	return nil
}

// Read loads an index written by Write or by FAISS's write_index of an
// IndexIDMap2 over an IndexFlatIP. Other FAISS index types are refused with
// an error naming them.
func Read(path string) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("flat: read: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("flat: read: %w", err)
	}
	x, err := decode(bufio.NewReaderSize(f, 1<<20), st.Size())
	if err != nil {
		return nil, fmt.Errorf("flat: read %s: %w", path, err)
	}
	return x, nil
}

// faissKinds names the fourccs of FAISS indexes this package cannot read,
// for the error message.
var faissKinds = map[string]string{
	"IxMp": "IndexIDMap", "IwFl": "IndexIVFFlat", "IHNf": "IndexHNSWFlat",
	"IxF2": "IndexFlatL2", "IwPQ": "IndexIVFPQ", "IxSQ": "IndexScalarQuantizer",
}

func decode(r io.Reader, size int64) (*Index, error) {
	le := binary.LittleEndian
	four := func(want string) error {
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return err
		}
		if got := string(b[:]); got != want {
			if name, ok := faissKinds[got]; ok {
				return fmt.Errorf("a FAISS %s, not an %s over an IndexFlatIP (only FAISS builds read it)", name, "IndexIDMap2")
			}
			return fmt.Errorf("not a FAISS flat index (fourcc %q, want %q)", got, want)
		}
		return nil
	}
	var top, sub header
	if err := four(fourIDMap2); err != nil {
		return nil, err
	}
	if err := binary.Read(r, le, &top); err != nil {
		return nil, err
	}
	if err := four(fourFlatIP); err != nil {
		return nil, err
	}
	if err := binary.Read(r, le, &sub); err != nil {
		return nil, err
	}
	if top.Metric != metricIP || sub.Metric != metricIP {
		return nil, fmt.Errorf("metric %d/%d is not inner product", top.Metric, sub.Metric)
	}
	if top.D <= 0 || top.D != sub.D || top.NTotal < 0 || top.NTotal != sub.NTotal {
		return nil, fmt.Errorf("inconsistent header: d %d/%d, ntotal %d/%d", top.D, sub.D, top.NTotal, sub.NTotal)
	}
	d, n := int64(top.D), top.NTotal
	// Refuse counts the file cannot hold before allocating for them.
	if n*(d*4+8) > size || n > math.MaxInt32 {
		return nil, fmt.Errorf("header claims %d vectors of dim %d, more than the file's %d bytes hold", n, d, size)
	}
	var nf uint64
	if err := binary.Read(r, le, &nf); err != nil {
		return nil, err
	}
	if nf != uint64(n*d) {
		return nil, fmt.Errorf("%d floats stored for %d vectors of dim %d", nf, n, d)
	}
	x := &Index{dim: int(d), vecs: make([]float32, nf), ids: make([]int64, n), pos: make(map[int64]int32, n)}
	if err := readChunked(r, x.vecs); err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	var ni uint64
	if err := binary.Read(r, le, &ni); err != nil {
		return nil, err
	}
	if ni != uint64(n) {
		return nil, fmt.Errorf("%d ids stored for %d vectors", ni, n)
	}
	if err := readChunked(r, x.ids); err != nil {
		return nil, fmt.Errorf("ids: %w", err)
	}
	for i, id := range x.ids {
		if _, dup := x.pos[id]; dup {
			return nil, fmt.Errorf("id %d stored twice", id)
		}
		x.pos[id] = int32(i)
	}
	return x, nil
}
