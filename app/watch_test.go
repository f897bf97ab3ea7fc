package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testengine"
)

type watchRecorder struct {
	mu      sync.Mutex
	removed map[string]bool // ids
	ready   map[string]bool // paths
	synced  int
}

func (r *watchRecorder) Emit(name Event, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch name {
	case EventLibraryChanged:
		d := data.(Document)
		if d.Status == "removed" {
			r.removed[d.ID] = true
		} else if d.Status == "ready" {
			r.ready[d.Path] = true
		}
	case EventWatchSynced:
		r.synced++
	}
}

func (r *watchRecorder) has(f func() bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return f()
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// verifies the watched-folders bridge: WatchFolder ingests the folder and follows it
// (library:changed and watch:synced events), the choice survives a restart of the app,
// UnwatchFolder stops following, and a folder deleted while watched is reported.
func TestWatchBridge(t *testing.T) {
	lib, dir := t.TempDir(), t.TempDir()
	eng := testengine.Open(t, engine.Config{Dir: lib})
	rec := &watchRecorder{removed: map[string]bool{}, ready: map[string]bool{}}
	a := New(eng, rec)
	a.start(context.Background())

	// Each step works on the watches the steps before left; b is the app started anew.
	first, second := filepath.Join(dir, "first.md"), filepath.Join(dir, "second.txt")
	var b *App
	defer func() {
		if b != nil {
			b.stop()
		}
	}()
	t.Run("WatchFolder ingests a folder and follows it", func(t *testing.T) {
		os.WriteFile(first, []byte("# First\n\nThe first note.\n"), 0o644)
		if _, err := a.WatchFolder(first); err == nil {
			t.Errorf("a file was accepted as a folder to watch")
		}
		w, err := a.WatchFolder(dir)
		if err != nil || w.Dir != dir || !w.Active {
			t.Fatalf("WatchFolder = %+v, %v", w, err)
		}
		eventually(t, "the folder's file", func() bool { return rec.has(func() bool { return rec.ready[first] }) })
		os.WriteFile(second, []byte("The second note, added while watched.\n"), 0o644)
		eventually(t, "the added file", func() bool { return rec.has(func() bool { return rec.ready[second] && rec.synced > 0 }) })
		ls, err := a.ListWatched()
		if err != nil || len(ls) != 1 || !ls[0].Active || ls[0].Dir != dir {
			t.Fatalf("ListWatched = %+v, %v", ls, err)
		}
		a.stop()
	})

	t.Run("a new app resumes the watch and sees a deletion made meanwhile", func(t *testing.T) {
		// A new app over the same library resumes the watch and sees the deletion made
		// while it was not running.
		docs, _ := eng.Library().Documents(context.Background())
		var secondID string
		for _, d := range docs {
			if d.Path == second {
				secondID = d.ID
			}
		}
		os.Remove(second)
		b = New(eng, rec)
		b.start(context.Background())
		eventually(t, "the deletion", func() bool { return rec.has(func() bool { return rec.removed[secondID] }) })
	})

	t.Run("UnwatchFolder stops following", func(t *testing.T) {
		if err := b.UnwatchFolder(dir); err != nil {
			t.Fatal(err)
		}
		if ls, _ := b.ListWatched(); len(ls) != 0 {
			t.Errorf("still watched: %+v", ls)
		}
		// UnwatchFolder returns once the watch has ended: nothing is left to take in a file
		// added now. Another folder, still watched, takes in its own file, and only then is
		// the unwatched one checked: the app did work on files written after it.
		third := filepath.Join(dir, "third.txt")
		os.WriteFile(third, []byte("Not watched any more.\n"), 0o644)
		control := t.TempDir()
		if _, err := b.WatchFolder(control); err != nil {
			t.Fatal(err)
		}
		controlFile := filepath.Join(control, "control.md")
		os.WriteFile(controlFile, []byte("# Control\n\nWatched, so taken in.\n"), 0o644)
		eventually(t, "the still-watched folder's file", func() bool { return rec.has(func() bool { return rec.ready[controlFile] }) })
		if rec.has(func() bool { return rec.ready[third] }) {
			t.Errorf("a file added after UnwatchFolder was ingested")
		}
		all, _ := eng.Library().Documents(context.Background())
		for _, d := range all {
			if d.Path == third {
				t.Errorf("the library holds %s, added after UnwatchFolder", third)
			}
		}
		if err := b.UnwatchFolder(control); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("a vanished folder ends its watch with a reason, its documents kept", func(t *testing.T) {
		// A watched folder that disappears ends its watch with a reason.
		gone := t.TempDir()
		if _, err := b.WatchFolder(gone); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(gone, "kept.md"), []byte("# Kept\n\nKept when its folder vanishes.\n"), 0o644)
		eventually(t, "the file of the folder to vanish", func() bool {
			return rec.has(func() bool { return rec.ready[filepath.Join(gone, "kept.md")] })
		})
		os.RemoveAll(gone)
		eventually(t, "the vanished folder", func() bool {
			ls, _ := b.ListWatched()
			return len(ls) == 1 && !ls[0].Active && strings.Contains(ls[0].Error, "moved or deleted")
		})
		docs, _ := eng.Library().Documents(context.Background())
		kept := false
		for _, d := range docs {
			kept = kept || d.Path == filepath.Join(gone, "kept.md")
		}
		if !kept {
			t.Errorf("the documents of a vanished folder were removed")
		}
	})
}
