package app

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/carrel-app/carrel/backend/envconfig"
)

func TestUIDump(t *testing.T) {
	t.Setenv(envconfig.UIDumpVar, "")
	if d := newUIDump(); d != nil {
		t.Fatalf("unset %s gave a dump %+v", envconfig.UIDumpVar, d)
	}
	path := filepath.Join(t.TempDir(), "ui.txt")
	t.Setenv(envconfig.UIDumpVar, path)
	d := newUIDump()
	if d == nil {
		t.Fatal("no dump with the variable set")
	}
	for _, text := range []string{"Library\nAsk a question", "Best passages"} {
		if err := d.Write(text); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != text {
			t.Fatalf("dump = %q, %v; want %q", got, err, text)
		}
	}
	// Only the dump itself is left: the temporary files were renamed.
	if es, _ := os.ReadDir(filepath.Dir(path)); len(es) != 1 {
		t.Fatalf("%d files beside the dump, want 1", len(es))
	}
	d.path = filepath.Join(t.TempDir(), "missing", "ui.txt")
	if err := d.Write("x"); err == nil {
		t.Fatal("no error writing into a missing folder")
	}
}
