// Package testcorpus finds the real PDFs tests run on: the pdfcpu module's testdata
// (55 PDFs, about 1530 pages), which the Go module cache holds because go.mod requires pdfcpu.
// It is the one place tests and benches locate it; a test that needs the corpus fails when
// it cannot be found (go.mod requires pdfcpu, so it always can be), never skips.
package testcorpus

import (
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// MinPDFs is fewer PDFs than the corpus holds (55): a listing under it means the corpus
// was not found whole.
const MinPDFs = 50

var dir = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/pdfcpu/pdfcpu").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/pdfcpu/pdfcpu: %w", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "pkg", "testdata"), nil
})

// Folder returns the corpus folder (for code without a testing.TB, such as benches).
func Folder() (string, error) { return dir() }

// Dir returns the corpus folder, failing tb if the module cannot be found.
func Dir(tb testing.TB) string {
	tb.Helper()
	d, err := dir()
	if err != nil {
		tb.Fatalf("find the pdfcpu test corpus: %v", err)
	}
	return d
}

// File returns the path of one corpus file.
func File(tb testing.TB, name string) string {
	tb.Helper()
	return filepath.Join(Dir(tb), name)
}

// ListPDFs returns every PDF under the corpus folder, sorted, or an error when there are
// fewer than MinPDFs.
func ListPDFs() ([]string, error) {
	d, err := dir()
	if err != nil {
		return nil, err
	}
	var files []string
	err = filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
		if err == nil && !e.IsDir() && strings.EqualFold(filepath.Ext(p), ".pdf") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("list the pdfcpu test corpus: %w", err)
	}
	sort.Strings(files)
	if len(files) < MinPDFs {
		return nil, fmt.Errorf("only %d PDFs under %s (want at least %d)", len(files), d, MinPDFs)
	}
	return files, nil
}

// PDFs returns every PDF under the corpus folder, sorted, failing tb when the corpus is
// missing or incomplete.
func PDFs(tb testing.TB) []string {
	tb.Helper()
	files, err := ListPDFs()
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// Woods is a small Markdown document about Walden that answer tests ask about: why
// Thoreau went to the woods, what he planted and what he ate.
const Woods = `# Walden

Henry David Thoreau went to the woods because he wished to live deliberately, to front only
the essential facts of life, and see if he could not learn what it had to teach.

## Beans

Thoreau planted about two acres and a half of upland with beans, potatoes, corn and peas.
What did he eat there? He would eat mostly rice, beans and bread he baked himself, with salt
pork and molasses.
`
