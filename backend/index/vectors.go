package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sync"

	"github.com/carrel-app/carrel/backend/crashpoint"
	"github.com/carrel-app/carrel/backend/index/faiss"
)

const (
	vectorsFile = "vectors.faiss"
	sidecarFile = "vectors.json"
	tmpSuffix   = ".tmp"
)

// VectorHit is one dense search result. Score is the cosine similarity.
type VectorHit struct {
	ID    int64
	Score float32
}

// vectorsMeta is the sidecar vectors.json. The FAISS file is authoritative
// for dim and count; the sidecar is the only record of the model.
type vectorsMeta struct {
	Model string `json:"model"`
	Dim   int    `json:"dim"`
	Kind  string `json:"kind"`
	Count int    `json:"count"`
	// NList and NProbe describe an IVF index (kind "ivf").
	NList  int `json:"nlist,omitempty"`
	NProbe int `json:"nprobe,omitempty"`
}

// Vectors is the persistent store of chunk embeddings: an exact
// inner-product FAISS index over L2-normalised vectors, so scores are
// cosine similarities. Past 4096 vectors a search scans a 4-bit copy kept
// in memory (derived at load, never saved) and re-ranks exactly: see Search.
//
// By default it stays flat (exact) at every size. SetIVF makes it switch to
// an IVF index (faiss.IVF) at a size threshold; see SetIVF for why that is
// off by default. HNSW was measured and rejected:
// at 100k×384 on this project's shared 2-core machine (Debian's
// FAISS 1.7.3): flat answers a query in about 11 ms with perfect recall and
// supports removal; HNSW (M=32, efSearch=64) answers in 2.8 ms, but took 7
// CPU-minutes to build, is approximate, needs an exact scan anyway under a
// narrow document scope, and cannot remove vectors in FAISS 1.7.3, so every
// deleted document would force a rebuild. At a personal library's size, flat
// search is a small part of the time an answer takes to generate.
//
// Changes live in memory until Save. Vectors is safe for concurrent use.
type Vectors struct {
	dir string

	saveMu sync.Mutex // serialises Save

	mu       sync.RWMutex
	idx      *faiss.Index // nil until Ensure/Reset, or once closed
	model    string       // "" when unknown (see OpenVectors)
	gen      uint64       // bumped by every change
	savedGen uint64       // gen last written by Save
	closed   bool

	ivfMin    int // switch to IVF at this many vectors; 0: never
	nprobeDiv int // IVF searches probe nlist/nprobeDiv lists
}

// SetIVF makes the store use an IVF index (inverted lists, exact vectors,
// approximate search) once it holds at least minLen vectors, probing
// nlist/nprobeDiv of its nlist ≈ 4·sqrt(N) lists per search; minLen 0 keeps
// it flat. The switch, like every later one, is a rebuild under the write
// lock: about 17 s at 100k×384 on two cores (training on a sample of
// 40·nlist vectors, then assigning all of them). The store retrains when it
// grows past 4× the size it was trained at, and returns to flat below
// minLen/2. Filtered searches over narrow allow lists stay exact.
//
// It is off by default because on the benchmark's vectors it does not pay:
// measured on random unit 384-d vectors at 100k (no cluster structure, the
// worst case for IVF), flat answers in 11 ms, and IVF reaches recall@10 of
// 0.38 at nlist/8 (5.8 ms), 0.59 at nlist/4 (11.8 ms) and 0.81 at nlist/2
// (22.8 ms): its per-list scan is scalar while flat's is one BLAS call.
// Real embeddings cluster, which is where IVF's recall at a small nprobe
// comes from; measure on them before enabling it.
func (v *Vectors) SetIVF(minLen, nprobeDiv int) error {
	if minLen < 0 || (minLen > 0 && nprobeDiv < 1) {
		return fmt.Errorf("index: set ivf: bad minLen %d or nprobeDiv %d", minLen, nprobeDiv)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return ErrClosed
	}
	v.ivfMin, v.nprobeDiv = minLen, nprobeDiv
	if v.idx != nil && v.idx.Kind() == faiss.IVF {
		if err := v.idx.SetNProbe(max(1, v.idx.NList()/max(1, nprobeDiv))); err != nil {
			return fmt.Errorf("index: set ivf: %w", err)
		}
		v.gen++
	}
	return v.rebalance()
}

// ivfLists is the IVF list count for n vectors.
func ivfLists(n int) int { return max(1, int(4*math.Sqrt(float64(n)))) }

// rebalance rebuilds the index into the kind its size calls for (see
// SetIVF). The caller holds v.mu for writing. On failure the old index is
// kept, so the store stays usable.
func (v *Vectors) rebalance() error {
	if v.idx == nil {
		return nil
	}
	n, kind := v.idx.Len(), v.idx.Kind()
	var want faiss.Kind
	switch {
	case kind == faiss.IVF && (v.ivfMin == 0 || n < v.ivfMin/2):
		want = faiss.Flat
	case kind == faiss.IVF && n > 4*(v.idx.NList()/4)*(v.idx.NList()/4):
		want = faiss.IVF // grown 4× past its training size: retrain
	case kind == faiss.Flat && v.ivfMin > 0 && n >= v.ivfMin:
		want = faiss.IVF
	default:
		return nil
	}
	ids, vecs, err := v.idx.Export()
	if err != nil {
		return fmt.Errorf("index: rebuild vectors: %w", err)
	}
	dim := v.idx.Dim()
	var next *faiss.Index
	if want == faiss.Flat {
		next, err = faiss.NewFlatIP(dim)
	} else {
		nlist := ivfLists(n)
		// Train on an evenly spread sample of 40 vectors per list.
		m := min(n, 40*nlist)
		train := make([]float32, 0, m*dim)
		for i := range m {
			r := int(int64(i) * int64(n) / int64(m))
			train = append(train, vecs[r*dim:(r+1)*dim]...)
		}
		next, err = faiss.NewIVF(dim, nlist, train)
		if err == nil {
			err = next.SetNProbe(max(1, nlist/v.nprobeDiv))
		}
	}
	if err == nil {
		err = next.Add(ids, vecs)
	}
	if err != nil {
		if next != nil {
			next.Close()
		}
		return fmt.Errorf("index: rebuild vectors as %v: %w", want, err)
	}
	v.idx.Close()
	v.idx = next
	v.gen++
	return nil
}

// OpenVectors opens the vector store in dir, creating dir if needed, and
// loads dir/vectors.faiss and its sidecar dir/vectors.json when present.
//
// Leftover *.tmp files from an interrupted Save are deleted: the previous
// files are still complete. If a crash fell between the two renames of Save,
// the index file is newer than the sidecar; the index wins, and the model is
// kept if the dimensions agree (the sidecar is rewritten at the next Save).
// If the model cannot be trusted, Model reports "" and the next Ensure adopts
// the model it is given when the dimension matches.
func OpenVectors(dir string) (*Vectors, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("index: open vectors: %w", err)
	}
	for _, name := range []string{vectorsFile + tmpSuffix, sidecarFile + tmpSuffix} {
		// Looked for first: on a read-only disk removing a missing file fails too.
		if _, err := os.Lstat(filepath.Join(dir, name)); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("index: open vectors: remove stale %s: %w", name, err)
		}
	}
	v := &Vectors{dir: dir}

	var meta *vectorsMeta
	data, err := os.ReadFile(filepath.Join(dir, sidecarFile))
	switch {
	case err == nil:
		meta = new(vectorsMeta)
		if err := json.Unmarshal(data, meta); err != nil {
			return nil, fmt.Errorf("index: open vectors: parse %s: %w", sidecarFile, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("index: open vectors: %w", err)
	}

	path := filepath.Join(dir, vectorsFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		// No vectors were ever saved (a lone sidecar describes nothing).
		return v, nil
	} else if err != nil {
		return nil, fmt.Errorf("index: open vectors: %w", err)
	}
	idx, err := faiss.Read(path)
	if err != nil {
		return nil, fmt.Errorf("index: open vectors: %w", err)
	}
	if idx.Kind() != faiss.Flat && idx.Kind() != faiss.IVF {
		idx.Close()
		return nil, fmt.Errorf("index: open vectors: %s holds a %v index, want flat or ivf", vectorsFile, idx.Kind())
	}
	v.idx = idx
	if meta != nil && meta.Dim == idx.Dim() {
		v.model = meta.Model
	}
	if meta == nil || meta.Model != v.model || meta.Count != idx.Len() || meta.Kind != idx.Kind().String() {
		v.gen = 1 // the sidecar is stale: the next Save rewrites it
	}
	return v, nil
}

// Ensure makes the store ready for embeddings of the given model and
// dimension, creating an empty index on first use. If the store holds
// vectors of another model or dimension, it returns an error wrapping
// ErrModelMismatch that names both; use Reset to start over.
func (v *Vectors) Ensure(model string, dim int) error {
	if model == "" || dim <= 0 {
		return fmt.Errorf("index: ensure vectors: need a model name and a positive dim, got %q, %d", model, dim)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return ErrClosed
	}
	switch {
	case v.idx == nil:
		idx, err := faiss.NewFlatIP(dim)
		if err != nil {
			return fmt.Errorf("index: ensure vectors: %w", err)
		}
		v.idx, v.model = idx, model
		v.gen++
	case v.idx.Dim() != dim || (v.model != "" && v.model != model):
		shown := v.model
		if shown == "" {
			shown = "unknown model"
		}
		return fmt.Errorf("%w: index holds %q (dim %d), asked for %q (dim %d)",
			ErrModelMismatch, shown, v.idx.Dim(), model, dim)
	case v.model == "":
		v.model = model
		v.gen++
	}
	return nil
}

// Reset discards every vector and starts an empty index for model and dim,
// as after a change of embedding model. The files on disk are replaced at
// the next Save.
func (v *Vectors) Reset(model string, dim int) error {
	if model == "" || dim <= 0 {
		return fmt.Errorf("index: reset vectors: need a model name and a positive dim, got %q, %d", model, dim)
	}
	idx, err := faiss.NewFlatIP(dim)
	if err != nil {
		return fmt.Errorf("index: reset vectors: %w", err)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		idx.Close()
		return ErrClosed
	}
	if v.idx != nil {
		v.idx.Close()
	}
	v.idx, v.model = idx, model
	v.gen++
	return nil
}

// Add stores one vector per id. The vectors are copied and L2-normalised,
// so later inner products are cosine similarities. Adding an id that is
// already present replaces its vector, which makes replaying an interrupted
// ingest harmless.
func (v *Vectors) Add(ids []int64, vecs [][]float32) error {
	if len(ids) != len(vecs) {
		return fmt.Errorf("index: add vectors: %d ids but %d vectors", len(ids), len(vecs))
	}
	if len(ids) == 0 {
		return nil
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return ErrClosed
	}
	if v.idx == nil {
		return fmt.Errorf("index: add vectors: %w", ErrNoModel)
	}
	dim := v.idx.Dim()
	flat := make([]float32, 0, len(ids)*dim)
	seen := make(map[int64]struct{}, len(ids))
	var present []int64
	for i, vec := range vecs {
		id := ids[i]
		if id < 0 {
			return fmt.Errorf("index: add vectors: negative id %d", id)
		}
		if _, dup := seen[id]; dup {
			return fmt.Errorf("index: add vectors: id %d repeated", id)
		}
		seen[id] = struct{}{}
		if len(vec) != dim {
			return fmt.Errorf("index: add vectors: id %d has dim %d, want %d", id, len(vec), dim)
		}
		n, err := appendNormalized(flat, vec)
		if err != nil {
			return fmt.Errorf("index: add vectors: id %d: %w", id, err)
		}
		flat = n
		if v.idx.Contains(id) {
			present = append(present, id)
		}
	}
	// Everything is validated, so the add below cannot fail on input after
	// the old copies are gone.
	if len(present) > 0 {
		if _, err := v.idx.Remove(present); err != nil {
			return fmt.Errorf("index: add vectors: replace: %w", err)
		}
		v.gen++
	}
	if err := v.idx.Add(ids, flat); err != nil {
		return fmt.Errorf("index: add vectors: %w", err)
	}
	v.gen++
	// The vectors are in; a failed rebuild leaves them in the old index.
	return v.rebalance()
}

// appendNormalized appends vec scaled to unit length to dst.
func appendNormalized(dst, vec []float32) ([]float32, error) {
	var s float64
	for _, f := range vec {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return dst, errors.New("vector has NaN or Inf")
		}
		s += float64(f) * float64(f)
	}
	if s == 0 {
		return dst, errors.New("zero vector")
	}
	inv := 1 / math.Sqrt(s)
	for _, f := range vec {
		dst = append(dst, float32(float64(f)*inv))
	}
	return dst, nil
}

// Remove deletes the vectors of ids; absent ids are ignored.
func (v *Vectors) Remove(ids []int64) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.closed {
		return ErrClosed
	}
	if v.idx == nil || len(ids) == 0 {
		return nil
	}
	n, err := v.idx.Remove(ids)
	if err != nil {
		return fmt.Errorf("index: remove vectors: %w", err)
	}
	if n > 0 {
		v.gen++
	}
	return v.rebalance()
}

// Search returns up to k ids most similar to q, best first. A nil allow
// searches everything; a non-nil allow restricts the search to those ids
// (an empty one matches nothing). An empty store returns no hits.
//
// An unrestricted search of a flat store of 4096 vectors or more ranks
// every vector through a 4-bit copy and re-scores the best 2k+128 exactly
// (faiss.Index.Search): scores are exact, and the top 10 agree with an
// exact scan at recall ≥ 0.999 on random vectors (see SearchExact).
func (v *Vectors) Search(q []float32, k int, allow []int64) ([]VectorHit, error) {
	return v.search(q, k, allow, false)
}

// SearchExact is Search by an exact scan of every float vector: the
// reference the 4-bit scan is measured against.
func (v *Vectors) SearchExact(q []float32, k int) ([]VectorHit, error) {
	return v.search(q, k, nil, true)
}

func (v *Vectors) search(q []float32, k int, allow []int64, exact bool) ([]VectorHit, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.closed {
		return nil, ErrClosed
	}
	if v.idx == nil || k <= 0 {
		return nil, nil
	}
	if len(q) != v.idx.Dim() {
		return nil, fmt.Errorf("index: search vectors: query has dim %d, want %d", len(q), v.idx.Dim())
	}
	nq, err := appendNormalized(make([]float32, 0, len(q)), q)
	if err != nil {
		return nil, fmt.Errorf("index: search vectors: query: %w", err)
	}
	var (
		ids    []int64
		scores []float32
	)
	switch {
	case exact:
		ids, scores, err = v.idx.SearchExact(nq, k)
	case allow == nil:
		ids, scores, err = v.idx.Search(nq, k)
	default:
		ids, scores, err = v.idx.SearchFiltered(nq, k, allow)
	}
	if err != nil {
		return nil, fmt.Errorf("index: search vectors: %w", err)
	}
	hits := make([]VectorHit, len(ids))
	for i := range ids {
		hits[i] = VectorHit{ID: ids[i], Score: scores[i]}
	}
	return hits, nil
}

// Vector returns the stored (normalised) vector of id.
func (v *Vectors) Vector(id int64) ([]float32, error) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.closed {
		return nil, ErrClosed
	}
	if v.idx == nil {
		return nil, fmt.Errorf("index: vector %d: %w", id, faiss.ErrNotFound)
	}
	vec, err := v.idx.Reconstruct(id)
	if err != nil {
		return nil, fmt.Errorf("index: vector %d: %w", id, err)
	}
	return vec, nil
}

// IDs returns every stored id, for reconciling with SQLite after a crash.
func (v *Vectors) IDs() []int64 {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.idx == nil {
		return nil
	}
	return v.idx.IDs()
}

// Len reports the number of stored vectors.
func (v *Vectors) Len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.idx == nil {
		return 0
	}
	return v.idx.Len()
}

// Model reports the embedding model, or "" if none is known yet.
func (v *Vectors) Model() string {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.model
}

// Dim reports the vector dimension, or 0 before Ensure.
func (v *Vectors) Dim() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.idx == nil {
		return 0
	}
	return v.idx.Dim()
}

// Save writes the store to disk if it changed since the last Save. It is
// crash-safe: the index goes to vectors.faiss.tmp, is fsynced and renamed
// over vectors.faiss, then the sidecar is replaced the same way, so a kill at
// any moment leaves a complete index on disk. Searches continue during Save;
// changes wait for it.
func (v *Vectors) Save() error {
	v.saveMu.Lock()
	defer v.saveMu.Unlock()

	v.mu.RLock()
	if v.closed {
		v.mu.RUnlock()
		return ErrClosed
	}
	if v.idx == nil || v.gen == v.savedGen {
		v.mu.RUnlock()
		return nil
	}
	gen := v.gen
	meta := vectorsMeta{Model: v.model, Dim: v.idx.Dim(), Kind: v.idx.Kind().String(), Count: v.idx.Len(),
		NList: v.idx.NList(), NProbe: v.idx.NProbe()}
	tmp := filepath.Join(v.dir, vectorsFile+tmpSuffix)
	err := v.idx.Write(tmp)
	v.mu.RUnlock()
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("index: save vectors: %w", err)
	}
	crashpoint.Hit("vectors.tmp")
	if err := renameDurable(tmp, filepath.Join(v.dir, vectorsFile)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("index: save vectors: %w", err)
	}
	crashpoint.Hit("vectors.renamed")

	data, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return fmt.Errorf("index: save vectors: %w", err)
	}
	tmp = filepath.Join(v.dir, sidecarFile+tmpSuffix)
	if err := writeFileSync(tmp, append(data, '\n')); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("index: save vectors: %w", err)
	}
	if err := renameDurable(tmp, filepath.Join(v.dir, sidecarFile)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("index: save vectors: %w", err)
	}

	v.mu.Lock()
	v.savedGen = max(v.savedGen, gen)
	v.mu.Unlock()
	return nil
}

// Close frees the index without saving; call Save first to keep changes.
// It is idempotent.
func (v *Vectors) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.idx != nil {
		v.idx.Close()
		v.idx = nil
	}
	v.closed = true
	return nil
}
