package workspace

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
)

// verifies a library moves to another file system, where a rename cannot take it, by
// copying: its documents come along, the old folder is gone, and what is added
// afterwards is ingested in the new place.
func TestMoveAcrossFileSystems(t *testing.T) {
	root := t.TempDir()
	other, err := os.MkdirTemp("/dev/shm", "carrel-move-")
	if err != nil || sameDevice(t, root, other) {
		t.Skip("no second file system (/dev/shm) to move the library to")
	}
	defer os.RemoveAll(other)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("CARREL_LIBRARY", "")
	first := filepath.Join(root, "first")
	var mu sync.Mutex
	ready := make(chan string, 8)
	w := openWith(t, first, Hooks{Ingested: func(path string, r engine.Result, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err == nil && r.Status == engine.Inserted {
			ready <- r.DocID
		}
	}})
	note := filepath.Join(root, "note.md")
	os.WriteFile(note, []byte("# Quokkas\n\nThe quokka keeps its notes wherever the library goes.\n"), 0o644)
	if n, err := w.Add([]string{note}); err != nil || n != 1 {
		t.Fatalf("Add = %d, %v", n, err)
	}
	<-ready

	if err := os.Rename(first, filepath.Join(other, "probe")); err == nil || !crossDevice(err) {
		t.Fatalf("a rename across file systems did not fail as one: %v", err)
	}
	to := filepath.Join(other, "carrel")
	if err := w.SetFolder(to, true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Fatalf("the old folder is still there after the move: %v", err)
	}
	if _, err := os.Stat(filepath.Join(to, library.DBName)); err != nil {
		t.Fatalf("the database did not move: %v", err)
	}
	docs, err := w.Engine().Library().Documents(context.Background())
	if err != nil || len(docs) != 1 {
		t.Fatalf("after the move: %+v %v", docs, err)
	}
	if f := w.Folder(); f.Dir != to || f.Documents != 1 || !f.Remembered {
		t.Fatalf("folder after the move: %+v", f)
	}
	second := filepath.Join(root, "second.md")
	os.WriteFile(second, []byte("Wombats dig burrows in the moved library.\n"), 0o644)
	if _, err := w.Add([]string{second}); err != nil {
		t.Fatal(err)
	}
	<-ready
	if hits, err := w.Engine().Search(context.Background(), "wombats burrows", engine.SearchOptions{K: 3}); err != nil || len(hits) == 0 {
		t.Fatalf("search in the moved library: %v %v", hits, err)
	}
}

func sameDevice(t *testing.T, a, b string) bool {
	t.Helper()
	var sa, sb syscall.Stat_t
	if syscall.Stat(a, &sa) != nil || syscall.Stat(b, &sb) != nil {
		return true
	}
	return sa.Dev == sb.Dev
}
