package archtest

import (
	"bytes"
	"go/format"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// verifies that every Go file of the module, tests and tooling included, is as gofmt
// writes it (go/format is gofmt's own printer, from the same Go release as the go
// command running the test): `gofmt -l .` lists nothing.
func TestGofmt(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Folders that hold no Go of the module: the frontend's packages, and the
			// go tool's own rule (hidden, _ and testdata folders).
			if n := d.Name(); path != root && (n == "node_modules" || n == "frontend" || n == "testdata" ||
				strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		out, err := format.Source(src)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			return nil
		}
		if !bytes.Equal(src, out) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s is not gofmt-formatted: run gofmt -w %s", rel, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 300 {
		t.Errorf("checked %d Go files, expected the module's 400 or so", n)
	}
}
