package intake

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"

	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/library"
)

// Queue is the one way files are ingested in bursts: by the window (files dropped or
// added while others are read), by the CLI and by watched folders (IngestFiles). Up to
// Workers files are read at once, the largest waiting file first, so that the last to
// finish are small ones rather than a book read by one worker while the others are idle;
// the lexical entries of many documents are written to the index together; and the GC
// runs less often while the queue is busy. When it runs dry the last entries are written,
// the relevance threshold is measured again and the GC is restored.
//
// A document is reported ready (to Progress, and to Done) only once its lexical entries
// are in the index, so that a search right after finds it.
type Queue struct {
	in   *Intake
	ctx  context.Context
	opt  QueueOptions
	emit ProgressFunc // opt.Progress, one call at a time

	mu      sync.Mutex
	cond    *sync.Cond
	waiting []queued
	active  int
	closed  bool
	seq     int    // files ever queued, for first-come order among equals
	err     error  // the first broken-library error, with StopOnError
	burst   *burst // while the queue is busy
	workers sync.WaitGroup
	doneMu  sync.Mutex // Done is called one at a time
}

// QueueOptions tune a Queue.
type QueueOptions struct {
	// Workers is how many files are read at once; < 1 means runtime.NumCPU().
	Workers int
	// Progress hears every change of a document's state, one call at a time.
	Progress ProgressFunc
	// Done hears each file's outcome once its document is searchable, one call at a
	// time; err is a broken library's (disk, database), the file's own failure is in r.
	Done func(path string, r Result, err error)
	// StopOnError stops the queue starting files after the first broken-library error
	// (IngestFiles); otherwise the error goes to Done and the next file is read.
	StopOnError bool
	// Max bounds the files waiting; 0 is no bound.
	Max int
}

type queued struct {
	path  string
	size  int64 // -1: unreadable, read last
	first bool  // before everything else (ingests a crash cut short)
	seq   int
	done  func(Result, error)
}

// burst is what the queue holds while it is busy.
type burst struct {
	lb        *lexBatch
	restoreGC func()
}

// ErrQueueFull is returned by Queue.Add when the files would not fit.
var ErrQueueFull = errors.New("too many files are waiting to be added: try again when the current ones are done")

// NewQueue starts a queue's workers; they work until ctx ends or Close is called.
func (in *Intake) NewQueue(ctx context.Context, opt QueueOptions) *Queue {
	if opt.Workers < 1 {
		opt.Workers = runtime.NumCPU()
	}
	q := &Queue{in: in, ctx: ctx, opt: opt, emit: func(library.Document) {}}
	q.cond = sync.NewCond(&q.mu)
	if opt.Progress != nil {
		var pmu sync.Mutex
		q.emit = func(d library.Document) {
			pmu.Lock()
			defer pmu.Unlock()
			opt.Progress(d)
		}
	}
	// Workers wake when ctx ends, to drop what waits and stop.
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	for range opt.Workers {
		q.workers.Go(q.work)
	}
	go func() { q.workers.Wait(); stop() }()
	return q
}

// Add queues files (not folders: see ExpandPaths) to be read, all or none.
func (q *Queue) Add(paths []string) error { return q.add(paths, false, nil) }

// AddFirst queues files to be read before any other waiting file, past Max: ingests a
// crash or quit cut short, so that they are never mistaken for documents added now.
func (q *Queue) AddFirst(paths []string) error { return q.add(paths, true, nil) }

func (q *Queue) add(paths []string, first bool, done func(i int) func(Result, error)) error {
	items := make([]queued, len(paths))
	for i, p := range paths {
		items[i] = queued{path: p, size: -1, first: first}
		if fi, err := os.Stat(p); err == nil {
			items[i].size = fi.Size()
		}
		if done != nil {
			items[i].done = done(i)
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if err := q.ctx.Err(); err != nil {
		return err // stopping (a watcher whose folder is unwatched, a quit) is no failure
	}
	if q.closed {
		return errors.New("ingest queue closed")
	}
	if q.opt.Max > 0 && !first && len(q.waiting)+len(items) > q.opt.Max {
		return ErrQueueFull
	}
	for i := range items {
		items[i].seq = q.seq
		q.seq++
	}
	q.waiting = append(q.waiting, items...)
	q.cond.Broadcast()
	return nil
}

// Close stops the queue taking files, lets the waiting ones be read (unless the queue's
// context has ended) and waits for the workers; it returns the first broken-library
// error with StopOnError.
func (q *Queue) Close() error {
	q.mu.Lock()
	q.closed = true
	q.cond.Broadcast()
	q.mu.Unlock()
	q.workers.Wait()
	return q.err
}

// next takes the file to read next: the first of AddFirst's, else the largest, else
// the earliest queued. It starts a burst if none is running. ok is false when the
// worker should stop.
func (q *Queue) next() (it queued, b *burst, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		stopped := q.ctx.Err() != nil || q.err != nil
		if stopped {
			q.waiting = nil
		}
		if len(q.waiting) > 0 {
			break
		}
		if q.active == 0 && q.burst != nil {
			q.endBurst()
			continue
		}
		if q.closed || stopped {
			return queued{}, nil, false
		}
		q.cond.Wait()
	}
	best := 0
	for i, w := range q.waiting[1:] {
		if before(w, q.waiting[best]) {
			best = i + 1
		}
	}
	it = q.waiting[best]
	q.waiting = append(q.waiting[:best], q.waiting[best+1:]...)
	if q.burst == nil {
		// The lexical index takes the chunks of many documents at once: one bleve
		// segment per document made its merger the largest cost after PDFium.
		q.burst = &burst{lb: &lexBatch{}, restoreGC: ingestGC()}
	}
	q.active++
	return it, q.burst, true
}

func before(a, b queued) bool {
	if a.first != b.first {
		return a.first
	}
	if a.size != b.size {
		return a.size > b.size
	}
	return a.seq < b.seq
}

// endBurst writes the burst's last lexical entries and ends it; called with q.mu held,
// which it lets go meanwhile (a new burst may start beside it).
func (q *Queue) endBurst() {
	b := q.burst
	q.burst = nil
	q.mu.Unlock()
	err := b.lb.flush(q.in.lex)
	index.DropWordCache() // the burst is over: give its memory back
	q.in.co.Ingested(q.ctx)
	b.restoreGC()
	q.mu.Lock()
	if err != nil {
		err = q.in.explainFull(fmt.Errorf("index: %w", err))
		if q.opt.StopOnError && q.err == nil {
			q.err = err
		}
		// The documents are stored; the reconciliation at the next start rebuilds a
		// lexical index that misses some of them.
		slog.Error("ingest: writing the word index", "err", err)
	}
}

func (q *Queue) work() {
	for {
		it, b, ok := q.next()
		if !ok {
			return
		}
		r, err := q.in.ingestTree(q.ctx, it.path, q.emit, 0, b.lb)
		err = q.in.explainFull(err)
		finish := func() {
			q.doneMu.Lock()
			defer q.doneMu.Unlock()
			if it.done != nil {
				it.done(r, err)
			} else if q.opt.Done != nil {
				q.opt.Done(it.path, r, err)
			}
		}
		if err != nil {
			finish()
		} else {
			b.lb.whenWritten(r.DocID, finish)
		}
		q.mu.Lock()
		if err != nil && q.opt.StopOnError && q.err == nil {
			q.err = err
		}
		q.active--
		q.cond.Broadcast()
		q.mu.Unlock()
	}
}

// IngestFiles ingests paths through a Queue of up to workers files at a time
// (runtime.NumCPU() if workers < 1): extraction and chunking run concurrently, storing
// and indexing one document at a time. done, if not nil, hears each file's Result once
// it is searchable (from several goroutines, one at a time, as is progress), with the
// file's index in paths. The Results come back in the order of paths; the error is the
// first broken-library error, after which the files not yet started are skipped.
func (in *Intake) IngestFiles(ctx context.Context, paths []string, workers int, progress ProgressFunc, done func(i int, r Result)) ([]Result, error) {
	results := make([]Result, len(paths))
	if len(paths) == 0 {
		in.co.Ingested(ctx)
		return results, ctx.Err()
	}
	if workers < 1 {
		workers = runtime.NumCPU()
	}
	q := in.NewQueue(ctx, QueueOptions{Workers: min(workers, len(paths)), Progress: progress, StopOnError: true})
	err := q.add(paths, false, func(i int) func(Result, error) {
		return func(r Result, _ error) {
			results[i] = r
			if done != nil {
				done(i, r)
			}
		}
	})
	if cerr := q.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	return results, err
}
