// Package app is the bridge between the frontend and the engine. Every exported method of
// App is callable from the frontend (Wails binding in the desktop app, HTTP in the browser);
// progress and tokens go back as events. No logic lives here beyond translating calls.
package app

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/backend/workspace"
)

// App is bound to the frontend.
type App struct {
	// ws is the open library and the work running on it (ingests, watches, answers);
	// it switches libraries. Every exported method enters its gate first.
	ws   *workspace.Workspace
	emit Emitter
	// openDialog shows a native file picker; nil where there is none (browser).
	openDialog func() ([]string, error)
	// dirDialog shows a native folder picker starting at a folder; nil in the browser.
	dirDialog func(start string) (string, error)
	// saveDialog asks where to save a file (a name and its extension); nil in the browser.
	saveDialog func(name, ext string) (string, error)

	mu   sync.Mutex
	asks map[string]context.CancelFunc

	pulls pulls // running model downloads (models.go)

	opening opener // files given from outside the window (open.go)

	// logDir is the log file's folder, and openFolder shows a folder in the system's file
	// manager (nil in the browser).
	logDir     string
	openFolder func(dir string) error
}

// New makes the bridge for an open engine (nil for one opened later, see RunDesktop).
// Call start before use and stop at the end.
func New(eng *engine.Engine, emit Emitter) *App {
	a := &App{emit: emit, asks: map[string]context.CancelFunc{}}
	a.ws = workspace.New(eng, workspace.Hooks{
		Document: a.emitDocument,
		Ingested: a.ingested,
		Synced: func(s engine.WatchSync) {
			for _, id := range s.RemovedIDs {
				a.emit.Emit(EventLibraryChanged, Document{ID: id, Status: library.StatusRemoved})
			}
			a.emit.Emit(EventWatchSynced, s)
			a.emitStatus()
		},
		Changed: a.emitStatus,
	})
	return a
}

// eng is the library in force and ctx the lifetime of work on it (see workspace).
func (a *App) eng() *engine.Engine       { return a.ws.Engine() }
func (a *App) ctx() context.Context      { return a.ws.Context() }
func (a *App) start(ctx context.Context) { a.ws.Start(ctx) }
func (a *App) stop()                     { a.ws.Stop() }

func (a *App) emitDocument(d library.Document) {
	a.emit.Emit(EventLibraryChanged, a.toDocument(d))
}

func (a *App) emitStatus() { a.emit.Emit(EventStatusChanged, a.ws.Status()) }

// Status reports what Carrel can do now (models, mode, counts).
func (a *App) Status() engine.Status {
	defer a.ws.Enter()()
	return a.ws.Status()
}

// Document is a library entry as the frontend sees it.
type Document struct {
	ID       string            `json:"id"`
	Path     string            `json:"path"`
	Title    string            `json:"title"`
	Kind     document.Kind     `json:"kind"`
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
	// URL is where an online source was fetched from (its canonical address); "" for
	// files. Its Path is then the snapshot kept in the library.
	URL string `json:"url,omitempty"`
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
		if info, err := a.eng().Intake().DocumentInfo(d.ID); err == nil {
			out.OCRPages, out.URL = len(info.OCRPages), info.URL
		}
	}
	return out
}

// ListDocuments lists the library, newest first.
func (a *App) ListDocuments() ([]Document, error) {
	defer a.ws.Enter()()
	docs, err := a.eng().Library().Documents(a.ctx())
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
	defer a.ws.Enter()()
	return queued(a.ws.Add(paths))
}

// queued translates the workspace's count of files queued.
func queued(n int, err error) (Queued, error) { return Queued{Queued: n}, err }

// ingested tells the frontend a queued file is done: opened when it was given from
// outside (open.go), failed when it failed before it had an identity.
func (a *App) ingested(path string, res engine.Result, err error) {
	if engine.IsURL(path) {
		a.fetched(path, res, err)
		a.emitStatus()
		return
	}
	if err == nil {
		a.openIngested(path, res)
		if res.Status == engine.Skipped && res.DocID != "" {
			if d, derr := a.eng().Library().Document(a.ctx(), res.DocID); derr == nil {
				a.emit.Emit(EventLibraryKnown, a.toDocument(d))
			}
		}
		if res.Status == engine.Failed && res.DocID == "" {
			// Failed before it had an identity (missing file): tell the UI anyway.
			a.emit.Emit(EventLibraryChanged, Document{ID: pathIDPrefix + path, Path: path, Title: path,
				Status: library.StatusFailed, Error: res.Error})
		}
	}
	a.emitStatus()
}

// AddDialog lets the user pick files with the system's file dialog, then adds them.
func (a *App) AddDialog() (Queued, error) {
	defer a.ws.Enter()()
	if a.openDialog == nil {
		return Queued{}, errors.New("no file dialog here: use the file picker or drop files onto the window")
	}
	paths, err := a.openDialog()
	if err != nil || len(paths) == 0 {
		return Queued{}, err
	}
	return queued(a.ws.Add(paths))
}

// RemoveDocument removes a document and everything derived from it.
func (a *App) RemoveDocument(docID string) error {
	defer a.ws.Enter()()
	d, err := a.eng().Library().Document(a.ctx(), docID)
	if err != nil {
		return err
	}
	if err := a.eng().Intake().Remove(a.ctx(), docID); err != nil {
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
	defer a.ws.Enter()()
	return a.ws.Reread(docID)
}

// Search runs a hybrid search.
func (a *App) Search(query string, k int, docIDs []string) ([]engine.Hit, error) {
	defer a.ws.Enter()()
	return a.eng().Search(a.ctx(), query, engine.SearchOptions{K: k, Mode: retrieve.Hybrid, DocIDs: docIDs})
}

// Ask starts answering a question in a new study session and returns its id at once;
// the answer streams as answer:start, answer:token and then answer:done or answer:error
// events (see sessions.go).
func (a *App) Ask(question string, docIDs []string) (string, error) {
	defer a.ws.Enter()()
	return a.startAsk(question, asking.Options{DocIDs: docIDs})
}

func citations(ps []chat.Passage) []chat.Passage {
	if ps == nil {
		return []chat.Passage{}
	}
	return ps
}

// Cancel stops a running answer (the partial text arrives with answer:error), summary
// (summary:error, what was done saved) or making of cards by the model ("cards:" and the
// document's id; the cards checked so far are kept).
func (a *App) Cancel(askID string) error {
	defer a.ws.Enter()()
	a.mu.Lock()
	cancel, ok := a.asks[askID]
	a.mu.Unlock()
	if !ok {
		return fmt.Errorf("no running answer %q", askID)
	}
	cancel()
	return nil
}
