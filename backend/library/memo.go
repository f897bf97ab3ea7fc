package library

import (
	"context"
	"fmt"
	"math"
	"sync"
)

// memo keeps in memory what a search reads of the library, so that a query does not go
// to SQLite: which parent each child belongs to, which parents exist, the parents read
// lately, documents and counts. At a million children the map and the set take about
// 4.5 MB; the parents kept are capped by size (maxMemoText).
//
// Every write that changes what it holds updates it while holding mu across its commit
// (see Library.write), so a search never sees a state older than the last committed
// write. It assumes the library is written only through this Library, as the engine
// does (one process owns a library folder).
type memo struct {
	mu sync.RWMutex // guards the fields up to cmu; writers hold it across their commit
	// loaded says parentOf and live describe the database; until then (and after a
	// failed load) readers load them.
	loaded bool
	// parentOf is, by child seq, the seq of its parent, noParent for a child that is
	// its own passage (a library from before parents), or 0 for no such child. uint32
	// halves the map; a library whose seqs outgrow it is read from SQLite (huge).
	parentOf []uint32
	live     []uint64 // bit set of the parents' seqs
	huge     bool

	// Parents' rows are never updated (a re-chunked document gets new seqs, which
	// AUTOINCREMENT never reuses), so a kept parent is current while live says it exists.
	cmu       sync.Mutex
	parents   map[int64]Chunk
	textBytes int
	docs      map[string]Document // cleared by every write to documents or their chunks
	// seqs are documents' children's seqs (Seqs, a scoped search's allow list), by
	// document; cleared by every write of passages, and read and filled under mu.
	seqs     map[string][]int64
	seqsN    int
	counts   [2]int
	countsOK bool
	// gen counts those clearings: a reader keeps a document or the counts it read
	// only if no clearing happened since it looked, so a row read before a write is
	// never kept after it.
	gen uint64
}

const (
	noParent = math.MaxUint32
	// maxMemoText caps the text of the parents kept (about 16000 passages of 2 KB);
	// reaching it drops a quarter of them, at random.
	maxMemoText = 32 << 20
)

// load reads the child→parent map and the set of parents. The caller holds mu.
func (m *memo) load(ctx context.Context, l *Library) error {
	m.loaded, m.huge, m.parentOf, m.live = false, false, nil, nil
	var maxChild, maxParent int64
	if err := l.db.QueryRowContext(ctx, `SELECT COALESCE((SELECT max(seq) FROM chunks), 0), COALESCE((SELECT max(seq) FROM parents), 0)`).
		Scan(&maxChild, &maxParent); err != nil {
		return fmt.Errorf("map passages: %w", err)
	}
	if maxChild >= noParent || maxParent >= noParent {
		m.huge, m.loaded = true, true
		return nil
	}
	parentOf := make([]uint32, maxChild+1, maxChild+1+maxChild/8)
	rows, err := l.db.QueryContext(ctx, `SELECT seq, COALESCE(parent_seq, 0) FROM chunks`)
	if err != nil {
		return fmt.Errorf("map passages: %w", err)
	}
	for rows.Next() {
		var s, p int64
		if err := rows.Scan(&s, &p); err != nil {
			rows.Close()
			return fmt.Errorf("map passages: %w", err)
		}
		if s > maxChild { // written since the max was read: the map grows as on a write
			parentOf = grow(parentOf, s)
		}
		parentOf[s] = parentCode(p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("map passages: %w", err)
	}
	live := make([]uint64, maxParent/64+1)
	rows, err = l.db.QueryContext(ctx, `SELECT seq FROM parents`)
	if err != nil {
		return fmt.Errorf("map passages: %w", err)
	}
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return fmt.Errorf("map passages: %w", err)
		}
		live = setBit(live, s, true)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("map passages: %w", err)
	}
	m.parentOf, m.live, m.loaded = parentOf, live, true
	return nil
}

func parentCode(p int64) uint32 {
	if p == 0 {
		return noParent
	}
	return uint32(p)
}

func grow(s []uint32, i int64) []uint32 {
	for int64(len(s)) <= i {
		s = append(s, 0)
	}
	return s
}

func setBit(b []uint64, i int64, on bool) []uint64 {
	for int64(len(b)) <= i/64 {
		b = append(b, 0)
	}
	if on {
		b[i/64] |= 1 << (i % 64)
	} else {
		b[i/64] &^= 1 << (i % 64)
	}
	return b
}

func (m *memo) isLive(p int64) bool {
	return p > 0 && p/64 < int64(len(m.live)) && m.live[p/64]&(1<<(p%64)) != 0
}

// change is what one write did to the passages: children and parents removed (by seq)
// and added.
type change struct {
	goneChildren, goneParents []int64
	added                     []Parent
}

// apply records a committed change. The caller holds mu.
func (m *memo) apply(c change) {
	m.forgetDocs()
	m.cmu.Lock()
	m.seqs, m.seqsN = nil, 0
	m.cmu.Unlock()
	if !m.loaded || m.huge {
		return
	}
	for _, s := range c.goneChildren {
		if s < int64(len(m.parentOf)) {
			m.parentOf[s] = 0
		}
	}
	for _, s := range c.goneParents {
		m.live = setBit(m.live, s, false)
	}
	for _, p := range c.added {
		if p.Seq == 0 { // a repeated parent, not stored
			continue
		}
		if p.Seq >= noParent {
			m.loaded = false
			return
		}
		m.live = setBit(m.live, p.Seq, true)
		for _, ch := range p.Children {
			if ch.Seq >= noParent {
				m.loaded = false
				return
			}
			m.parentOf = grow(m.parentOf, ch.Seq)
			m.parentOf[ch.Seq] = parentCode(ch.ParentSeq)
		}
	}
}

// commit commits tx and records what it changed in the memo, with searches held off
// between the two.
func (l *Library) commit(tx interface{ Commit() error }, c change) error {
	l.memo.mu.Lock()
	defer l.memo.mu.Unlock()
	if err := tx.Commit(); err != nil {
		return err
	}
	l.memo.apply(c)
	return nil
}

// forgetDocs drops the documents and counts kept, after a write to them. It does not
// take mu: a write to documents alone runs without it, since holding mu while waiting
// for SQLite's write lock would deadlock with a passage write, which holds that lock
// while it waits for mu to commit (see commit); gen keeps readers from re-keeping rows
// read before the write.
func (m *memo) forgetDocs() {
	m.cmu.Lock()
	m.docs, m.countsOK = nil, false
	m.gen++
	m.cmu.Unlock()
}

// readMap runs fn with the loaded map under mu's read lock.
func (l *Library) readMap(ctx context.Context, fn func(m *memo)) error {
	m := &l.memo
	m.mu.RLock()
	if !m.loaded {
		m.mu.RUnlock()
		m.mu.Lock()
		if !m.loaded {
			if err := m.load(ctx, l); err != nil {
				m.mu.Unlock()
				return err
			}
		}
		m.mu.Unlock()
		m.mu.RLock()
	}
	defer m.mu.RUnlock()
	fn(m)
	return nil
}

// PassagesOf returns the parent of each child in seqs: out[i] is the seq of seqs[i]'s
// parent, 0 for a child that is its own passage (a library from before parents), or -1
// for a seq the library does not hold. It reads memory, not SQLite, once the map is
// loaded (on the first call after Open).
func (l *Library) PassagesOf(ctx context.Context, seqs []int64) ([]int64, error) {
	out := make([]int64, len(seqs))
	huge := false
	err := l.readMap(ctx, func(m *memo) {
		if m.huge {
			huge = true
			return
		}
		for i, s := range seqs {
			var c uint32
			if s > 0 && s < int64(len(m.parentOf)) {
				c = m.parentOf[s]
			}
			switch c {
			case 0:
				out[i] = -1
			case noParent:
				out[i] = 0
			default:
				out[i] = int64(c)
			}
		}
	})
	if err != nil || !huge {
		return out, err
	}
	cs, err := l.Chunks(ctx, seqs)
	if err != nil {
		return nil, err
	}
	for i, s := range seqs {
		if c, ok := cs[s]; ok {
			out[i] = c.ParentSeq
		} else {
			out[i] = -1
		}
	}
	return out, nil
}

// Parents returns the parents with the given seqs, keyed by seq; unknown seqs are absent.
// Parents read lately come from memory.
func (l *Library) Parents(ctx context.Context, seqs []int64) (map[int64]Chunk, error) {
	out := make(map[int64]Chunk, len(seqs))
	var miss []int64
	huge := false
	err := l.readMap(ctx, func(m *memo) {
		if m.huge {
			huge = true
			return
		}
		m.cmu.Lock()
		defer m.cmu.Unlock()
		for _, s := range seqs {
			if !m.isLive(s) {
				continue
			}
			if p, ok := m.parents[s]; ok {
				out[s] = p
			} else {
				miss = append(miss, s)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if huge {
		return bySeq(ctx, seqs, l.queryParents)
	}
	if len(miss) == 0 {
		return out, nil
	}
	got, err := bySeq(ctx, miss, l.queryParents)
	if err != nil {
		return nil, err
	}
	m := &l.memo
	m.cmu.Lock()
	for s, p := range got {
		out[s] = p
		if m.parents == nil {
			m.parents = map[int64]Chunk{}
		}
		if m.textBytes+parentBytes(p) > maxMemoText {
			// Map iteration order is random: the first quarter is a random quarter.
			drop := len(m.parents) / 4
			for q, c := range m.parents {
				if drop == 0 {
					break
				}
				delete(m.parents, q)
				m.textBytes -= parentBytes(c)
				drop--
			}
		}
		if _, ok := m.parents[s]; !ok {
			m.parents[s] = p
			m.textBytes += parentBytes(p)
		}
	}
	m.cmu.Unlock()
	return out, nil
}

// parentBytes is about what a kept parent holds.
func parentBytes(p Chunk) int { return len(p.Text) + len(p.Section) + len(p.ID) + len(p.DocID) + 96 }
