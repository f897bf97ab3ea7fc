//go:build unix

package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// verifies a named pipe with a supported name is refused at once, not read
// (reading it would wait for a writer forever).
func TestNamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "notes.txt")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := File(context.Background(), p, nil)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("got %v, want ErrUnsupported", err)
		}
		checkMessage(t, err, "notes.txt", "not a regular file")
	case <-time.After(10 * time.Second):
		t.Fatal("File blocked on a named pipe")
	}
}
