// Package watch keeps a library in step with a folder: files added or changed under it
// are read, documents whose file was deleted (or changed to other content) are removed.
// It also keeps the list of watched folders a library remembers (watched.json).
package watch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
)

// Outcome is what the library says of one file it read.
type Outcome interface {
	// DocumentID is the id of the document the file's content now is ("" when it
	// failed before it had one).
	DocumentID() string
	// WasSkipped is true when the content was in the library already.
	WasSkipped() bool
}

// Library is what a watch keeps in step with its folder.
type Library[R Outcome] interface {
	// Ingest reads files, returning their outcomes in the order of paths; the error is
	// a broken library's.
	Ingest(ctx context.Context, paths []string) ([]R, error)
	// Remove removes a document and everything derived from it.
	Remove(ctx context.Context, docID string) error
	// Documents lists the library's documents.
	Documents(ctx context.Context) ([]library.Document, error)
}

// Options tune [Run].
type Options[R Outcome] struct {
	// Synced, if not nil, hears the outcome of each pass that changed something.
	Synced func(Pass[R])
	// Poll makes Watch look for changes every Interval instead of listening to the file
	// system's events (as it does when the system cannot deliver them).
	Poll bool
	// Interval is how often the folder is scanned: the polling period, and with events a
	// safety pass for anything they missed. 0 means 3 s when polling, 5 min with events.
	Interval time.Duration
	// Settle is how long a file must be left alone before it is read, so that a file
	// being copied or saved is read once, whole. 0 means 1 s.
	Settle time.Duration
}

// Pass is what one pass over a watched folder did.
type Pass[R Outcome] struct {
	// Dir is the watched folder.
	Dir string
	// Ingested are the outcomes of the files found new or changed.
	Ingested []R
	// Removed are the paths whose documents were removed because the file is gone (or
	// no longer one Carrel reads).
	Removed []string
	// RemovedIDs are the ids of the documents removed: those of Removed, and the previous
	// content of files that changed.
	RemovedIDs []string
}

// stamp is what tells a file changed without reading it.
type stamp struct {
	mod  time.Time
	size int64
}

// Run keeps lib in step with the folder dir until ctx is done: files added or
// changed under it (as [ingest.Expand] finds them: supported, not hidden or ignored) are
// ingested, and documents whose file was deleted, or changed to other content, are
// removed. The first pass brings the library up to date with the folder as it is now,
// including deletions made while it was not watched. Changes are seen through the file
// system's events (fsnotify), falling back to polling. Run returns ctx.Err() when ctx
// ends, or an error if dir is not a folder or the library is broken.
func Run[R Outcome](ctx context.Context, dir string, lib Library[R], opts Options[R]) error {
	dir, err := folder(dir)
	if err != nil {
		return err
	}
	if opts.Settle <= 0 {
		opts.Settle = time.Second
	}
	w := &folderWatch[R]{lib: lib, dir: dir, opts: opts, known: map[string]stamp{}}
	if !opts.Poll {
		w.events = w.listen()
	}
	if w.events != nil {
		defer w.events.Close()
	}
	if w.opts.Interval <= 0 {
		w.opts.Interval = 3 * time.Second
		if w.events != nil {
			w.opts.Interval = 5 * time.Minute
		}
	}
	return w.loop(ctx)
}

// folder is dir as an absolute, clean path, checked to be a folder.
func folder(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	dir = filepath.Clean(abs)
	if st, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("watch %s: %w", dir, err)
	} else if !st.IsDir() {
		return "", fmt.Errorf("watch %s: not a folder", dir)
	}
	return dir, nil
}

// listen subscribes to the file system's events under the folder; nil when the system
// cannot deliver them (the watch polls then).
func (w *folderWatch[R]) listen() *fsnotify.Watcher {
	events, err := fsnotify.NewWatcher()
	if err == nil {
		if err = w.addTree(events, w.dir); err != nil {
			events.Close()
		}
	}
	if err != nil {
		slog.Warn("watch: file-system events unavailable; polling the watched folder", "dir", w.dir, "err", err)
		return nil
	}
	return events
}

// loop makes the first pass, then a pass once events settle and at every tick, until
// ctx ends or a pass fails.
func (w *folderWatch[R]) loop(ctx context.Context) error {
	var (
		evc  <-chan fsnotify.Event
		errc <-chan error
	)
	if w.events != nil {
		evc, errc = w.events.Events, w.events.Errors
	}
	again, err := w.sync(ctx, true)
	if err != nil {
		return err
	}
	tick := time.NewTicker(w.opts.Interval)
	defer tick.Stop()
	settle := time.NewTimer(w.opts.Settle)
	if !again {
		settle.Stop()
	}
	defer settle.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-evc:
			if !ok {
				evc = nil
				continue
			}
			w.saw(ev)
			settle.Reset(w.opts.Settle)
		case err, ok := <-errc:
			if !ok {
				errc = nil
				continue
			}
			// An overflowed event queue loses events: scan everything.
			slog.Warn("watch: watched folder events", "dir", w.dir, "err", err)
			settle.Reset(w.opts.Settle)
		case <-settle.C:
			if err := w.pass(ctx, settle); err != nil {
				return err
			}
		case <-tick.C:
			if err := w.pass(ctx, settle); err != nil {
				return err
			}
		}
	}
}

// saw follows an event: a folder created under the watched one is listened to as well.
func (w *folderWatch[R]) saw(ev fsnotify.Event) {
	if ev.Has(fsnotify.Create) {
		if st, err := os.Stat(ev.Name); err == nil && st.IsDir() {
			_ = w.addTree(w.events, ev.Name)
		}
	}
}

// pass syncs once more, arming settle again when a file was too fresh to read.
func (w *folderWatch[R]) pass(ctx context.Context, settle *time.Timer) error {
	again, err := w.sync(ctx, false)
	if err != nil {
		return err
	}
	if again {
		settle.Reset(w.opts.Settle)
	}
	return nil
}

type folderWatch[R Outcome] struct {
	lib    Library[R]
	dir    string
	opts   Options[R]
	known  map[string]stamp  // files as last ingested
	events *fsnotify.Watcher // nil: polling
}

// addTree listens to root and every folder below it that Expand would enter.
func (w *folderWatch[R]) addTree(events *fsnotify.Watcher, root string) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil
		}
		if !d.IsDir() {
			return nil
		}
		if p != root && skipWatchDir(d.Name()) {
			return filepath.SkipDir
		}
		if err := events.Add(p); err != nil {
			if p == root {
				return err
			}
			slog.Warn("watch: cannot watch a folder", "dir", p, "err", err)
		}
		return nil
	})
}

// skipWatchDir mirrors the folders ingest.Expand never enters.
func skipWatchDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules" || name == "__pycache__" ||
		name == "bower_components" || strings.HasSuffix(name, "_files")
}

// inDir reports whether path lies in dir or below it.
func inDir(path, dir string) bool {
	return strings.HasPrefix(path, dir+string(filepath.Separator))
}

// sync makes one pass: ingests new and changed files, removes documents of files gone.
// It reports again when a file was too fresh to read and a later pass is needed.
func (w *folderWatch[R]) sync(ctx context.Context, first bool) (again bool, err error) {
	// A folder that vanished (moved, deleted, its drive unplugged) ends the watch and
	// keeps its documents: removing them all is never what the user meant.
	if st, err := os.Stat(w.dir); err != nil || !st.IsDir() {
		return false, fmt.Errorf("watch %s: the folder was moved or deleted", w.dir)
	}
	current := w.scan()
	byPath, err := w.libraryByPath(ctx)
	if err != nil {
		return false, err
	}
	changed, again := w.changed(current)
	gone := w.gone(current, byPath, first)
	report := Pass[R]{Dir: w.dir}
	if err := w.removeGone(ctx, gone, byPath, &report); err != nil {
		return false, err
	}
	if err := w.ingestChanged(ctx, changed, current, byPath, &report); err != nil {
		return false, err
	}
	if (len(report.Ingested) > 0 || len(report.RemovedIDs) > 0) && w.opts.Synced != nil {
		w.opts.Synced(report)
	}
	return again, nil
}

// scan stamps every file under the folder that ingest would read.
func (w *folderWatch[R]) scan() map[string]stamp {
	current := map[string]stamp{}
	for _, p := range ingest.Expand([]string{w.dir}) {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		current[p] = stamp{st.ModTime(), st.Size()}
	}
	return current
}

// changed lists, sorted, the files new or changed since last ingested and settled;
// again is true when some file is still being written.
func (w *folderWatch[R]) changed(current map[string]stamp) (changed []string, again bool) {
	for p, st := range current {
		if old, ok := w.known[p]; ok && old == st {
			continue
		}
		if time.Since(st.mod) < w.opts.Settle {
			again = true // still being written
			continue
		}
		changed = append(changed, p)
	}
	slices.Sort(changed)
	return changed, again
}

// gone lists, sorted, the files no longer in the folder: those ingested before and, on
// the first pass, those of the library's documents under the folder.
func (w *folderWatch[R]) gone(current map[string]stamp, byPath map[string][]library.Document, first bool) []string {
	var gone []string
	for p := range w.known {
		if _, ok := current[p]; !ok {
			gone = append(gone, p)
		}
	}
	if first {
		// Deleted while nobody watched.
		for p := range byPath {
			if _, ok := current[p]; !ok && inDir(p, w.dir) && !slices.Contains(gone, p) {
				gone = append(gone, p)
			}
		}
	}
	slices.Sort(gone)
	return gone
}

// removeGone removes the documents of the files gone.
func (w *folderWatch[R]) removeGone(ctx context.Context, gone []string, byPath map[string][]library.Document, report *Pass[R]) error {
	for _, p := range gone {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, d := range byPath[p] {
			if err := w.lib.Remove(ctx, d.ID); err != nil {
				return err
			}
			report.RemovedIDs = append(report.RemovedIDs, d.ID)
		}
		delete(w.known, p)
		if len(byPath[p]) > 0 {
			report.Removed = append(report.Removed, p)
		}
	}
	return nil
}

// ingestChanged reads the changed files and removes the documents of their previous
// content.
func (w *folderWatch[R]) ingestChanged(ctx context.Context, changed []string, current map[string]stamp, byPath map[string][]library.Document, report *Pass[R]) error {
	if len(changed) == 0 {
		return nil
	}
	results, err := w.lib.Ingest(ctx, changed)
	if err != nil {
		return err
	}
	for i, r := range results {
		p := changed[i]
		w.known[p] = current[p] // a failed file is tried again when it changes
		// The file's previous content, if any, is no longer in the folder.
		for _, d := range byPath[p] {
			if d.ID != r.DocumentID() {
				if err := w.lib.Remove(ctx, d.ID); err != nil {
					return err
				}
				report.RemovedIDs = append(report.RemovedIDs, d.ID)
			}
		}
		// A file whose content was already in the library under another path is
		// skipped; nothing to report unless it is new to this path.
		if r.WasSkipped() && slices.ContainsFunc(byPath[p], func(d library.Document) bool { return d.ID == r.DocumentID() }) {
			continue
		}
		report.Ingested = append(report.Ingested, r)
	}
	return nil
}

// libraryByPath groups the library's documents by file path.
func (w *folderWatch[R]) libraryByPath(ctx context.Context) (map[string][]library.Document, error) {
	docs, err := w.lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	m := map[string][]library.Document{}
	for _, d := range docs {
		m[d.Path] = append(m[d.Path], d)
	}
	return m, nil
}

// File is the file in the library folder listing the watched folders.
const File = "watched.json"

var watchedMu sync.Mutex

// Folders lists the folders the user asked to watch (libDir/watched.json), sorted.
func Folders(libDir string) ([]string, error) {
	watchedMu.Lock()
	defer watchedMu.Unlock()
	return readWatched(libDir)
}

func readWatched(libDir string) ([]string, error) {
	b, err := os.ReadFile(filepath.Join(libDir, File))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("watched folders: %w", err)
	}
	var v struct {
		Folders []string `json:"folders"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("watched folders: %s: %w", File, err)
	}
	slices.Sort(v.Folders)
	return slices.Compact(v.Folders), nil
}

// Set adds dir to (on) or removes it from (off) the watched folders of the library in
// libDir, and returns the folder's absolute path as it is stored. Watching starts and
// stops with Run; this only records the choice.
func Set(libDir, dir string, on bool) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	abs = filepath.Clean(abs)
	if on {
		if st, err := os.Stat(abs); err != nil {
			return "", fmt.Errorf("watch %s: %w", abs, err)
		} else if !st.IsDir() {
			return "", fmt.Errorf("watch %s: not a folder", abs)
		}
	}
	watchedMu.Lock()
	defer watchedMu.Unlock()
	folders, err := readWatched(libDir)
	if err != nil {
		return "", err
	}
	folders = slices.DeleteFunc(folders, func(f string) bool { return f == abs })
	if on {
		folders = append(folders, abs)
		slices.Sort(folders)
	}
	b, err := json.MarshalIndent(struct {
		Folders []string `json:"folders"`
	}{Folders: folders}, "", "  ")
	if err != nil {
		return "", err
	}
	p := filepath.Join(libDir, File)
	if err := os.WriteFile(p+".tmp", b, 0o644); err != nil {
		return "", fmt.Errorf("save watched folders: %w", err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		return "", fmt.Errorf("save watched folders: %w", err)
	}
	return abs, nil
}
