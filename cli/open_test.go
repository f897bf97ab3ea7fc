package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// verifies `carrel FILE...` (a file manager's "Open with"): existing files and folders,
// relative ones made absolute, come back as *OpenFiles, which callers also see as
// ErrNoCommand; a missing file or an unknown word is still an unknown command.
func TestOpenFilesArgs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("a.pdf", []byte("%PDF-1.4\n"), 0o644)
	os.Mkdir("notes", 0o755)
	lib := filepath.Join(dir, "lib")
	_, code, err := Run([]string{"--library", lib, "a.pdf", "notes", "file://" + filepath.Join(dir, "a.pdf")}, Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}})
	var of *OpenFiles
	if code != 0 || !errors.As(err, &of) || !errors.Is(err, ErrNoCommand) {
		t.Fatalf("Run = %d, %v", code, err)
	}
	want := []string{filepath.Join(dir, "a.pdf"), filepath.Join(dir, "notes"), filepath.Join(dir, "a.pdf")}
	if !slices.Equal(of.Paths, want) {
		t.Fatalf("paths %q, want %q", of.Paths, want)
	}
	for _, args := range [][]string{{"missing.pdf"}, {"a.pdf", "missing.pdf"}, {"serch", "x"}} {
		if _, code, err := Run(append([]string{"--library", lib}, args...), Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}); code != 2 || errors.Is(err, ErrNoCommand) {
			t.Errorf("%q: exit %d, %v; want an unknown command", args, code, err)
		}
	}
}

// verifies that a second launch's arguments give the running window only its files:
// flags and their values are skipped, relative paths are taken from the launch's folder,
// and a command line with a command gives nothing.
func TestFilesFrom(t *testing.T) {
	wd, other := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(wd, "b.md"), []byte("# B\n"), 0o644)
	got := FilesFrom([]string{"--library", other, "--chat-model", "x", "b.md"}, wd)
	if want := []string{filepath.Join(wd, "b.md")}; !slices.Equal(got, want) {
		t.Fatalf("FilesFrom = %q, want %q (the --library folder is not a file to add)", got, want)
	}
	if got := FilesFrom([]string{"search", "b.md"}, wd); got != nil {
		t.Fatalf("a command's arguments were taken as files: %q", got)
	}
	if got := FilesFrom(nil, wd); got != nil {
		t.Fatalf("no arguments gave %q", got)
	}
}

// verifies --version prints the version set at build time and exits 0 without opening a
// library.
func TestVersion(t *testing.T) {
	lib := filepath.Join(t.TempDir(), "lib")
	var out bytes.Buffer
	_, code, err := Run([]string{"--library", lib, "--version"}, Env{Stdout: &out, Stderr: &bytes.Buffer{}, Version: "1.2.3"})
	if code != 0 || err != nil || out.String() != "carrel 1.2.3\n" {
		t.Fatalf("--version: %d %v %q", code, err, out.String())
	}
	if _, err := os.Stat(lib); err == nil {
		t.Fatal("--version created the library")
	}
}
