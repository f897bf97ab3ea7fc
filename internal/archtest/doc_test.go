package archtest

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// verifies that docs/architecture.md draws the layers the tests enforce: its table of
// layers places every package of layers in the same layer and no other, and its picture
// names every package.
func TestArchitectureDoc(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)

	// The table: "| 6 stages | `backend/chat`, `chunk`, ... | owns |"; a bare name is
	// under backend/ as the row's first one, and `.` is the module root.
	row := regexp.MustCompile("(?m)^\\| (\\d+)[^|]*\\| ([^|]*)\\|")
	name := regexp.MustCompile("`([^`]+)`")
	inDoc := map[string]int{}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		layer, _ := strconv.Atoi(m[1])
		for _, n := range name.FindAllStringSubmatch(m[2], -1) {
			p := n[1]
			switch {
			case p == ".":
				p = ""
			case !strings.Contains(p, "/") && p != "cli" && p != "app":
				p = "backend/" + p
			}
			if l, ok := inDoc[p]; ok {
				t.Errorf("docs/architecture.md places %q in layers %d and %d", p, l, layer)
			}
			inDoc[p] = layer
		}
	}
	for _, p := range slices.Sorted(maps.Keys(layers)) {
		l, ok := inDoc[p]
		switch {
		case !ok:
			t.Errorf("docs/architecture.md's table of layers does not name %q (layer %d)", p, layers[p])
		case l != layers[p]:
			t.Errorf("docs/architecture.md places %q in layer %d, archtest in %d", p, l, layers[p])
		}
	}
	for p := range inDoc {
		if _, ok := layers[p]; !ok {
			t.Errorf("docs/architecture.md's table names %q, which archtest does not place", p)
		}
	}

	// The picture: the first fenced block after the "Packages and layers" heading.
	_, after, _ := strings.Cut(doc, "## Packages and layers")
	_, pic, _ := strings.Cut(after, "```\n")
	pic, _, _ = strings.Cut(pic, "```")
	for p := range layers {
		want := p + "/"
		if p == "" {
			want = "main.go"
		}
		if !strings.Contains(pic, " "+want) {
			t.Errorf("docs/architecture.md's picture does not name %s", want)
		}
	}
}
