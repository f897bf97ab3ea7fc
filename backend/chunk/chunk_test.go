package chunk

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

func TestMain(m *testing.M) {
	// The corpus tests start PDFium; keep its compiled module out of the
	// user's cache directory.
	if os.Getenv("CARREL_CACHE_DIR") == "" {
		os.Setenv("CARREL_CACHE_DIR", filepath.Join(os.TempDir(), "carrel-test-cache"))
	}
	code := m.Run()
	_ = ingest.Shutdown()
	os.Exit(code)
}

func docOf(pages ...string) *ingest.Document {
	d := &ingest.Document{Path: "test.txt", Kind: document.KindText}
	for i, p := range pages {
		d.Pages = append(d.Pages, ingest.Page{Number: i + 1, Text: p})
	}
	return d
}

// streamPos maps a chunk's start or end back to a position in the joined
// text, to check order, coverage and overlap.
func streamPos(s *stream, page, off int) int {
	for i, p := range s.pages {
		if p == page {
			return s.starts[i] + off
		}
	}
	return -1
}

// checkChunks asserts the invariants every Split result must keep.
func checkChunks(t testing.TB, doc *ingest.Document, opts Options, chunks []Chunk) {
	t.Helper()
	o := opts.sane()
	s := newStream(doc)
	spans := protect(s.text, findBlocks(s.text), o.Max)
	prevStart, prevEnd := -1, 0
	for i, c := range chunks {
		if strings.TrimSpace(c.Text) == "" {
			t.Fatalf("chunk %d is empty or white space: %q", i, c.Text)
		}
		if strings.TrimFunc(c.Text, unicode.IsSpace) != c.Text {
			t.Fatalf("chunk %d not trimmed: %q", i, c.Text)
		}
		if got := PageText(doc, c); got != c.Text {
			t.Fatalf("chunk %d: offsets give %q, text is %q", i, got, c.Text)
		}
		if c.PageStart < 1 || c.PageEnd < c.PageStart || c.PageEnd > len(doc.Pages) {
			t.Fatalf("chunk %d: pages %d–%d of %d", i, c.PageStart, c.PageEnd, len(doc.Pages))
		}
		n := utf8.RuneCountInString(c.Text)
		if n > o.Max {
			t.Fatalf("chunk %d: %d chars > max %d", i, n, o.Max)
		}
		a, b := streamPos(s, c.PageStart, c.Start), streamPos(s, c.PageEnd, c.End)
		// A chunk may be short only where the next starts a block kept whole.
		if i < len(chunks)-1 && n < o.Min && !startsBlock(spans, skipSpace(s.text, b)) {
			t.Fatalf("chunk %d of %d: %d chars < min %d: %q", i, len(chunks), n, o.Min, c.Text)
		}
		for _, p := range []int{a, b} {
			if sp, in := inside(spans, p); in {
				t.Fatalf("chunk %d is cut inside a block at %d: %q", i, p, s.text[sp.s:sp.e])
			}
		}
		if a <= prevStart {
			t.Fatalf("chunk %d starts at %d, not after the previous start %d", i, a, prevStart)
		}
		if a > prevEnd && strings.TrimSpace(s.text[prevEnd:a]) != "" {
			t.Fatalf("text between chunks %d and %d is lost: %q", i-1, i, s.text[prevEnd:a])
		}
		prevStart, prevEnd = a, b
	}
	if strings.TrimSpace(s.text[prevEnd:]) != "" {
		t.Fatalf("text after the last chunk is lost: %q", s.text[prevEnd:])
	}
}

// prose returns n characters or so of sentences, without line breaks.
func prose(n int) string {
	words := strings.Fields("the quick brown fox jumps over a lazy dog while seven wizards quietly judge boxing matches near old castles")
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		if i%11 == 0 {
			if i > 0 {
				b.WriteString(". ")
			}
			w := words[i%len(words)]
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
			continue
		}
		b.WriteString(" " + words[(i*7)%len(words)])
	}
	b.WriteString(".")
	return b.String()
}

func TestSplitShapes(t *testing.T) {
	para := func(n int) string { return prose(n) }
	cases := []struct {
		name  string
		pages []string
	}{
		{"empty", nil},
		{"blank pages", []string{"", "  \n ", ""}},
		{"tiny", []string{"Hello."}},
		{"one long paragraph", []string{prose(10000)}},
		{"paragraphs", []string{para(500) + "\n\n" + para(700) + "\n\n" + para(300) + "\n\n" + para(1500)}},
		{"lines", []string{strings.ReplaceAll(prose(5000), " a ", "\n")}},
		{"pages", []string{prose(700), "", prose(400), prose(50), prose(2000)}},
		{"no spaces", []string{strings.Repeat("x", 5000)}},
		{"unicode", []string{strings.Repeat("Grüße aus Köln — 東京で会いましょう。 ", 200)}},
		{"space runs", []string{strings.Repeat("word   \n\n\n   ", 400)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := docOf(c.pages...)
			chunks := Split(doc, DefaultOptions())
			checkChunks(t, doc, DefaultOptions(), chunks)
			if strings.TrimSpace(strings.Join(c.pages, "")) != "" && len(chunks) == 0 {
				t.Fatal("no chunks for a document with text")
			}
		})
	}
}

func TestOverlap(t *testing.T) {
	doc := docOf(prose(20000))
	chunks := Split(doc, DefaultOptions())
	checkChunks(t, doc, DefaultOptions(), chunks)
	s := newStream(doc)
	if len(chunks) < 10 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for i := 1; i < len(chunks); i++ {
		prev, cur := chunks[i-1], chunks[i]
		a, e := streamPos(s, cur.PageStart, cur.Start), streamPos(s, prev.PageEnd, prev.End)
		if a >= e {
			t.Fatalf("chunks %d and %d do not overlap", i-1, i)
		}
		shared := s.text[a:e]
		frac := float64(utf8.RuneCountInString(shared)) / float64(utf8.RuneCountInString(prev.Text))
		if frac < 0.05 || frac > 0.3 {
			t.Errorf("chunks %d/%d share %.0f%%: %q", i-1, i, 100*frac, shared)
		}
		if !strings.HasSuffix(prev.Text, shared) || !strings.HasPrefix(cur.Text, shared) {
			t.Fatalf("overlap %q is not the end of one chunk and the start of the next", shared)
		}
		// Cuts inside a paragraph fall after a sentence and the next chunk
		// starts with one.
		if !strings.HasSuffix(prev.Text, ".") {
			t.Errorf("chunk %d does not end a sentence: …%q", i-1, prev.Text[max(0, len(prev.Text)-30):])
		}
		if r, _ := utf8.DecodeRuneInString(cur.Text); !unicode.IsUpper(r) {
			t.Errorf("chunk %d does not start a sentence: %q…", i, cur.Text[:30])
		}
	}
}

func TestParagraphCuts(t *testing.T) {
	var paras []string
	for i := range 12 {
		paras = append(paras, fmt.Sprintf("P%d. ", i)+prose(550+40*(i%3)))
	}
	doc := docOf(strings.Join(paras, "\n\n"))
	chunks := Split(doc, DefaultOptions())
	checkChunks(t, doc, DefaultOptions(), chunks)
	for i, c := range chunks {
		// Each paragraph is ~600 chars: a chunk is one whole paragraph,
		// never a part of one, and chunks do not overlap.
		if !strings.HasPrefix(c.Text, "P") || !strings.HasSuffix(c.Text, ".") {
			t.Errorf("chunk %d is not whole paragraphs: %q … %q", i, c.Text[:10], c.Text[len(c.Text)-10:])
		}
		if i > 0 && c.Start < chunks[i-1].End {
			t.Errorf("chunks %d and %d overlap across a paragraph break", i-1, i)
		}
	}
}

func TestPagesAndSections(t *testing.T) {
	doc := docOf(
		"Preface\n"+prose(600),
		"",
		prose(300)+"\n2 Methods\n"+prose(1500),
		prose(200)+"\n3 Results\n"+prose(400),
	)
	doc.Outline = []ingest.Heading{
		{Title: "Preface", Page: 1, Level: 1},
		{Title: "Methods", Page: 3, Level: 1},
		{Title: "Results", Page: 4, Level: 1},
		{Title: "Appendix", Page: 9, Level: 1}, // beyond the last page
	}
	chunks := Split(doc, DefaultOptions())
	checkChunks(t, doc, DefaultOptions(), chunks)
	crosses := false
	for _, c := range chunks {
		if c.PageStart != c.PageEnd {
			crosses = true
			if c.PageStart == 1 && c.PageEnd == 3 && !strings.Contains(c.Text, "."+PageSeparator) {
				t.Errorf("page break not joined with the separator: %q", c.Text)
			}
		}
		want := "Preface"
		switch {
		case strings.HasPrefix(c.Text, "Methods") || strings.HasPrefix(c.Text, "2 Methods") || c.PageStart == 3 && c.Start > 300:
			want = "Methods"
		case strings.HasPrefix(c.Text, "3 Results") || c.PageStart == 4 && c.Start > 200:
			want = "Results"
		case c.PageStart == 4:
			want = "Methods"
		}
		if c.Section != want {
			t.Errorf("chunk on p.%d@%d %q…: section %q, want %q", c.PageStart, c.Start, c.Text[:20], c.Section, want)
		}
	}
	if !crosses {
		t.Error("no chunk crosses a page break")
	}
	// A heading is a preferred cut: some chunk starts with each.
	for _, h := range []string{"2 Methods", "3 Results"} {
		found := false
		for _, c := range chunks {
			found = found || strings.HasPrefix(c.Text, h)
		}
		if !found {
			t.Errorf("no chunk starts at heading %q", h)
		}
	}
}

func TestOptions(t *testing.T) {
	doc := docOf(prose(30000))
	for _, o := range []Options{
		{Target: 300, Min: 100, Max: 400, Overlap: 0.1},
		{Target: 2000, Min: 500, Max: 2500, Overlap: 0.25},
		{Target: 500, Overlap: 0},
		{}, // all defaults
		{Target: -1, Min: 9999, Max: 3, Overlap: 7},
	} {
		chunks := Split(doc, o)
		checkChunks(t, doc, o, chunks)
		so := o.sane()
		total := 0
		for _, c := range chunks[:len(chunks)-1] {
			total += utf8.RuneCountInString(c.Text)
		}
		mean := float64(total) / float64(len(chunks)-1)
		if mean < 0.7*float64(so.Target) || mean > 1.2*float64(so.Target) {
			t.Errorf("%+v: mean chunk %.0f chars, target %d", so, mean, so.Target)
		}
	}
}

func TestID(t *testing.T) {
	a := ID("The  cell\nmembrane.")
	if a != ID(" The cell membrane. ") {
		t.Error("ID depends on white space")
	}
	if a == ID("the cell membrane.") {
		t.Error("ID ignores case")
	}
	if len(a) != 64 {
		t.Errorf("ID %q is not hex SHA-256", a)
	}
}

// verifies that ID hashes exactly strings.Join(strings.Fields(text), " "), the
// normalisation stored ids were made with, on any text.
func FuzzID(f *testing.F) {
	for _, s := range []string{"", " ", "a", " The  cell\nmembrane. ", "x\u00a0y\u0085z\u2003w", "bad\xff \xffutf8",
		"\u3000全角\u3000space", "tab\tvtab\vff\fcr\r", "\uFFFD \u200b zero width"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		want := strings.Join(strings.Fields(text), " ")
		if got := string(normalizeSpace([]byte("prefix"), text)); got != "prefix"+want {
			t.Fatalf("normalizeSpace(%q) = %q, want %q", text, got, "prefix"+want)
		}
		sum := sha256.Sum256([]byte(want))
		if got := ID(text); got != hex.EncodeToString(sum[:]) {
			t.Fatalf("ID(%q) = %s, want the hash of %q", text, got, want)
		}
	})
}

func corpusDir(tb testing.TB) string {
	tb.Helper()
	return testcorpus.Dir(tb)
}

func TestCorpusChunking(t *testing.T) {
	dir := corpusDir(t)
	for _, name := range []string{"WaldenFull.pdf", "T4.pdf", "gobook.0.pdf", "go-lecture.pdf", "adobe_errata.pdf", "pdf20/utf8test.pdf"} {
		t.Run(name, func(t *testing.T) {
			doc, err := ingest.File(context.Background(), filepath.Join(dir, name), nil)
			if err != nil && !errors.Is(err, ingest.ErrNoText) {
				t.Fatal(err)
			}
			opts := DefaultOptions()
			chunks := Split(doc, opts)
			checkChunks(t, doc, opts, chunks)
			sizes, crossing, sections := 0, 0, 0
			ids := map[string]bool{}
			for _, c := range chunks {
				sizes += utf8.RuneCountInString(c.Text)
				if c.PageStart != c.PageEnd {
					crossing++
				}
				if c.Section != "" {
					sections++
				}
				ids[ID(c.Text)] = true
			}
			t.Logf("%d pages → %d chunks, mean %d chars, %d cross a page, %d with a section, %d distinct ids",
				len(doc.Pages), len(chunks), sizes/max(1, len(chunks)), crossing, sections, len(ids))
			if len(doc.Outline) > 0 && sections < len(chunks)/2 {
				t.Errorf("only %d of %d chunks have a section though the outline has %d entries", sections, len(chunks), len(doc.Outline))
			}
		})
	}
}

// FuzzSplit feeds arbitrary pages (split at form feeds) and options to
// Split and checks every invariant.
func FuzzSplit(f *testing.F) {
	f.Add([]byte("Hello world. This is a test.\fSecond page.\n\nNew paragraph."), 50, 10, 80, 20)
	f.Add([]byte(prose(3000)), 300, 100, 400, 15)
	f.Add([]byte("\f\f  \f"), 900, 200, 1200, 15)
	f.Add([]byte("a\xffb\xfe\xc3 \xe2\x80 …。？ e.g. Dr. X. y"), 5, 1, 6, 50)
	f.Add([]byte(strings.Repeat("日本語のテキスト", 300)), 100, 20, 120, 10)
	f.Add([]byte("Intro.\n\n```go\nfunc f() {\n\treturn\n}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\f    indented\n    code\n\nx  y  z\n1  2  3"), 40, 10, 60, 15)
	f.Fuzz(func(t *testing.T, data []byte, target, minSize, maxSize, overlapPct int) {
		pages := strings.Split(string(data), "\f")
		doc := docOf(pages...)
		for i := range pages {
			if i%3 == 1 && len(pages[i]) > 3 {
				doc.Outline = append(doc.Outline, ingest.Heading{Title: pages[i][:3], Page: i + 1, Level: 1})
			}
		}
		opts := Options{Target: target % 3000, Min: minSize % 3000, Max: maxSize % 4000, Overlap: float64(overlapPct%100) / 100,
			ChildTarget: target % 700, ChildMax: maxSize % 900, ChildOverlap: float64(overlapPct%30) / 100}
		chunks := Split(doc, opts)
		checkChunks(t, doc, opts, chunks)
		checkTree(t, doc, opts, Tree(doc, opts))
	})
}

func TestMarkdownSections(t *testing.T) {
	md := "# Cells\n\nMembranes are mentioned here first. " + prose(400) +
		"\n\n## Membranes\n\n" + prose(1200) + "\n\n## Organelles\n\n" + prose(300)
	path := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := ingest.File(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks := Split(doc, DefaultOptions())
	checkChunks(t, doc, DefaultOptions(), chunks)
	var got []string
	for _, c := range chunks {
		got = append(got, c.Section)
		if strings.HasPrefix(c.Text, "## ") && c.Section != strings.TrimPrefix(strings.SplitN(c.Text, "\n", 2)[0], "## ") {
			t.Errorf("chunk starting with %q has section %q", strings.SplitN(c.Text, "\n", 2)[0], c.Section)
		}
	}
	if got[0] != "Cells" || got[len(got)-1] != "Organelles" {
		t.Errorf("sections %q", got)
	}
}

// verifies Document.PagePassages: no passage crosses a page, a short page is a passage
// of its own, a long page is cut within itself, and offsets still rebuild the text.
func TestPagePassages(t *testing.T) {
	long := strings.Repeat("A worker bee lives about six weeks in summer. ", 60)
	doc := &ingest.Document{PagePassages: true, Pages: []ingest.Page{
		{Number: 1, Text: "alice:\n\nShort."}, {Number: 2, Text: ""}, {Number: 3, Text: "bob:\n\nAlso short."}, {Number: 4, Text: long},
	}, Outline: []ingest.Heading{{Title: "alice", Page: 1, Level: 1}, {Title: "bob", Page: 3, Level: 2}}}
	tree := Tree(doc, DefaultOptions())
	if len(tree) < 4 || tree[0].Text != "alice:\n\nShort." || tree[1].Text != "bob:\n\nAlso short." || tree[1].PageStart != 3 {
		t.Fatalf("parents %+v", tree)
	}
	for _, p := range tree {
		if p.PageStart != p.PageEnd || PageText(doc, p.Chunk) != p.Text {
			t.Errorf("parent %d–%d does not rebuild: %q", p.PageStart, p.PageEnd, p.Text)
		}
		for _, c := range p.Children {
			if c.PageStart != p.PageStart || PageText(doc, c) != c.Text {
				t.Errorf("child on %d of parent on %d: %q", c.PageStart, p.PageStart, c.Text)
			}
		}
	}
	if got := len(Split(doc, DefaultOptions())); got != len(tree) {
		t.Errorf("Split gives %d passages, Tree %d", got, len(tree))
	}
}
