package watch_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

// libraryPaths lists the paths of the library's ready documents, sorted.
func libraryPaths(t *testing.T, eng *engine.Engine) []string {
	t.Helper()
	docs, err := eng.Library().Documents(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range docs {
		if d.Status == library.StatusReady {
			out = append(out, d.Path)
		}
	}
	slices.Sort(out)
	return out
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// verifies, with file-system events and with polling, that a watched folder's files are
// ingested at the start (and documents of files deleted while unwatched removed), that
// files added later (also in new subfolders, also PDFs copied in) are ingested, changed
// files replaced, deleted files removed, and ignored files left alone.
func TestWatch(t *testing.T) {
	for _, mode := range []struct {
		name string
		poll bool
	}{{"events", false}, {"polling", true}} {
		t.Run(mode.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			eng, err := engine.Open(engine.Config{Dir: t.TempDir(), OllamaHost: "127.0.0.1:9"})
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			dir := t.TempDir()
			notes := filepath.Join(dir, "notes.md")
			old := filepath.Join(dir, "old.txt")
			write(t, notes, "# Pond\n\nThe pond is deep and clear.\n")
			write(t, old, "An old note about the railroad.\n")
			write(t, filepath.Join(dir, ".hidden.md"), "# Hidden\n")
			write(t, filepath.Join(dir, ".gitignore"), "build/\n")
			write(t, filepath.Join(dir, "build", "out.md"), "# Generated\n")
			// old.txt is in the library, then deleted while nobody watches.
			if r, err := eng.Intake().IngestFile(ctx, old, nil); err != nil || r.Status != engine.Inserted {
				t.Fatalf("%+v %v", r, err)
			}
			os.Remove(old)

			var mu sync.Mutex
			var syncs []engine.WatchSync
			done := make(chan error, 1)
			go func() {
				done <- eng.Intake().Watch(ctx, dir, engine.WatchOptions{Poll: mode.poll, Interval: 200 * time.Millisecond, Settle: 100 * time.Millisecond,
					Synced: func(s engine.WatchSync) { mu.Lock(); syncs = append(syncs, s); mu.Unlock() }})
			}()
			want := func(paths ...string) func() bool {
				slices.Sort(paths)
				return func() bool { return slices.Equal(libraryPaths(t, eng), paths) }
			}
			waitFor(t, "the first pass", want(notes))

			// Added: a file in a new subfolder, and a PDF copied in.
			sub := filepath.Join(dir, "chapters", "one.txt")
			write(t, sub, "Chapter one: economy and the cost of a shanty.\n")
			pdf, err := os.ReadFile(testcorpus.File(t, "Walden.pdf"))
			if err != nil {
				t.Fatal(err)
			}
			walden := filepath.Join(dir, "walden.pdf")
			write(t, walden, string(pdf))
			write(t, filepath.Join(dir, "build", "more.md"), "# Still ignored\n")
			waitFor(t, "added files", want(notes, sub, walden))

			// Changed: the old content's document is replaced by the new one.
			before, _ := eng.Library().Documents(ctx)
			var oldID string
			for _, d := range before {
				if d.Path == notes {
					oldID = d.ID
				}
			}
			time.Sleep(20 * time.Millisecond) // a new mtime even on coarse clocks
			write(t, notes, "# Pond\n\nThe pond froze over in December.\n")
			waitFor(t, "the changed file", func() bool {
				docs, _ := eng.Library().Documents(ctx)
				for _, d := range docs {
					if d.Path == notes && d.ID != oldID && d.Status == library.StatusReady {
						return len(libraryPaths(t, eng)) == 3
					}
				}
				return false
			})
			if _, err := eng.Library().Document(ctx, oldID); err == nil {
				t.Errorf("the old content of notes.md is still in the library")
			}

			// Deleted: a file, and a whole folder.
			os.Remove(walden)
			os.RemoveAll(filepath.Join(dir, "chapters"))
			waitFor(t, "deletions", want(notes))

			cancel()
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Errorf("Watch returned %v, want context.Canceled", err)
			}
			mu.Lock()
			defer mu.Unlock()
			removed := 0
			for _, s := range syncs {
				removed += len(s.Removed)
			}
			if len(syncs) < 3 || removed < 3 {
				t.Errorf("Synced heard %d passes removing %d files: %+v", len(syncs), removed, syncs)
			}
		})
	}
}

// verifies the watched folders are kept in the library folder, added once, removed, and
// that a file is refused.
func TestWatchedFolders(t *testing.T) {
	eng, err := engine.Open(engine.Config{Dir: t.TempDir(), OllamaHost: "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b, a} {
		if _, err := eng.Intake().SetWatched(d, true); err != nil {
			t.Fatal(err)
		}
	}
	got, err := eng.Intake().WatchedFolders()
	want := []string{a, b}
	slices.Sort(want)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("WatchedFolders = %v, %v; want %v", got, err, want)
	}
	if _, err := eng.Intake().SetWatched(a, false); err != nil {
		t.Fatal(err)
	}
	if got, _ := eng.Intake().WatchedFolders(); !slices.Equal(got, []string{b}) {
		t.Errorf("after removing %s: %v", a, got)
	}
	f := filepath.Join(a, "f.txt")
	write(t, f, "x")
	if _, err := eng.Intake().SetWatched(f, true); err == nil {
		t.Errorf("a file was accepted as a watched folder")
	}
	if err := eng.Intake().Watch(context.Background(), f, engine.WatchOptions{}); err == nil {
		t.Errorf("Watch accepted a file")
	}
}
