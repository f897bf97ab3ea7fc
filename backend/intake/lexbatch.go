package intake

import (
	"slices"
	"sync"

	"github.com/carrel-app/carrel/backend/index"
)

// lexBatch gathers the lexical entries of several documents and adds them to the index
// together (a nil *lexBatch adds at once). Entries not yet flushed when the process dies
// are restored by the reconciliation at the next start, which rebuilds a lexical index
// whose count disagrees with the library.
//
// A full batch is written in the background: building a bleve segment is serial work
// that, done by the worker that filled the batch, held the ingest lock and stalled the
// other workers. Batches are written concurrently (bleve builds each segment in the
// caller's goroutine), so the last ones, written while nothing else is left to do, use
// every core instead of queueing behind each other: that tail was a third of the
// wall time of ingesting the pdfcpu corpus.
type lexBatch struct {
	mu      sync.Mutex
	pending []index.LexDoc
	// unwritten counts, per document, the writes of its entries not yet done (pending
	// counts as one); waiters run when it drops to none.
	unwritten map[string]int
	waiters   map[string][]func()

	wg    sync.WaitGroup
	errMu sync.Mutex
	err   error // the first background write's error
}

// lexBatchSize is how many entries are gathered before they are written: a few hundred
// pages. Fewer made more segments for bleve's merger; more made a longer tail. A
// variable for tests.
var lexBatchSize = 500

func (b *lexBatch) add(lex *index.Lexical, docs []index.LexDoc) error {
	if b == nil {
		return lex.Add(docs)
	}
	b.mu.Lock()
	if b.unwritten == nil {
		b.unwritten, b.waiters = map[string]int{}, map[string][]func(){}
	}
	for _, id := range docIDs(docs) {
		if !slices.ContainsFunc(b.pending, func(d index.LexDoc) bool { return d.DocID == id }) {
			b.unwritten[id]++
		}
	}
	b.pending = append(b.pending, docs...)
	var full []index.LexDoc
	if len(b.pending) >= lexBatchSize {
		full, b.pending = b.pending, nil
	}
	b.mu.Unlock()
	if full != nil {
		b.write(lex, full)
	}
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.err
}

// docIDs lists the documents of entries, each once, in order.
func docIDs(docs []index.LexDoc) []string {
	var ids []string
	for _, d := range docs {
		if len(ids) == 0 || ids[len(ids)-1] != d.DocID {
			if !slices.Contains(ids, d.DocID) {
				ids = append(ids, d.DocID)
			}
		}
	}
	return ids
}

// whenWritten runs f once the lexical entries of docID are in the index: now if none
// wait (or b is nil: entries are added at once), else after the write that holds them.
func (b *lexBatch) whenWritten(docID string, f func()) {
	if b != nil {
		b.mu.Lock()
		if b.unwritten[docID] > 0 {
			b.waiters[docID] = append(b.waiters[docID], f)
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
	}
	f()
}

// write adds docs to the index in the background, then runs the waiters of the
// documents it completes (even after a failed write: the documents are stored, and
// the next start's reconciliation restores their entries).
func (b *lexBatch) write(lex *index.Lexical, docs []index.LexDoc) {
	b.wg.Go(func() {
		if err := lex.Add(docs); err != nil {
			b.errMu.Lock()
			if b.err == nil {
				b.err = err
			}
			b.errMu.Unlock()
		}
		var run []func()
		b.mu.Lock()
		for _, id := range docIDs(docs) {
			if b.unwritten[id]--; b.unwritten[id] <= 0 {
				delete(b.unwritten, id)
				run = append(run, b.waiters[id]...)
				delete(b.waiters, id)
			}
		}
		b.mu.Unlock()
		for _, f := range run {
			f()
		}
	})
}

// flush writes what is pending beside the background writes still running, waits for
// them all (and the waiters they run) and returns the first error of any write.
func (b *lexBatch) flush(lex *index.Lexical) error {
	b.mu.Lock()
	docs := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(docs) > 0 {
		b.write(lex, docs)
	}
	b.wg.Wait()
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.err
}
