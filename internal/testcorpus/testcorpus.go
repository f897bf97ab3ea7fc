// Package testcorpus finds the real PDFs tests run on: the pdfcpu module's testdata
// (55 PDFs, about 1530 pages), which the Go module cache holds because go.mod requires pdfcpu.
package testcorpus

import (
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var dir = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/pdfcpu/pdfcpu").Output()
	if err != nil {
		return "", err
	}
	return filepath.Join(strings.TrimSpace(string(out)), "pkg", "testdata"), nil
})

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
