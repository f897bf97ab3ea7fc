package app

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testengine"
)

// verifies calls made the way the desktop app makes them (Wails calls the bound methods
// directly, with no HTTP handler around them) can run while the library folder is
// switched back and forth: none reaches a closed library, the race detector sees no
// unguarded access (run with -race), and every call afterwards sees the library in force.
func TestDesktopCallsDuringSwitch(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("CARREL_LIBRARY", "")
	libA, libB := filepath.Join(root, "a"), filepath.Join(root, "b")
	ctx := context.Background()
	docs := map[string]string{}
	for _, dir := range []string{libB, libA} {
		// B is closed here before the bridge opens it again; A is closed by the switch.
		eng := testengine.Open(t, engine.Config{Dir: dir}, testengine.ClosedByCaller())
		note := filepath.Join(root, filepath.Base(dir)+".md")
		os.WriteFile(note, []byte("# Note "+dir+"\n\nPhotosynthesis turns light into sugar in "+filepath.Base(dir)+".\n"), 0o644)
		res, err := eng.Intake().IngestFile(ctx, note, nil)
		if err != nil || res.Status != engine.Inserted {
			t.Fatalf("ingest: %+v %v", res, err)
		}
		docs[dir] = res.DocID
		if dir == libB {
			eng.Close()
			continue
		}
		a := New(eng, newHub())
		a.start(ctx)
		defer a.stop()

		var stop atomic.Bool
		var calls atomic.Int64
		var mu sync.Mutex
		var failures []string
		fail := func(what string, err error) {
			// A switch may land between a call's lookups; a closed library may not.
			if err != nil && (strings.Contains(err.Error(), "closed") || strings.Contains(err.Error(), "no library is open")) {
				mu.Lock()
				failures = append(failures, what+": "+err.Error())
				mu.Unlock()
			}
		}
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for !stop.Load() {
					calls.Add(1)
					switch w {
					case 0:
						ds, err := a.ListDocuments()
						fail("ListDocuments", err)
						if err == nil && len(ds) != 1 {
							fail("ListDocuments", os.ErrInvalid)
						}
						_, err = a.Search("photosynthesis", 5, nil)
						fail("Search", err)
					case 1:
						a.Status()
						a.LibraryFolderInfo()
						_, err := a.Stats()
						fail("Stats", err)
					case 2:
						_, err := a.ListSessions()
						fail("ListSessions", err)
						_, err = a.Meter()
						fail("Meter", err)
						a.ChunkSettings()
					case 3:
						// Whichever library is open, one of the two documents is in it.
						_, errA := a.PageWords(docs[libA], 1)
						_, errB := a.PageWords(docs[libB], 1)
						if errA != nil && errB != nil {
							fail("PageWords", errA)
						}
						_, err := a.AddPaths(nil)
						fail("AddPaths", err)
					}
				}
			})
		}
		for i := range 6 {
			to := libB
			if i%2 == 1 {
				to = libA
			}
			time.Sleep(10 * time.Millisecond)
			info, err := a.SetLibraryFolder(to, false)
			if err != nil || info.Dir != to || info.Documents != 1 {
				t.Fatalf("switch %d to %s: %+v %v", i, to, info, err)
			}
		}
		stop.Store(true)
		wg.Wait()
		t.Run("no call reached a closed library", func(t *testing.T) {
			if len(failures) > 0 {
				t.Errorf("%d of %d calls failed, e.g. %v", len(failures), calls.Load(), failures[:min(3, len(failures))])
			}
		})
		t.Run("calls ran during the switches", func(t *testing.T) {
			if calls.Load() < 20 {
				t.Errorf("only %d calls ran during the switches", calls.Load())
			}
		})
		t.Run("the library in force afterwards", func(t *testing.T) {
			ds, err := a.ListDocuments()
			if err != nil || len(ds) != 1 || ds[0].ID != docs[libA] {
				t.Errorf("after switching back: %+v %v", ds, err)
			}
		})
	}
}

// verifies every method the bridges expose enters the gate as its first statement
// (SetLibraryFolder takes it exclusively): Wails binds every exported method, with no
// place to wrap them all, so each one guards itself. And none calls another (it would
// enter twice, which a waiting switch turns into a deadlock). The work below the gate
// is the workspace's and the engine's, so the bridge needs no unexported twin of a
// method (status for Status) to share it, and no other App method enters the gate but
// the entries that are not calls (files given from outside, uploads).
func TestEveryMethodEntersGate(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	exported, unexported := map[string]bool{}, map[string]bool{}
	// Entries that are not bound calls: files given from outside the window, and the
	// browser's uploads.
	entries := map[string]bool{"queueOpen": true, "serveUpload": true}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil {
				continue
			}
			star, ok := fn.Recv.List[0].Type.(*ast.StarExpr)
			if !ok || star.X.(*ast.Ident).Name != "App" {
				continue
			}
			if !fn.Name.IsExported() {
				unexported[fn.Name.Name] = true
				if !entries[fn.Name.Name] && strings.Contains(src(t, fset, f, fn), "Enter()") {
					t.Errorf("%s (%s) enters the gate: only the exported methods and %v do", fn.Name.Name, f, entries)
				}
				continue
			}
			exported[fn.Name.Name] = true
			n++
			ast.Inspect(fn.Body, func(x ast.Node) bool {
				if c, ok := x.(*ast.CallExpr); ok {
					if s, ok := c.Fun.(*ast.SelectorExpr); ok && s.Sel.IsExported() {
						if id, ok := s.X.(*ast.Ident); ok && id.Name == "a" {
							t.Errorf("%s calls a.%s, which enters the gate again: call its unexported form", fn.Name.Name, s.Sel.Name)
						}
					}
				}
				return true
			})
			switch fn.Name.Name {
			case "SetLibraryFolder": // switchLibrary holds the gate exclusively
				continue
			case "FilesHandler": // its handler enters the gate per request
				if !strings.Contains(src(t, fset, f, fn), "defer a.ws.Enter()()") {
					t.Errorf("%s: the files handler does not enter the gate", fn.Name.Name)
				}
				continue
			}
			first := ""
			if len(fn.Body.List) > 0 {
				first = src(t, fset, f, fn.Body.List[0])
			}
			if first != "defer a.ws.Enter()()" {
				t.Errorf("%s (%s) starts with %q, not defer a.ws.Enter()()", fn.Name.Name, f, first)
			}
		}
	}
	if n < 40 {
		t.Errorf("found only %d exported methods of App", n)
	}
	for name := range exported {
		if twin := strings.ToLower(name[:1]) + name[1:]; unexported[twin] {
			t.Errorf("App has both %s and %s: the shared work belongs in the workspace", name, twin)
		}
	}
}

func src(t *testing.T, fset *token.FileSet, file string, n ast.Node) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(b[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
}
