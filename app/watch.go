package app

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
)

// WatchedFolder is a folder Carrel keeps the library in step with.
type WatchedFolder struct {
	Dir string `json:"dir"`
	// Active is true while the folder is being watched.
	Active bool `json:"active"`
	// Error says why watching stopped (the folder was deleted or moved), or "".
	Error string `json:"error"`
}

// watches are the running folder watches of an App.
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

// WatchFolder starts watching a folder: its files are ingested now, and files added,
// changed or deleted later are ingested or removed. The choice is kept in the library
// folder and resumed at the next start.
func (a *App) WatchFolder(dir string) (WatchedFolder, error) {
	defer a.gate.Enter()()
	abs, err := a.eng.SetWatched(dir, true)
	if err != nil {
		return WatchedFolder{}, err
	}
	a.startWatch(abs)
	return WatchedFolder{Dir: abs, Active: true}, nil
}

// UnwatchFolder stops watching a folder and returns once its watch has ended, so no file
// changed afterwards is taken in. Its documents stay in the library.
func (a *App) UnwatchFolder(dir string) error {
	defer a.gate.Enter()()
	abs, err := a.eng.SetWatched(dir, false)
	if err != nil {
		return err
	}
	a.watches.mu.Lock()
	r := a.watches.run[abs]
	if r != nil {
		r.cancel()
		delete(a.watches.run, abs)
	}
	a.watches.mu.Unlock()
	if r != nil {
		<-r.ended
	}
	return nil
}

// ListWatched lists the watched folders and whether each is being watched.
func (a *App) ListWatched() ([]WatchedFolder, error) {
	defer a.gate.Enter()()
	dirs, err := a.eng.WatchedFolders()
	if err != nil {
		return nil, err
	}
	a.watches.mu.Lock()
	defer a.watches.mu.Unlock()
	out := make([]WatchedFolder, len(dirs))
	for i, d := range dirs {
		out[i] = WatchedFolder{Dir: d}
		if r := a.watches.run[d]; r != nil {
			out[i].Active, out[i].Error = !r.done, r.err
		}
	}
	return out, nil
}

// resumeWatches starts watching the folders kept from the last run.
func (a *App) resumeWatches() {
	dirs, err := a.eng.WatchedFolders()
	if err != nil {
		slog.Warn("watched folders", "err", err)
		return
	}
	for _, d := range dirs {
		a.startWatch(d)
	}
}

// stopWatches waits for the watches, which end with the app's context.
func (a *App) stopWatches() { a.watches.wg.Wait() }

// startWatch runs a watch on dir unless one is running.
func (a *App) startWatch(dir string) {
	a.watches.mu.Lock()
	defer a.watches.mu.Unlock()
	if a.watches.run == nil {
		a.watches.run = map[string]*watchRun{}
	}
	if r := a.watches.run[dir]; r != nil && !r.done {
		return
	}
	ctx, cancel := context.WithCancel(a.ctx)
	r := &watchRun{cancel: cancel, ended: make(chan struct{})}
	a.watches.run[dir] = r
	a.watches.wg.Add(1)
	go func() {
		defer a.watches.wg.Done()
		defer close(r.ended)
		defer cancel()
		err := a.eng.Watch(ctx, dir, engine.WatchOptions{
			Progress: func(d library.Document) { a.emit.Emit(EventLibraryChanged, a.toDocument(d)) },
			Synced: func(s engine.WatchSync) {
				for _, id := range s.RemovedIDs {
					a.emit.Emit(EventLibraryChanged, Document{ID: id, Status: library.StatusRemoved})
				}
				a.emit.Emit(EventWatchSynced, s)
				a.emit.Emit(EventStatusChanged, a.status())
			},
		})
		a.watches.mu.Lock()
		r.done = true
		if err != nil && !errors.Is(err, context.Canceled) {
			r.err = err.Error()
			slog.Warn("watching a folder stopped", "dir", dir, "err", err)
		}
		a.watches.mu.Unlock()
	}()
}
