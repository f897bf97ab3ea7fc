// Package app is the bridge between the frontend and the engine. Every exported method of
// App is callable from the frontend (Wails binding in the desktop app, HTTP in the browser);
// progress and tokens go back as events. No logic lives here beyond translating calls.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/retrieve"
)

// App is bound to the frontend.
type App struct {
	eng  *engine.Engine
	emit Emitter
	// ctx is the lifetime of the app; asks and ingests derive from it.
	ctx    context.Context
	cancel context.CancelFunc
	// openDialog shows a native file picker; nil where there is none (browser).
	openDialog func() ([]string, error)
	// dirDialog shows a native folder picker starting at a folder; nil in the browser.
	dirDialog func(start string) (string, error)

	// base is the context start was given: the app's lifetime across library switches.
	base context.Context
	// gate is entered by every exported method, so by every call of either bridge (Wails
	// binds the methods; serveCall calls them), and held exclusively while the library
	// folder is switched (settings.go), so no call sees the engine closing or
	// half-replaced. Background work the switch waits for must not enter it: it uses the
	// unexported forms (status, meter).
	gate engine.Gate
	// owned is an engine the app opened itself (after a switch), closed by stop; the
	// engine given to New belongs to the caller.
	owned *engine.Engine

	mu   sync.Mutex
	asks map[string]context.CancelFunc
	// answers counts running answers and model downloads, which halt waits for.
	answers sync.WaitGroup

	pulls pulls // running model downloads (models.go)

	queue chan string
	wg    sync.WaitGroup

	watches watches // watched folders (watch.go)

	opening opener // files given from outside the window (open.go)

	// logDir is the log file's folder, and openFolder shows a folder in the system's file
	// manager (nil in the browser).
	logDir     string
	openFolder func(dir string) error
}

// New makes the bridge for an open engine. Call start before use and stop at the end.
func New(eng *engine.Engine, emit Emitter) *App {
	return &App{eng: eng, emit: emit, asks: map[string]context.CancelFunc{}}
}

// start begins the app's lifetime: ingest workers, and finishing ingests a crash cut short.
func (a *App) start(ctx context.Context) {
	a.base = ctx
	a.ctx, a.cancel = context.WithCancel(ctx)
	a.queue = make(chan string, 4096)
	// Ingests cut short by a crash or quit are queued before anything new, so that they
	// are never mistaken for documents added now.
	if docs, err := a.eng.Interrupted(a.ctx); err == nil {
		for _, d := range docs {
			a.queue <- d.Path
		}
	}
	for range max(1, runtime.NumCPU()) {
		a.wg.Add(1)
		go a.ingestWorker()
	}
	a.resumeWatches()
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		// PDFium reads only the pages our own extractor cannot (and scans), so it is not
		// started here: it would hold ~300 MB for PDFs that may never need it. It is
		// compiled into its cache on the first run only, so that the first PDF needing
		// it starts it in well under a second, and released after a minute unused.
		ingest.SetIdleRelease(time.Minute)
		if _, err := ingest.PrepareCache(a.ctx); err != nil {
			slog.Warn("compiling the PDF engine", "err", err)
		}
		if _, err := a.eng.EmbedPending(a.ctx); err != nil {
			slog.Warn("embedding pending chunks", "err", err)
		}
		// Documents OCR'd before word boxes were kept are read again, once, so that
		// their scanned pages can be highlighted (re-adding the same bytes is skipped).
		if _, err := a.eng.RereadMissingWords(a.ctx, a.emitDocument); err != nil {
			slog.Warn("re-reading scanned documents for their word boxes", "err", err)
		}
	}()
}

func (a *App) emitDocument(d library.Document) {
	a.emit.Emit(EventLibraryChanged, a.toDocument(d))
}

// stop cancels running work, waits for it, and closes an engine the app opened itself.
func (a *App) stop() {
	a.halt()
	if a.owned != nil {
		if err := a.owned.Close(); err != nil {
			slog.Warn("closing the library", "err", err)
		}
		a.owned = nil
	}
}

// halt cancels running work and waits for the ingest workers, watches, answers and
// downloads to end, so that the engine is no longer in use.
func (a *App) halt() {
	if a.cancel == nil {
		return
	}
	a.cancel()
	a.cancel = nil
	close(a.queue)
	a.wg.Wait()
	a.stopWatches()
	// Answers and downloads end with the context; they are waited for, not polled.
	done := make(chan struct{})
	go func() { a.answers.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		slog.Warn("answers or downloads still running 5 s after the app stopped them; waiting")
		<-done
	}
}

func (a *App) ingestWorker() {
	defer a.wg.Done()
	for path := range a.queue {
		if a.ctx.Err() != nil {
			continue
		}
		res, err := a.eng.IngestFile(a.ctx, path, func(d library.Document) {
			a.emit.Emit(EventLibraryChanged, a.toDocument(d))
		})
		if err != nil {
			slog.Error("ingest", "path", path, "err", err)
		} else {
			a.ingested(path, res)
		}
		if err == nil && res.Status == engine.Failed && res.DocID == "" {
			// Failed before it had an identity (missing file): tell the UI anyway.
			a.emit.Emit(EventLibraryChanged, Document{ID: pathIDPrefix + path, Path: path, Title: path,
				Status: library.StatusFailed, Error: res.Error})
		}
		a.emit.Emit(EventStatusChanged, a.status())
	}
}

// Status reports what Carrel can do now (models, mode, counts).
func (a *App) Status() engine.Status {
	defer a.gate.Enter()()
	return a.status()
}

func (a *App) status() engine.Status {
	return a.eng.Status(a.ctx)
}

// Document is a library entry as the frontend sees it.
type Document struct {
	ID       string            `json:"id"`
	Path     string            `json:"path"`
	Title    string            `json:"title"`
	Kind     string            `json:"kind"`
	Pages    int               `json:"pages"`
	Chunks   int               `json:"chunks"`
	Bytes    int64             `json:"bytes"`
	Status   library.DocStatus `json:"status"`
	Error    string            `json:"error"`
	Progress Progress          `json:"progress"`
	AddedAt  string            `json:"added_at"`
	// OCRPages counts the pages whose text was read by OCR from scanned images (the
	// library marks such documents); 0 until the document is ready.
	OCRPages int `json:"ocr_pages"`
}

// Progress counts pages while extracting and chunks while embedding.
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
}

func (a *App) toDocument(d library.Document) Document {
	out := Document{ID: d.ID, Path: d.Path, Title: d.Title, Kind: d.Kind, Pages: d.Pages, Chunks: d.Chunks,
		Bytes: d.Bytes, Status: d.Status, Error: d.Error, Progress: Progress{d.Done, d.Total},
		AddedAt: d.AddedAt.Format("2006-01-02T15:04:05Z07:00")}
	if d.Status == library.StatusReady {
		out.OCRPages = a.eng.OCRPageCount(d.ID)
	}
	return out
}

// ListDocuments lists the library, newest first.
func (a *App) ListDocuments() ([]Document, error) {
	defer a.gate.Enter()()
	docs, err := a.eng.Library().Documents(a.ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Document, len(docs))
	for i, d := range docs {
		out[i] = a.toDocument(d)
	}
	return out, nil
}

// Queued says how many files were queued for ingest.
type Queued struct {
	Queued int `json:"queued"`
}

// AddPaths queues files and folders for ingest; progress arrives as library:changed events.
func (a *App) AddPaths(paths []string) (Queued, error) {
	defer a.gate.Enter()()
	return a.addPaths(paths)
}

func (a *App) addPaths(paths []string) (Queued, error) {
	if a.ctx.Err() != nil {
		// Between a library switch's halt and start (or after a failed switch).
		return Queued{}, errors.New("no library is open right now: try again in a moment")
	}
	files := engine.ExpandPaths(paths)
	for _, f := range files {
		select {
		case a.queue <- f:
		default:
			return Queued{}, errors.New("too many files are waiting to be added: try again when the current ones are done")
		}
	}
	return Queued{Queued: len(files)}, nil
}

// AddDialog lets the user pick files with the system's file dialog, then adds them.
func (a *App) AddDialog() (Queued, error) {
	defer a.gate.Enter()()
	if a.openDialog == nil {
		return Queued{}, errors.New("no file dialog here: use the file picker or drop files onto the window")
	}
	paths, err := a.openDialog()
	if err != nil || len(paths) == 0 {
		return Queued{}, err
	}
	return a.addPaths(paths)
}

// RemoveDocument removes a document and everything derived from it.
func (a *App) RemoveDocument(docID string) error {
	defer a.gate.Enter()()
	d, err := a.eng.Library().Document(a.ctx, docID)
	if err != nil {
		return err
	}
	if err := a.eng.Remove(a.ctx, docID); err != nil {
		return err
	}
	doc := a.toDocument(d)
	doc.Status = library.StatusRemoved
	a.emit.Emit(EventLibraryChanged, doc)
	return nil
}

// RereadDocument reads a document again from its original file in the background (text,
// OCR of scanned pages, passages, word boxes), with progress as library:changed events,
// as when it was added. It refuses at once when the file is gone or changed.
func (a *App) RereadDocument(docID string) error {
	defer a.gate.Enter()()
	if a.ctx.Err() != nil {
		return errors.New("no library is open right now: try again in a moment")
	}
	if err := a.eng.CanReread(a.ctx, docID); err != nil {
		return err
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		// A failure to read is recorded on the document, which says so; an error here is
		// a broken library (or the file changed in the meantime).
		if _, err := a.eng.Reread(a.ctx, docID, a.emitDocument); err != nil {
			slog.Warn("re-read", "doc", docID, "err", err)
		}
		a.emit.Emit(EventStatusChanged, a.status())
	}()
	return nil
}

// Search runs a hybrid search.
func (a *App) Search(query string, k int, docIDs []string) ([]engine.Hit, error) {
	defer a.gate.Enter()()
	return a.eng.Search(a.ctx, query, engine.SearchOptions{K: k, Mode: retrieve.Hybrid, DocIDs: docIDs})
}

// Ask starts answering a question in a new study session and returns its id at once;
// the answer streams as answer:start, answer:token and then answer:done or answer:error
// events (see sessions.go).
func (a *App) Ask(question string, docIDs []string) (string, error) {
	defer a.gate.Enter()()
	return a.startAsk(question, engine.AskOptions{DocIDs: docIDs})
}

func citations(ps []chat.Passage) []chat.Passage {
	if ps == nil {
		return []chat.Passage{}
	}
	return ps
}

// Cancel stops a running answer; the partial text arrives with answer:error.
func (a *App) Cancel(askID string) error {
	defer a.gate.Enter()()
	a.mu.Lock()
	cancel, ok := a.asks[askID]
	a.mu.Unlock()
	if !ok {
		return fmt.Errorf("no running answer %q", askID)
	}
	cancel()
	return nil
}
