// Package workspace owns the library Carrel has open and the work running on it: the
// files queued for ingest, the watched folders, answers and downloads in flight, the
// library's chunking settings, and switching to another library folder (moving this one
// there, across disks if need be). The bridge (app/) only translates its calls and
// events for the webview; the state of the library in force lives here.
package workspace

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
)

// Hooks hear what the workspace's background work does. Each may be nil. They are called
// from the goroutines doing the work, never with the gate held exclusively.
type Hooks struct {
	// Document hears every change of a document's state while it is ingested or read
	// again.
	Document func(library.Document)
	// Ingested hears the outcome of each file given to Add, once its document is
	// searchable; err is a broken library's (the file's own failure is in r).
	Ingested func(path string, r engine.Result, err error)
	// Synced hears each pass over a watched folder that changed something.
	Synced func(engine.WatchSync)
	// Changed hears that background work changed the library's counts or models
	// (after a re-read, a download's embedding...), for a fresh status.
	Changed func()
}

// ErrNotOpen is returned by work started between a switch's closing of one library and
// the opening of the next (or after a switch that could not reopen any).
var ErrNotOpen = errors.New("no library is open right now: try again in a moment")

// maxQueued bounds the files waiting to be ingested.
const maxQueued = 4096

// Workspace is the open library and the work running on it. Its methods other than Enter,
// SetFolder and Stop expect the caller to be inside the gate (Enter).
type Workspace struct {
	hooks Hooks
	// gate is entered by every call of either bridge and held exclusively while the
	// library folder is switched, so no call sees the engine closing or half-replaced.
	// Background work the switch waits for must not enter it.
	gate Gate

	// base is the context Start was given: the lifetime across library switches.
	base context.Context
	eng  *engine.Engine
	// owned is an engine the workspace opened itself (after a switch, or OpenLater),
	// closed by Stop; the engine given to New belongs to the caller.
	owned *engine.Engine
	// ctx is the lifetime of the work on the library in force; a switch cancels it.
	ctx    context.Context
	cancel context.CancelFunc

	// queue reads the files given to Add, with the batching and order the CLI and
	// the watched folders get too (engine.Queue).
	queue *engine.Queue
	wg    sync.WaitGroup // background work
	// calls counts running answers and model downloads, which halt waits for.
	calls sync.WaitGroup

	watches watches // watched folders (watch.go)
}

// New makes a workspace over an open engine (nil when it is opened later: OpenLater).
// Call Start before use and Stop at the end.
func New(eng *engine.Engine, hooks Hooks) *Workspace {
	return &Workspace{eng: eng, hooks: hooks}
}

// Enter holds the gate shared until the returned function is called:
// `defer w.Enter()()`. It must not be entered again while inside.
func (w *Workspace) Enter() (leave func()) { return w.gate.Enter() }

// OpenLater keeps every call out until open is called with the library's engine, which
// the workspace then owns: the desktop app opens its library after the window exists.
func (w *Workspace) OpenLater() (open func(ctx context.Context, eng *engine.Engine)) {
	done := w.gate.Switch()
	return func(ctx context.Context, eng *engine.Engine) {
		w.eng, w.owned = eng, eng
		w.Start(ctx)
		done()
	}
}

// Engine is the library in force.
func (w *Workspace) Engine() *engine.Engine { return w.eng }

// Context is the lifetime of work on the library in force: it ends when the library is
// switched or the workspace stops.
func (w *Workspace) Context() context.Context { return w.ctx }

// Start begins the work on the library: ingest workers, finishing ingests a crash cut
// short, watched folders, and embedding what is not embedded yet.
func (w *Workspace) Start(ctx context.Context) {
	w.base = ctx
	w.ctx, w.cancel = context.WithCancel(ctx)
	w.queue = w.eng.Intake().NewQueue(w.ctx, engine.QueueOptions{Workers: max(1, runtime.NumCPU()), Max: maxQueued,
		Progress: w.document, Done: w.ingested})
	// Ingests cut short by a crash or quit are queued before anything new, so that they
	// are never mistaken for documents added now.
	if docs, err := w.eng.Intake().Interrupted(w.ctx); err == nil && len(docs) > 0 {
		paths := make([]string, len(docs))
		for i, d := range docs {
			paths[i] = d.Path
		}
		if err := w.queue.AddFirst(paths); err != nil {
			slog.Warn("resuming interrupted ingests", "err", err)
		}
	}
	w.resumeWatches()
	w.Go(func(ctx context.Context) {
		// PDFium reads only the pages our own extractor cannot (and scans), so it is not
		// started here: it would hold ~300 MB for PDFs that may never need it. It is
		// compiled into its cache on the first run only, so that the first PDF needing
		// it starts it in well under a second, and released after a minute unused.
		ingest.SetIdleRelease(time.Minute)
		if _, err := ingest.PrepareCache(ctx); err != nil {
			slog.Warn("compiling the PDF engine", "err", err)
		}
		if _, err := w.eng.Intake().EmbedPending(ctx); err != nil {
			slog.Warn("embedding pending chunks", "err", err)
		}
		// Documents OCR'd before word boxes were kept are read again, once, so that
		// their scanned pages can be highlighted (re-adding the same bytes is skipped).
		if _, err := w.eng.Intake().RereadMissingWords(ctx, w.document); err != nil {
			slog.Warn("re-reading scanned documents for their word boxes", "err", err)
		}
	})
}

// Stop cancels running work, waits for it, and closes an engine the workspace opened.
func (w *Workspace) Stop() {
	w.halt()
	if w.owned != nil {
		if err := w.owned.Close(); err != nil {
			slog.Warn("closing the library", "err", err)
		}
		w.owned = nil
	}
}

// halt cancels running work and waits for the ingest workers, watches, answers and
// downloads to end, so that the engine is no longer in use.
func (w *Workspace) halt() {
	if w.cancel == nil {
		return
	}
	w.cancel()
	w.cancel = nil
	w.queue.Close()
	w.wg.Wait()
	w.watches.wg.Wait()
	// Answers and downloads end with the context; they are waited for, not polled.
	done := make(chan struct{})
	go func() { w.calls.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		slog.Warn("answers or downloads still running 5 s after the app stopped them; waiting")
		<-done
	}
}

// Go runs background work on the library in force; a switch or Stop cancels its context
// and waits for it.
func (w *Workspace) Go(f func(ctx context.Context)) {
	ctx := w.ctx
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		f(ctx)
	}()
}

// Track runs a call that outlives its request (an answer, a model download) on the
// library in force; a switch or Stop waits for it after cancelling the context.
func (w *Workspace) Track(f func()) {
	w.calls.Add(1)
	go func() {
		defer w.calls.Done()
		f()
	}()
}

// Add queues files and folders (a folder's readable files) for ingest and says how many
// files were queued; their progress reaches Hooks.Document and Hooks.Ingested.
func (w *Workspace) Add(paths []string) (int, error) {
	if w.ctx.Err() != nil {
		// Between a library switch's halt and start (or after a failed switch).
		return 0, ErrNotOpen
	}
	if err := w.eng.CheckWritable(); err != nil {
		return 0, err
	}
	files := engine.ExpandPaths(paths)
	if err := w.queue.Add(files); err != nil {
		return 0, err
	}
	return len(files), nil
}

// AddURL fetches an online source and adds it in the background, telling
// Hooks.Ingested with the URL as its path when done. It refuses at once while online
// sources are off.
func (w *Workspace) AddURL(rawURL string) error {
	if w.ctx.Err() != nil {
		return ErrNotOpen
	}
	if err := w.eng.CheckWritable(); err != nil {
		return err
	}
	if !w.eng.OnlineOn() {
		return engine.OffError(rawURL)
	}
	w.Go(func(ctx context.Context) {
		res, err := w.eng.IngestURL(ctx, rawURL, w.document)
		w.ingested(rawURL, res, err)
	})
	return nil
}

func (w *Workspace) ingested(path string, res engine.Result, err error) {
	if err != nil {
		slog.Error("ingest", "path", path, "err", err)
	}
	if w.hooks.Ingested != nil {
		w.hooks.Ingested(path, res, err)
	}
}

// Reread reads a document again from its original file in the background, with progress
// to Hooks.Document. It refuses at once when the file is gone or changed.
func (w *Workspace) Reread(docID string) error {
	if w.ctx.Err() != nil {
		return ErrNotOpen
	}
	if err := w.eng.Intake().CanReread(w.ctx, docID); err != nil {
		return err
	}
	w.Go(func(ctx context.Context) {
		// A failure to read is recorded on the document, which says so; an error here is
		// a broken library (or the file changed in the meantime).
		if _, err := w.eng.Intake().Reread(ctx, docID, w.document); err != nil {
			slog.Warn("re-read", "doc", docID, "err", err)
		}
		w.changed()
	})
	return nil
}

// Rechunk cuts every ready document again with the chunk sizes in force, from the text
// already extracted, and embeds the new passages in the background. It returns the ids
// of the documents cut again.
func (w *Workspace) Rechunk() ([]string, error) {
	ids, err := w.eng.Intake().Rechunk(w.ctx)
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		w.EmbedPending("embedding re-chunked passages")
	}
	return ids, nil
}

// EmbedPending embeds, in the background, every passage that has no vector yet (after a
// model was downloaded or changed); what names the work in the log if it fails.
func (w *Workspace) EmbedPending(what string) {
	w.Go(func(ctx context.Context) {
		if _, err := w.eng.Intake().EmbedPending(ctx); err != nil {
			slog.Warn(what, "err", err)
		}
	})
}

func (w *Workspace) document(d library.Document) {
	if w.hooks.Document != nil {
		w.hooks.Document(d)
	}
}

func (w *Workspace) changed() {
	if w.hooks.Changed != nil {
		w.hooks.Changed()
	}
}
