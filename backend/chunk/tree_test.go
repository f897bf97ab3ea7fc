package chunk

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/ingest"
)

// startsBlock reports whether a protected span starts at p.
func startsBlock(spans []span, p int) bool {
	for _, sp := range spans {
		if sp.s == p {
			return true
		}
	}
	return false
}

// checkTree asserts the invariants of a Tree result: parents are Split's chunks;
// each parent's children lie inside it in order, cover all of its text from where the
// parent before it ends (the text two parents share has children in the first), are at most
// ChildMax long (unless one block kept whole is longer), are never cut inside a code
// block or table row, and their offsets give their text back.
func checkTree(t testing.TB, doc *ingest.Document, opts Options, parents []Parent) {
	t.Helper()
	o := opts.sane()
	flat := make([]Chunk, len(parents))
	for i, p := range parents {
		flat[i] = p.Chunk
	}
	checkChunks(t, doc, opts, flat)
	s := newStream(doc)
	spans := protect(s.text, findBlocks(s.text), o.ChildMax)
	lastEnd := 0
	for i, p := range parents {
		if len(p.Children) == 0 {
			t.Fatalf("parent %d has no children", i)
		}
		ps, pe := streamPos(s, p.PageStart, p.Start), streamPos(s, p.PageEnd, p.End)
		// The first child starts where the parent before ends, or with the parent (the
		// first parent, one the parent before reaches past, a cut inside a block).
		from := ps
		if len(p.Children) > 0 && streamPos(s, p.Children[0].PageStart, p.Children[0].Start) > ps {
			from = max(ps, lastEnd)
			if sk := skipSpace(s.text, from); streamPos(s, p.Children[0].PageStart, p.Children[0].Start) != sk {
				t.Fatalf("parent %d [%d,%d): its first child starts at %d, not with it nor where the parent before ends (%d)", i, ps, pe, streamPos(s, p.Children[0].PageStart, p.Children[0].Start), sk)
			}
		}
		lastEnd = max(lastEnd, pe)
		prevStart, prevEnd := from-1, from
		for j, c := range p.Children {
			if got := PageText(doc, c); got != c.Text || c.Text == "" {
				t.Fatalf("parent %d child %d: offsets give %q, text is %q", i, j, got, c.Text)
			}
			a, b := streamPos(s, c.PageStart, c.Start), streamPos(s, c.PageEnd, c.End)
			if a < ps || b > pe || a <= prevStart {
				t.Fatalf("parent %d [%d,%d) child %d [%d,%d) out of place (previous starts %d)", i, ps, pe, j, a, b, prevStart)
			}
			if a > prevEnd && strings.TrimSpace(s.text[prevEnd:a]) != "" {
				t.Fatalf("parent %d: text between children %d and %d is lost: %q", i, j-1, j, s.text[prevEnd:a])
			}
			if n := utf8.RuneCountInString(c.Text); n > o.ChildMax {
				t.Fatalf("parent %d child %d: %d chars > child max %d", i, j, n, o.ChildMax)
			}
			for _, q := range []int{a, b} {
				if sp, in := inside(spans, q); in {
					t.Fatalf("parent %d child %d is cut inside a block: %q", i, j, s.text[sp.s:sp.e])
				}
			}
			prevStart, prevEnd = a, b
		}
		if prevEnd != pe {
			t.Fatalf("parent %d: children end at %d, the parent at %d", i, prevEnd, pe)
		}
	}
}

// genDoc writes a document of prose mixed with the structures that must not be cut:
// fenced code, indented code, Markdown pipe tables and space-aligned rows (as PDF text
// gives them), in random sizes, over a few pages. It returns the pages and every
// block it wrote.
func genDoc(r *rand.Rand) (pages []string, blocks []string) {
	var page strings.Builder
	for n := r.IntN(40) + 5; n > 0; n-- {
		var b string
		switch r.IntN(6) {
		case 0:
			lines := []string{"```go"}
			for k := r.IntN(30) + 1; k > 0; k-- {
				lines = append(lines, fmt.Sprintf("\tx%d := compute(%d, \"%s\") // step", k, r.IntN(99), strings.Repeat("y", r.IntN(20))))
			}
			b = strings.Join(append(lines, "```"), "\n")
		case 1:
			var lines []string
			for k := r.IntN(12) + 1; k > 0; k-- {
				lines = append(lines, fmt.Sprintf("    call(%d); value = %d", k, r.IntN(1000)))
			}
			b = strings.Join(lines, "\n")
		case 2:
			lines := []string{"| name | value | note |", "|---|---|---|"}
			for k := r.IntN(25) + 1; k > 0; k-- {
				lines = append(lines, fmt.Sprintf("| item %d | %d | %s |", k, r.IntN(1e6), prose(r.IntN(60)+5)))
			}
			b = strings.Join(lines, "\n")
		case 3:
			var lines []string
			for k := r.IntN(20) + 2; k > 0; k-- {
				lines = append(lines, fmt.Sprintf("Row %d   %d.%02d   %s", k, r.IntN(100), r.IntN(100), strings.Repeat("w ", r.IntN(8))+"end"))
			}
			b = strings.Join(lines, "\n")
		default:
			page.WriteString(prose(r.IntN(1500) + 20))
			page.WriteString("\n\n")
			continue
		}
		blocks = append(blocks, b)
		page.WriteString(b)
		// Prose after each block, so that two blocks in a row stay two (Markdown
		// joins indented code across blank lines).
		page.WriteString("\n\nThen.\n\n")
		if r.IntN(4) == 0 {
			pages = append(pages, page.String())
			page.Reset()
		}
	}
	return append(pages, page.String()), blocks
}

// verifies, over generated documents and several sizes, that no parent or child is cut
// inside a code block or table row, that every block that fits in a chunk is whole in one,
// and that parents and children keep their invariants.
func TestBlocksNeverSplit(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 150 {
		pages, blocks := genDoc(r)
		doc := docOf(pages...)
		opts := []Options{DefaultOptions(), DefaultProfiles()[document.TypeCode], {Target: 300, Min: 80, Max: 400, Overlap: 0.2, ChildTarget: 120, ChildMax: 180}}[i%3]
		tree := Tree(doc, opts)
		checkTree(t, doc, opts, tree)
		o := opts.sane()
		for _, b := range blocks {
			b = strings.TrimSpace(b) // chunks are trimmed
			n := utf8.RuneCountInString(b)
			whole := func(cs []Chunk) bool {
				for _, c := range cs {
					if strings.Contains(c.Text, b) {
						return true
					}
				}
				return false
			}
			var parents, children []Chunk
			for _, p := range tree {
				parents = append(parents, p.Chunk)
				children = append(children, p.Children...)
			}
			if n <= o.Max && !whole(parents) {
				t.Fatalf("doc %d: a block of %d chars (max %d) is in no parent whole:\n%s", i, n, o.Max, b)
			}
			if n <= o.ChildMax && !whole(children) {
				t.Fatalf("doc %d: a block of %d chars (child max %d) is in no child whole:\n%s", i, n, o.ChildMax, b)
			}
			// A block longer than a chunk is cut between its lines only.
			if n > o.ChildMax {
				for _, line := range strings.Split(b, "\n") {
					if utf8.RuneCountInString(line) <= o.ChildMax && !whole(children) && !strings.Contains(strings.Join(chunkTexts(children), "\n"), line) {
						t.Fatalf("doc %d: line %q of a long block is cut", i, line)
					}
				}
			}
		}
	}
}

func chunkTexts(cs []Chunk) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Text
	}
	return out
}

// verifies block detection on its own: what is a block and what is not.
func TestFindBlocks(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"Text.\n```\ncode\n\nmore\n```\nAfter.", []string{"```\ncode\n\nmore\n```"}},
		{"~~~~\nunclosed\n~~~\nstill code", []string{"~~~~\nunclosed\n~~~\nstill code"}},
		{"Para.\n\n    indented\n\n    again\nNot.", []string{"indented\n\n    again"}}, // chunks are trimmed
		{"Para.\n    continuation of a list item", nil},                                 // not after a blank line
		{"| a | b |\n|---|---|\n| 1 | 2 |\nText", []string{"| a | b |\n|---|---|\n| 1 | 2 |"}},
		{"Name    Qty\nApple   3\nPear    5\n\nProse with one  double space.", []string{"Name    Qty\nApple   3\nPear    5"}},
		{"One line with a | pipe and another | pipe.\nProse.", nil}, // a lone row is no table
		{"Prose.\nMore prose. And more.", nil},
	}
	for _, c := range cases {
		var got []string
		for _, b := range findBlocks(c.text) {
			got = append(got, c.text[b.s:b.e])
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%q: blocks %q, want %q", c.text, got, c.want)
		}
	}
}

// verifies on real files (a Markdown file with code and a table through the ingest
// reader, and PDFs of the corpus with code listings) that parents and children keep
// their invariants and that the Markdown's code block and table rows are never cut.
func TestTreeRealFiles(t *testing.T) {
	code := "```go\nfunc main() {\n\tfor i := 0; i < 10; i++ {\n\t\tfmt.Println(i)\n\t}\n}\n```"
	table := "| flag | meaning |\n|---|---|\n| --num-ctx | context length |\n| --k | hits |"
	md := "# Guide\n\n" + prose(700) + "\n\n" + code + "\n\n## Flags\n\n" + prose(300) + "\n\n" + table + "\n\n" + prose(900)
	path := filepath.Join(t.TempDir(), "guide.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := ingest.File(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Target: 500, Min: 100, Max: 700, Overlap: 0.15, ChildTarget: 150, ChildMin: 40, ChildMax: 220}
	tree := Tree(doc, opts)
	checkTree(t, doc, opts, tree)
	found := 0
	for _, p := range tree {
		if strings.Contains(p.Text, code) {
			found++
		}
		for _, c := range p.Children {
			for _, row := range strings.Split(table, "\n") {
				if i := strings.Index(c.Text, row[:5]); i >= 0 && !strings.Contains(c.Text, row) {
					t.Errorf("child cuts table row %q: %q", row, c.Text)
				}
			}
		}
	}
	if found == 0 {
		t.Errorf("the code block is in no parent whole")
	}
	dir := corpusDir(t)
	for _, name := range []string{"gobook.0.pdf", "TheGoProgrammingLanguageCh1.pdf"} {
		doc, err := ingest.File(context.Background(), filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		opts := DefaultProfiles().For(doc.DocType)
		tree := Tree(doc, opts)
		checkTree(t, doc, opts, tree)
		children := 0
		for _, p := range tree {
			children += len(p.Children)
		}
		t.Logf("%s (%s): %d blocks, %d parents, %d children", name, doc.DocType, len(findBlocks(newStream(doc).text)), len(tree), children)
		if children < 2*len(tree) {
			t.Errorf("%s: %d children for %d parents: parents are not split", name, children, len(tree))
		}
	}
}

// verifies which lines read as section headings, and that a passage starts at one even
// when the rest of the text would fit in one chunk, as long as both sides keep Min.
func TestTitleLines(t *testing.T) {
	for line, want := range map[string]bool{
		"2 Dimensions of terminals":       true,
		"J.1.1.2 Upsampling filter":       true,
		"4.1. Data\nA line of data":       true,
		"## Flags":                        true,
		"A Man against a loon":            false, // a lone letter needs a number
		"2 apples and a pear":             false, // no capital after the number
		"3 The cost is twelve dollars.":   false, // ends a sentence
		"####### Too deep":                false,
		"12.5 Million people live there,": false,
	} {
		if got := titleLine(line); got != want {
			t.Errorf("titleLine(%q) = %v, want %v", line, got, want)
		}
	}
	doc := docOf("1 Introduction\n" + prose(300) + "\n2.1 Methods\n" + prose(300) + "\n2.2 Results is short\nOnly this.")
	chunks := Split(doc, DefaultOptions())
	checkChunks(t, doc, DefaultOptions(), chunks)
	if len(chunks) != 2 || !strings.HasPrefix(chunks[0].Text, "1 Introduction") || !strings.HasPrefix(chunks[1].Text, "2.1 Methods") {
		t.Errorf("chunks do not start at the headings: %q", chunkTexts(chunks))
	}
	// With no outline, a heading line names the section of the passages under it.
	if len(chunks) == 2 && (chunks[0].Section != "1 Introduction" || chunks[1].Section != "2.1 Methods") {
		t.Errorf("sections %q, %q", chunks[0].Section, chunks[1].Section)
	}
}

// verifies that the text two parents share is split into children once, in the first of
// them: in prose each parent's children start where the parent before it ends, so the
// children hold the text about once (plus their own overlap) where the parents hold a
// good part of it twice.
func TestChildrenSkipSharedText(t *testing.T) {
	var pages []string
	for range 20 {
		pages = append(pages, prose(2500))
	}
	doc := docOf(pages...)
	opts := DefaultOptions()
	tree := Tree(doc, opts)
	checkTree(t, doc, opts, tree)
	s := newStream(doc)
	shared, parentChars, childChars := 0, 0, 0
	for i, p := range tree {
		parentChars += len(p.Text)
		for _, c := range p.Children {
			childChars += len(c.Text)
		}
		if i == 0 {
			continue
		}
		prevEnd := streamPos(s, tree[i-1].PageEnd, tree[i-1].End)
		if streamPos(s, p.PageStart, p.Start) >= prevEnd {
			continue
		}
		shared++
		if got, want := streamPos(s, p.Children[0].PageStart, p.Children[0].Start), skipSpace(s.text, prevEnd); got != want {
			t.Errorf("parent %d: its first child starts at %d, not where parent %d ends (%d)", i, got, i-1, want)
		}
	}
	if shared < len(tree)/2 {
		t.Fatalf("only %d of %d parents overlap the one before: the test text does not exercise it", shared, len(tree))
	}
	text := float64(len(s.text))
	if p, c := float64(parentChars)/text, float64(childChars)/text; c >= p || c > 1.12 {
		t.Errorf("children hold %.2f times the text, parents %.2f", c, p)
	}
}
