// Package archtest checks the shape of the module that docs/architecture.md draws: the
// layers import one way only, product code leaves internal/ (test and bench tooling)
// alone, only backend/envconfig reads Carrel's environment variables, no product
// function is longer than 80 lines (funclen_test.go), every Go file is as gofmt writes
// it (gofmt_test.go), and the doc places every package in the layer this test does
// (doc_test.go).
package archtest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/carrel-app/carrel"

// layers gives every product package its place in docs/architecture.md's picture, top
// (0) to bottom. A package may import only packages of a lower layer (a higher
// number). A new package fails the test until it is placed here and in the doc.
var layers = map[string]int{
	"":                       0, // main: the Wails entry and the CLI's dispatch
	"cli":                    1, // headless commands; `carrel serve` runs the bridge over HTTP
	"app":                    2, // the bridge to the webview
	"backend/workspace":      3, // the open library, its running work, switching it
	"backend/engine":         4, // the coordinator
	"backend/asking":         5, // sessions: the steps of one question, saving, resuming
	"backend/intake":         5, // taking documents in: the queue, storing, indexing, embedding
	"backend/summary":        5, // study summaries: map over sections, reduce, every sentence grounded
	"backend/chat":           6, // answering: prompt, model call, citations
	"backend/chunk":          6, // cutting documents into passages
	"backend/retrieve":       6, // finding passages
	"backend/rerank":         6,
	"backend/memory":         6, // what is kept about the user, learnt from their words
	"backend/cache":          6, // the answer cache: when two questions are the same
	"backend/watch":          6, // keeping the library in step with watched folders
	"backend/settings":       6, // a library's config.json and the library folder chosen
	"backend/online":         6, // sources added by address: web pages, documents at a URL, threads
	"backend/study":          6, // flashcards: made from passages, kept in decks, reviewed
	"backend/ingest":         7, // reading sources
	"backend/llm":            7, // model providers
	"backend/library":        8, // SQLite
	"backend/index":          8, // FAISS and bleve
	"backend/ingest/pdftext": 8,
	"backend/index/faiss":    9,
	"backend/logfile":        9, // the rotated log file a menu-launched app writes
	"backend/crashpoint":     9, // named kill points for the crash tests, inert for users
	"backend/envconfig":      10,
	"backend/index/flat":     10, // the pure-Go index behind faiss's API without cgo (-tags nofaiss)
	"backend/study/fsrs":     10, // the FSRS scheduler, as ts-fsrs computes it
	"backend/document":       10, // a document's kind and type, declared once
	"backend/provider":       11, // who answers, declared once (envconfig names their keys' variables)
}

type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

func list(t *testing.T) []pkg {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,Imports", "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < len(layers) {
		t.Fatalf("go list found %d packages, fewer than the %d placed in layers", len(pkgs), len(layers))
	}
	return pkgs
}

func rel(path string) (string, bool) {
	if path == module {
		return "", true
	}
	r, ok := strings.CutPrefix(path, module+"/")
	return r, ok
}

// verifies that no product package imports one above it or test tooling.
func TestLayers(t *testing.T) {
	placed := 0
	for _, p := range list(t) {
		name, _ := rel(p.ImportPath)
		if strings.HasPrefix(name, "internal/") {
			continue // tooling may import any product package
		}
		layer, ok := layers[name]
		if !ok {
			t.Errorf("package %q has no layer: place it in layers and in docs/architecture.md", p.ImportPath)
			continue
		}
		placed++
		for _, imp := range p.Imports {
			dep, ours := rel(imp)
			if !ours {
				continue
			}
			if strings.HasPrefix(dep, "internal/") {
				t.Errorf("%s imports test tooling %s", p.ImportPath, imp)
				continue
			}
			if l, ok := layers[dep]; ok && l <= layer {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down", p.ImportPath, layer, imp, l)
			}
		}
	}
	if placed != len(layers) {
		t.Errorf("%d of the %d placed packages exist: drop the gone ones from layers", placed, len(layers))
	}
}

// verifies that product code reads the environment only through backend/envconfig (the
// operating system's own folders, LOCALAPPDATA and XDG_STATE_HOME, excepted).
func TestEnvironmentReadOnce(t *testing.T) {
	osOwn := map[string]bool{"LOCALAPPDATA": true, "XDG_STATE_HOME": true}
	for _, p := range list(t) {
		name, _ := rel(p.ImportPath)
		if strings.HasPrefix(name, "internal/") || name == "backend/envconfig" {
			continue
		}
		fset := token.NewFileSet()
		for _, f := range p.GoFiles {
			file, err := parser.ParseFile(fset, filepath.Join(p.Dir, f), nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "os" || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
					return true
				}
				if len(call.Args) == 1 {
					if lit, ok := call.Args[0].(*ast.BasicLit); ok {
						if v, _ := strconv.Unquote(lit.Value); osOwn[v] {
							return true
						}
					}
				}
				t.Errorf("%s: os.%s outside backend/envconfig: add the setting there", fset.Position(call.Pos()), sel.Sel.Name)
				return true
			})
		}
	}
}
