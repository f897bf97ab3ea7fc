package logfile

import (
	"bytes"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestDirFollowsXDG verifies that the log folder is under $XDG_STATE_HOME when set and
// under ~/.local/state otherwise (Linux).
func TestDirFollowsXDG(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG folders are Linux's")
	}
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	if d, err := Dir(); err != nil || d != filepath.Join(state, "carrel") {
		t.Fatalf("Dir() = %q, %v; want %q", d, err, filepath.Join(state, "carrel"))
	}
	home := t.TempDir()
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", home)
	if d, err := Dir(); err != nil || d != filepath.Join(home, ".local", "state", "carrel") {
		t.Fatalf("Dir() without XDG_STATE_HOME = %q, %v", d, err)
	}
}

// TestSetupWritesFileAndStderr verifies that after Setup both slog and the standard log
// package reach the file and stderr, and that a failing stderr does not lose the line.
func TestSetupWritesFileAndStderr(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("uses XDG_STATE_HOME")
	}
	defer slog.SetDefault(slog.Default())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var stderr bytes.Buffer
	dir, closeLog, err := Setup(&stderr)
	if err != nil {
		t.Fatal(err)
	}
	slog.Warn("pdf engine cold", "path", "/x.pdf")
	log.Printf("from the log package")
	closeLog()
	b, err := os.ReadFile(filepath.Join(dir, Name))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`level=WARN msg="pdf engine cold" path=/x.pdf`, "from the log package"} {
		if !strings.Contains(string(b), want) || !strings.Contains(stderr.String(), want) {
			t.Errorf("%q missing: file %q, stderr %q", want, b, stderr.String())
		}
	}

	// A closed stderr (started from a menu) must not keep lines from the file.
	dir, closeLog, err = Setup(failing{})
	if err != nil {
		t.Fatal(err)
	}
	slog.Info("after stderr closed")
	closeLog()
	if b, _ := os.ReadFile(filepath.Join(dir, Name)); !strings.Contains(string(b), "after stderr closed") {
		t.Errorf("line lost with a failing stderr: %q", b)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestRotates verifies that the log is rotated past MaxMB, so it cannot fill the disk.
func TestRotates(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 1023) + "\n")
	for range MaxMB*1024 + 10 {
		if _, err := f.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	rotated, _ := filepath.Glob(filepath.Join(dir, "carrel-*.log"))
	st, err := os.Stat(filepath.Join(dir, Name))
	if err != nil {
		t.Fatal(err)
	}
	if len(rotated) != 1 || st.Size() > 64*1024 {
		t.Fatalf("after %d MB: rotated %v, current %d bytes", MaxMB, rotated, st.Size())
	}
}

// TestOpenUnwritable verifies that a folder that cannot be made is reported at once.
func TestOpenUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Open(filepath.Join(file, "logs")); err == nil {
		t.Fatal("Open under a regular file succeeded")
	}
}
