package app

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testengine"
)

type openRecorder struct {
	mu     sync.Mutex
	opened []Document
	known  []Document
	ready  map[string]bool
}

func (r *openRecorder) Emit(name Event, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch name {
	case EventDocumentOpen:
		r.opened = append(r.opened, data.(Document))
	case EventLibraryKnown:
		r.known = append(r.known, data.(Document))
	case EventLibraryChanged:
		if d := data.(Document); d.Status == "ready" {
			r.ready[d.Path] = true
		}
	}
}

func (r *openRecorder) get() ([]Document, map[string]bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ready := map[string]bool{}
	for k, v := range r.ready {
		ready[k] = v
	}
	return append([]Document(nil), r.opened...), ready
}

// recordedApp starts an App on a new library whose events rec records; it stops when
// the test ends.
func recordedApp(t *testing.T) (*App, *openRecorder) {
	t.Helper()
	rec := &openRecorder{ready: map[string]bool{}}
	a := New(testengine.Open(t, engine.Config{}), rec)
	a.start(context.Background())
	t.Cleanup(a.stop)
	return a, rec
}

// verifies files given from outside (carrel FILE..., a second launch): given before the
// window is ready they wait for it; then each file is added and its document opened once
// read, a file already in the library is opened again, and a folder's files are added but
// not opened.
func TestOpenFiles(t *testing.T) {
	a, rec := recordedApp(t)
	dir := t.TempDir()

	note := filepath.Join(dir, "note.md")
	os.WriteFile(note, []byte("# Mitochondria\n\nThe mitochondrion makes ATP for the cell.\n"), 0o644)
	a.openFiles([]string{note})
	if d, err := a.ListDocuments(); err != nil || len(d) != 0 {
		t.Fatalf("a file was added before the window was ready: %+v %v", d, err)
	}
	a.windowReady()
	eventually(t, "the note opened", func() bool { o, _ := rec.get(); return len(o) == 1 })
	if o, _ := rec.get(); o[0].Path != note || o[0].Title != "Mitochondria" || o[0].Status != "ready" {
		t.Fatalf("opened %+v", o[0])
	}

	// Given again (a second "Open with"): the same document is opened, not added twice.
	a.openFiles([]string{note})
	eventually(t, "the note opened again", func() bool { o, _ := rec.get(); return len(o) == 2 })
	if o, _ := rec.get(); o[1].ID != o[0].ID {
		t.Fatalf("reopened %q, first %q", o[1].ID, o[0].ID)
	}

	// A folder: its files are added, none opened.
	sub := filepath.Join(dir, "notes")
	os.Mkdir(sub, 0o755)
	inner := filepath.Join(sub, "ribosome.txt")
	os.WriteFile(inner, []byte("Ribosomes make proteins from messenger RNA.\n"), 0o644)
	a.openFiles([]string{sub})
	eventually(t, "the folder's file read", func() bool { _, r := rec.get(); return r[inner] })
	if o, _ := rec.get(); len(o) != 2 {
		t.Fatalf("a folder's file was opened: %+v", o[2:])
	}
	docs, err := a.ListDocuments()
	if err != nil || len(docs) != 2 {
		t.Fatalf("library holds %d documents (%v), want 2", len(docs), err)
	}
}

// verifies OpenLogFolder: it makes the folder, shows it through the opener and returns
// it; without a log file it says where the log goes instead.
func TestOpenLogFolder(t *testing.T) {
	a := New(nil, newHub())
	if _, err := a.OpenLogFolder(); err == nil {
		t.Fatal("no error without a log folder")
	}
	a.logDir = filepath.Join(t.TempDir(), "state", "carrel")
	var shown string
	a.openFolder = func(dir string) error { shown = dir; return nil }
	got, err := a.OpenLogFolder()
	if err != nil || got != a.logDir || shown != a.logDir {
		t.Fatalf("OpenLogFolder = %q, %v; shown %q", got, err, shown)
	}
	if st, err := os.Stat(a.logDir); err != nil || !st.IsDir() {
		t.Fatalf("log folder not made: %v", err)
	}
}

// counts returns the library:known documents and how many files are ready.
func (r *openRecorder) counts() (known []Document, ready int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Document(nil), r.known...), len(r.ready)
}

// verifies a file added from the window that is already in the library (the same
// content, under any name) is told as such: a library:known event with the document it
// already is, so the window can say "Already in your library" (issue 19, item 5); a new
// file is not.
func TestAddKnownFile(t *testing.T) {
	a, rec := recordedApp(t)
	dir := t.TempDir()
	a.windowReady()

	note, copied := filepath.Join(dir, "note.md"), filepath.Join(dir, "copy of note.md")
	body := []byte("# Mitochondria\n\nThe mitochondrion makes ATP for the cell.\n")
	os.WriteFile(note, body, 0o644)
	os.WriteFile(copied, body, 0o644)
	if _, err := a.AddPaths([]string{note}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the note read", func() bool { _, n := rec.counts(); return n == 1 })
	if k, _ := rec.counts(); len(k) != 0 {
		t.Fatalf("a new file was told as known: %+v", k)
	}
	if _, err := a.AddPaths([]string{copied}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the copy told as known", func() bool { k, _ := rec.counts(); return len(k) == 1 })
	if k, _ := rec.counts(); k[0].Title != "Mitochondria" || k[0].Path != note {
		t.Fatalf("known: %+v; want the document the note already is", k[0])
	}
	if docs, err := a.ListDocuments(); err != nil || len(docs) != 1 {
		t.Fatalf("the library after adding a copy: %d documents, %v", len(docs), err)
	}
}
