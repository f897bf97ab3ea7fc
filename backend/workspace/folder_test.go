package workspace

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
)

// verifies a switch refuses the folders it cannot use, naming why, and leaves the
// library in force open and unchanged.
func TestSetFolderRefuses(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("CARREL_LIBRARY", "")
	first := filepath.Join(root, "first")
	w := open(t, first)
	other := filepath.Join(root, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "thesis.pdf"), []byte("x"), 0o644)
	for _, c := range []struct {
		dir  string
		move bool
		want string
	}{
		{other, false, "not a Carrel library"},
		{other, true, "is not empty"},
		{filepath.Join(other, "thesis.pdf"), false, "is a file"},
		{filepath.Join(other, "thesis.pdf", "lib"), false, "not a directory"},
		{"/proc/carrel-library", false, "cannot write in /proc"}, // even root cannot
		{"relative/lib", false, "not a full path"},
		{"  ", false, "name a folder"},
		{first, false, "already the library folder"},
		{filepath.Join(first, "inner"), true, "into itself"},
		{root, true, "is not empty"},
	} {
		if err := w.SetFolder(c.dir, c.move); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SetFolder(%q, %v) = %v, want %q", c.dir, c.move, err, c.want)
		}
	}
	if got := w.Engine().Config().Dir; got != first {
		t.Fatalf("after refused switches the library in force is %s", got)
	}
	if _, err := w.Engine().Library().Documents(context.Background()); err != nil {
		t.Fatalf("the library was closed by a refused switch: %v", err)
	}
}

func open(t *testing.T, dir string) *Workspace { return openWith(t, dir, Hooks{}) }

// openWith opens a workspace over a new library in dir with no Ollama; it is stopped at
// the end of the test.
func openWith(t *testing.T, dir string, hooks Hooks) *Workspace {
	t.Helper()
	eng, err := engine.Open(engine.Config{Dir: dir, OllamaHost: "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	w := New(eng, hooks)
	w.Start(context.Background())
	t.Cleanup(func() {
		w.Stop()
		eng.Close()
	})
	return w
}
