package intake

import (
	"context"
	"time"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/watch"
)

// WatchOptions tune [Intake.Watch].
type WatchOptions struct {
	// Progress hears every change of a document's state, as IngestFile's does.
	Progress ProgressFunc
	// Synced, if not nil, hears the outcome of each pass that changed something.
	Synced func(WatchSync)
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

// WatchSync is what one pass over a watched folder did.
type WatchSync struct {
	// Dir is the watched folder.
	Dir string `json:"dir"`
	// Ingested are the outcomes of the files found new or changed.
	Ingested []Result `json:"ingested,omitempty"`
	// Removed are the paths whose documents were removed because the file is gone (or
	// no longer one Carrel reads).
	Removed []string `json:"removed,omitempty"`
	// RemovedIDs are the ids of the documents removed: those of Removed, and the previous
	// content of files that changed.
	RemovedIDs []string `json:"removed_ids,omitempty"`
}

// WatchedFile is the file in the library folder listing the watched folders.
const WatchedFile = watch.File

// DocumentID and WasSkipped tell a watch what became of a file (watch.Outcome).
func (r Result) DocumentID() string { return r.DocID }
func (r Result) WasSkipped() bool   { return r.Status == Skipped }

// Watch keeps the library in step with the folder dir until ctx is done (see
// [watch.Run]): files added or changed under it are ingested through IngestFiles,
// documents whose file was deleted, or changed to other content, are removed.
func (in *Intake) Watch(ctx context.Context, dir string, opts WatchOptions) error {
	o := watch.Options[Result]{Poll: opts.Poll, Interval: opts.Interval, Settle: opts.Settle}
	if opts.Synced != nil {
		o.Synced = func(p watch.Pass[Result]) {
			opts.Synced(WatchSync{Dir: p.Dir, Ingested: p.Ingested, Removed: p.Removed, RemovedIDs: p.RemovedIDs})
		}
	}
	return watch.Run(ctx, dir, watched{in, opts.Progress}, o)
}

// watched is intake as a watch sees it.
type watched struct {
	in       *Intake
	progress ProgressFunc
}

func (w watched) Ingest(ctx context.Context, paths []string) ([]Result, error) {
	return w.in.IngestFiles(ctx, paths, 0, w.progress, nil)
}

func (w watched) Remove(ctx context.Context, docID string) error { return w.in.Remove(ctx, docID) }

func (w watched) Documents(ctx context.Context) ([]library.Document, error) {
	return w.in.lib.Documents(ctx)
}

// WatchedFolders lists the folders the user asked to watch (DIR/watched.json), sorted.
func (in *Intake) WatchedFolders() ([]string, error) { return watch.Folders(in.dir) }

// SetWatched adds dir to (on) or removes it from (off) the watched folders, and returns
// the folder's absolute path as it is stored. Watching starts and stops with Watch; this
// only records the choice.
func (in *Intake) SetWatched(dir string, on bool) (string, error) {
	return watch.Set(in.dir, dir, on)
}
