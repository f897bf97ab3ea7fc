package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is issue 15's "no function over ~80 lines": counted from the line of a
// body's opening brace to the line of its closing one, both included, so a function
// whose signature fits one line counts as many lines as it spans in the file.
const maxFuncLines = 80

// longAllowed names the functions that may stay longer than maxFuncLines, each with the
// reason it is outside the request path (generated code, say). Keyed by package folder
// and function name as longFuncs reports them ("backend/ingest readPDF"). It is empty:
// every product function is within maxFuncLines. An entry whose function has shrunk fails
// the test, so the list only gets shorter.
var longAllowed = map[string]string{}

type longFunc struct {
	key   string // package folder and name, as longAllowed keys them
	pos   string // file:line, for the message
	lines int
}

// longFuncs parses every non-test Go file of the product code (the module root, app/,
// cli/ and backend/, whatever their build tags) and returns each function longer than
// maxFuncLines, function literals included (named after the function holding them).
func longFuncs(t *testing.T) []longFunc {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	root, err := filepath.Abs(filepath.Join(filepath.Dir(file), "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	top, err := filepath.Glob(filepath.Join(root, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, top...)
	for _, dir := range []string{"app", "cli", "backend"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				// The go tool's own rule for folders that hold no package of the module.
				if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(path, ".go") {
				files = append(files, path)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", dir, err)
		}
	}
	var long []longFunc
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		relPath, _ := filepath.Rel(root, path)
		pkgDir := filepath.ToSlash(filepath.Dir(relPath))
		if pkgDir == "." {
			pkgDir = "main"
		}
		for _, decl := range f.Decls {
			outer := "package-level"
			if fn, ok := decl.(*ast.FuncDecl); ok {
				outer = funcName(fn)
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				var body *ast.BlockStmt
				name := outer
				switch fn := n.(type) {
				case *ast.FuncDecl:
					body = fn.Body
				case *ast.FuncLit:
					body = fn.Body
					name = fmt.Sprintf("%s.func@%d", outer, fset.Position(fn.Pos()).Line)
				}
				if body == nil {
					return true
				}
				start := fset.Position(body.Lbrace)
				if lines := fset.Position(body.Rbrace).Line - start.Line + 1; lines > maxFuncLines {
					long = append(long, longFunc{
						key:   pkgDir + " " + name,
						pos:   fmt.Sprintf("%s:%d", filepath.ToSlash(relPath), start.Line),
						lines: lines,
					})
				}
				return true
			})
		}
	}
	sort.Slice(long, func(i, j int) bool { return long[i].lines > long[j].lines })
	return long
}

// funcName gives a function's name as "Recv.Name" for methods, "Name" otherwise.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// verifies that no product function is longer than maxFuncLines but those longAllowed
// names, and that every entry there still names a long function.
func TestFunctionLength(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range longFuncs(t) {
		t.Logf("%4d lines  %s  (%s)", f.lines, f.key, f.pos)
		seen[f.key] = true
		if _, ok := longAllowed[f.key]; !ok {
			t.Errorf("%s: %s is %d lines, over %d: split it into named steps", f.pos, f.key, f.lines, maxFuncLines)
		}
	}
	for key := range longAllowed {
		if !seen[key] {
			t.Errorf("longAllowed names %q, which is no longer over %d lines (or no longer exists): drop it", key, maxFuncLines)
		}
	}
}
