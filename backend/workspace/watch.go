package workspace

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/carrel-app/carrel/backend/engine"
)

// WatchedFolder is a folder Carrel keeps the library in step with.
type WatchedFolder struct {
	Dir string `json:"dir"`
	// Active is true while the folder is being watched.
	Active bool `json:"active"`
	// Error says why watching stopped (the folder was deleted or moved), or "".
	Error string `json:"error"`
}

// watches are the running folder watches of a workspace.
type watches struct {
	mu  sync.Mutex
	run map[string]*watchRun
	wg  sync.WaitGroup
}

type watchRun struct {
	cancel context.CancelFunc
	err    string
	done   bool
	// ended is closed when the watch's goroutine has returned.
	ended chan struct{}
}

// Watch starts watching a folder: its files are ingested now, and files added, changed
// or deleted later are ingested or removed. The choice is kept in the library folder and
// resumed at the next start.
func (w *Workspace) Watch(dir string) (WatchedFolder, error) {
	if err := w.eng.CheckWritable(); err != nil {
		return WatchedFolder{}, err
	}
	abs, err := w.eng.Intake().SetWatched(dir, true)
	if err != nil {
		return WatchedFolder{}, err
	}
	w.startWatch(abs)
	return WatchedFolder{Dir: abs, Active: true}, nil
}

// Unwatch stops watching a folder and returns once its watch has ended, so no file
// changed afterwards is taken in. Its documents stay in the library.
func (w *Workspace) Unwatch(dir string) error {
	abs, err := w.eng.Intake().SetWatched(dir, false)
	if err != nil {
		return err
	}
	w.watches.mu.Lock()
	r := w.watches.run[abs]
	if r != nil {
		r.cancel()
		delete(w.watches.run, abs)
	}
	w.watches.mu.Unlock()
	if r != nil {
		<-r.ended
	}
	return nil
}

// Watched lists the watched folders and whether each is being watched.
func (w *Workspace) Watched() ([]WatchedFolder, error) {
	dirs, err := w.eng.Intake().WatchedFolders()
	if err != nil {
		return nil, err
	}
	w.watches.mu.Lock()
	defer w.watches.mu.Unlock()
	out := make([]WatchedFolder, len(dirs))
	for i, d := range dirs {
		out[i] = WatchedFolder{Dir: d}
		if r := w.watches.run[d]; r != nil {
			out[i].Active, out[i].Error = !r.done, r.err
		}
	}
	return out, nil
}

// resumeWatches starts watching the folders kept from the last run.
func (w *Workspace) resumeWatches() {
	dirs, err := w.eng.Intake().WatchedFolders()
	if err != nil {
		slog.Warn("watched folders", "err", err)
		return
	}
	for _, d := range dirs {
		w.startWatch(d)
	}
}

// startWatch runs a watch on dir unless one is running.
func (w *Workspace) startWatch(dir string) {
	w.watches.mu.Lock()
	defer w.watches.mu.Unlock()
	if w.watches.run == nil {
		w.watches.run = map[string]*watchRun{}
	}
	if r := w.watches.run[dir]; r != nil && !r.done {
		return
	}
	ctx, cancel := context.WithCancel(w.ctx)
	r := &watchRun{cancel: cancel, ended: make(chan struct{})}
	w.watches.run[dir] = r
	w.watches.wg.Add(1)
	go func() {
		defer w.watches.wg.Done()
		defer close(r.ended)
		defer cancel()
		err := w.eng.Intake().Watch(ctx, dir, engine.WatchOptions{
			Progress: w.document,
			Synced: func(s engine.WatchSync) {
				if w.hooks.Synced != nil {
					w.hooks.Synced(s)
				}
			},
		})
		w.watches.mu.Lock()
		r.done = true
		if err != nil && !errors.Is(err, context.Canceled) {
			r.err = err.Error()
			slog.Warn("watching a folder stopped", "dir", dir, "err", err)
		}
		w.watches.mu.Unlock()
	}()
}
