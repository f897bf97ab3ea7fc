//go:build unix

package index

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/carrel-app/carrel/backend/crashpoint"
)

// verifies that a process killed while it creates a new word index leaves a folder that
// opens as an empty index, not one taken for damaged: the child (this test binary run
// again) is killed with SIGKILL right after bleve made the index, before its mapping was
// persisted (bleve's own layout then holds index_meta.json and no mapping: "error parsing
// mapping JSON" at the next open, seen in test:crash); then the index opens, takes a
// document and finds it.
func TestCreateLexicalKilled(t *testing.T) {
	if dir := os.Getenv("CARREL_INDEX_CREATE_CHILD"); dir != "" {
		OpenLexical(dir) // killed inside
		os.Exit(3)
	}
	dir := filepath.Join(t.TempDir(), "bleve")
	cmd := exec.Command(os.Args[0], "-test.run=^TestCreateLexicalKilled$")
	cmd.Env = append(os.Environ(), "CARREL_INDEX_CREATE_CHILD="+dir, crashpoint.Env+"=lexical.created:1")
	err := cmd.Run()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed at the crash point: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, lexCreating)); err != nil {
		t.Fatalf("the kill came before the index was made: %v", err)
	}
	lex, err := OpenLexical(dir)
	if err != nil {
		t.Fatalf("open after a kill during creation: %v", err)
	}
	defer lex.Close()
	if err := lex.Add([]LexDoc{{ID: "p1", Text: "Thoreau built a cabin by Walden Pond"}}); err != nil {
		t.Fatal(err)
	}
	ids, err := lex.IDs()
	if err != nil || len(ids) != 1 || ids[0] != "p1" {
		t.Fatalf("ids after the add: %v %v", ids, err)
	}
	if _, err := os.Stat(filepath.Join(dir, lexCreating)); !os.IsNotExist(err) {
		t.Fatalf("the interrupted creation's folder is still there: %v", err)
	}
}
