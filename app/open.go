package app

import (
	"log/slog"
	"sync"

	"github.com/carrel-app/carrel/backend/engine"
)

// opener holds the files given from outside until the window can show them, and the
// paths whose documents are to be opened once read.
type opener struct {
	mu      sync.Mutex
	ready   bool     // the frontend listens: files are queued at once
	pending []string // given before it did
	want    map[string]bool
}

// OpenFiles adds files and folders given from outside the window and opens each file's
// document in the viewer when it is read (a document already in the library is opened at
// once). Before the window is ready they wait for it.
func (a *App) openFiles(paths []string) {
	if len(paths) == 0 {
		return
	}
	a.opening.mu.Lock()
	if a.opening.want == nil {
		a.opening.want = map[string]bool{}
	}
	for _, p := range paths {
		a.opening.want[p] = true
	}
	if !a.opening.ready {
		a.opening.pending = append(a.opening.pending, paths...)
		a.opening.mu.Unlock()
		return
	}
	a.opening.mu.Unlock()
	a.queueOpen(paths)
}

// windowReady is called when the frontend has loaded: the files given at launch are
// queued now, so that the events about them reach it.
func (a *App) windowReady() {
	a.opening.mu.Lock()
	a.opening.ready = true
	paths := a.opening.pending
	a.opening.pending = nil
	a.opening.mu.Unlock()
	a.queueOpen(paths)
}

func (a *App) queueOpen(paths []string) {
	if len(paths) == 0 {
		return
	}
	defer a.ws.Enter()()
	if q, err := queued(a.ws.Add(paths)); err != nil {
		slog.Error("adding files given to Carrel", "paths", paths, "err", err)
	} else {
		slog.Info("adding files given to Carrel", "paths", paths, "queued", q.Queued)
	}
}

// openIngested opens the document read from path when it was given from outside (a folder's
// files are added, not opened).
func (a *App) openIngested(path string, res engine.Result) {
	a.opening.mu.Lock()
	want := a.opening.want[path]
	delete(a.opening.want, path)
	a.opening.mu.Unlock()
	if !want || res.DocID == "" || (res.Status != engine.Inserted && res.Status != engine.Skipped) {
		return
	}
	d, err := a.eng().Library().Document(a.ctx(), res.DocID)
	if err != nil {
		slog.Warn("opening a document given to Carrel", "path", path, "err", err)
		return
	}
	slog.Info("opened a document given to Carrel", "path", path, "id", d.ID)
	a.emit.Emit(EventDocumentOpen, a.toDocument(d))
}
