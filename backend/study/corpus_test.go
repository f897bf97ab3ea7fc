package study

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

// addDocument ingests a file into lib as the engine does (pages, parents with their
// children), without indexes: cards read only SQLite.
func addDocument(t testing.TB, lib *library.Library, path string) (*ingest.Document, bool) {
	t.Helper()
	ctx := context.Background()
	src, err := ingest.FileWithOptions(ctx, path, ingest.Options{OCR: ingest.OCROptions{Off: true}})
	if err != nil {
		return nil, false // encrypted, damaged or without text: the corpus has a few
	}
	d := library.Document{ID: src.SHA256, Path: path, Title: src.Title, Kind: src.Kind, Pages: len(src.Pages),
		Bytes: src.Bytes, Status: library.StatusReady}
	if err := lib.PutDocument(ctx, &d); err != nil {
		t.Fatal(err)
	}
	tree := chunk.Tree(src, chunk.DefaultProfiles().For(src.DocType))
	parents := make([]library.Parent, len(tree))
	for i, p := range tree {
		parents[i] = library.Parent{Chunk: libChunk(p.Chunk)}
		for _, c := range p.Children {
			parents[i].Children = append(parents[i].Children, libChunk(c))
		}
	}
	pages := make([]string, len(src.Pages))
	for i, p := range src.Pages {
		pages[i] = p.Text
	}
	if err := lib.ReplaceTree(ctx, d.ID, pages, parents); err != nil {
		t.Fatal(err)
	}
	return src, true
}

func libChunk(c chunk.Chunk) library.Chunk {
	return library.Chunk{ID: chunk.ID(c.Text), PageStart: c.PageStart, PageEnd: c.PageEnd, Start: c.Start, End: c.End,
		Section: c.Section, Text: c.Text}
}

// pageSpan rebuilds the text between two page positions as the viewer highlights it.
func pageSpan(pages []string, c library.Card) string {
	if c.Page < 1 || c.PageEnd > len(pages) || c.Page > c.PageEnd {
		return "<bad pages>"
	}
	if c.Page == c.PageEnd {
		if c.Start > c.End || c.End > len(pages[c.Page-1]) {
			return "<bad offsets>"
		}
		return pages[c.Page-1][c.Start:c.End]
	}
	s := pages[c.Page-1][c.Start:]
	for p := c.Page + 1; p < c.PageEnd; p++ {
		if pages[p-1] != "" {
			s += "\n" + pages[p-1]
		}
	}
	return s + "\n" + pages[c.PageEnd-1][:c.End]
}

// furniture returns the lines a document repeats on three or more pages: running heads,
// footers, page labels.
func furniture(pages []string) map[string]bool {
	n := map[string]int{}
	for _, p := range pages {
		seen := map[string]bool{}
		for _, l := range strings.Split(p, "\n") {
			l = collapse(l)
			if len(l) > 3 && !seen[l] {
				seen[l] = true
				n[l]++
			}
		}
	}
	out := map[string]bool{}
	for l, k := range n {
		if k >= 3 {
			out[l] = true
		}
	}
	return out
}

// pageNumbered matches text ending in a page number, as contents and index lines do.
var pageNumbered = regexp.MustCompile(`[\p{L},.]\s+\d{1,4}$`)

// verifies cards made with no model from every PDF of the pdfcpu corpus: each card's
// answer is verbatim in its span, the span is at its offsets in its passage and at its
// page offsets in the page texts (what the viewer highlights) and on one page, no card is made twice
// (making cards again adds none), and no answer is debris: a number, a contents or index
// line, a running head or footer. It logs cards per 100 pages in all and per document
// type, and a sample to read.
func TestCorpusCards(t *testing.T) {
	ctx := context.Background()
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	type tally struct{ docs, pages, cards int }
	byType := map[document.Type]*tally{}
	byKind := map[library.CardKind]int{}
	var all []library.Card
	docs, pagesAll, skipped := 0, 0, 0
	titles := map[string]string{}
	// One subtest per document: a document that fails stops only itself.
	for _, path := range testcorpus.PDFs(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, ok := addDocument(t, lib, path)
			if !ok {
				skipped++
				return
			}
			docs++
			pagesAll += len(src.Pages)
			titles[src.SHA256] = filepath.Base(path)
			deck, err := OpenDeck(ctx, lib, "", []string{src.SHA256}, now)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Make(ctx, lib, deck, nil, now)
			if err != nil {
				t.Fatal(err)
			}
			again, err := Make(ctx, lib, deck, nil, now)
			if err != nil {
				t.Fatal(err)
			}
			if again.Added != 0 || again.Made != res.Made {
				t.Errorf("%s: making cards again added %d of %d (first time %d): duplicates", filepath.Base(path), again.Added, again.Made, res.Made)
			}
			if res.Added != res.Made {
				t.Errorf("%s: %d cards made, %d added: the generator made duplicates", filepath.Base(path), res.Made, res.Added)
			}
			ty := byType[src.DocType]
			if ty == nil {
				ty = &tally{}
				byType[src.DocType] = ty
			}
			ty.docs++
			ty.pages += len(src.Pages)
			ty.cards += res.Added

			cards, err := lib.Cards(ctx, library.CardFilter{DeckID: deck.ID})
			if err != nil {
				t.Fatal(err)
			}
			if len(cards) != res.Added {
				t.Fatalf("%s: %d cards read back, %d added", filepath.Base(path), len(cards), res.Added)
			}
			parents, err := lib.DocumentParents(ctx, src.SHA256)
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]library.Chunk{}
			for _, p := range parents {
				byID[p.ID] = p
			}
			pages, _ := lib.PageTexts(ctx, src.SHA256)
			furn := furniture(pages)
			keys := map[string]bool{}
			for _, c := range cards {
				name := fmt.Sprintf("%s card %d (%s %q → %q)", filepath.Base(path), c.ID, c.Kind, c.Front, c.Back)
				byKind[c.Kind]++
				if !strings.Contains(c.Context, c.Back) {
					t.Errorf("%s: answer not in its span %q", name, c.Context)
				}
				p, ok := byID[c.ChunkID]
				if !ok || c.SpanEnd > len(p.Text) || p.Text[c.SpanStart:c.SpanEnd] != c.Context {
					t.Errorf("%s: span not at its offsets in passage %s", name, c.ChunkID)
				}
				if c.Page != c.PageEnd {
					t.Errorf("%s: the span crosses a page break (pages %d-%d), where running heads and page numbers sit", name, c.Page, c.PageEnd)
				}
				if got := pageSpan(pages, c); got != c.Context {
					t.Errorf("%s: page offsets %d:%d-%d:%d give %q", name, c.Page, c.Start, c.PageEnd, c.End, got)
				}
				k := Dedup(c.Front, c.Back)
				if keys[k] {
					t.Errorf("%s: duplicate", name)
				}
				keys[k] = true
				back := collapse(c.Back)
				if strings.IndexFunc(back, unicode.IsLetter) < 0 || pageNumbered.MatchString(back) ||
					ingest.NavigationLine(back) && len(strings.Fields(back)) >= 4 {
					t.Errorf("%s: the answer is debris", name)
				}
				for l := range furn {
					// A running head of one or two words may be a term ("Windows"); longer ones are furniture.
					if len(strings.Fields(l)) >= 3 && strings.Contains(back, l) {
						t.Errorf("%s: the answer is a running head or footer %q", name, l)
					}
				}
				if !strings.Contains(c.Front, "?") && c.Kind == KindDefinition {
					t.Errorf("%s: a definition card that asks nothing", name)
				}
				if (c.Kind == KindCloze || c.Kind == KindHeading) && !strings.Contains(c.Front, Blank) {
					t.Errorf("%s: a cloze card with no blank", name)
				}
			}
			all = append(all, cards...)
		})
	}
	if docs < 40 {
		t.Fatalf("only %d corpus documents ingested (%d skipped)", docs, skipped)
	}
	t.Logf("%d documents (%d skipped: no text or unreadable), %d pages, %d cards: %.1f cards per 100 pages",
		docs, skipped, pagesAll, len(all), 100*float64(len(all))/float64(pagesAll))
	var types []document.Type
	for ty := range byType {
		types = append(types, ty)
	}
	slices.Sort(types)
	for _, ty := range types {
		v := byType[ty]
		t.Logf("  %-13s %2d documents %5d pages %5d cards: %5.1f per 100 pages", ty, v.docs, v.pages, v.cards, 100*float64(v.cards)/float64(v.pages))
	}
	t.Logf("by kind: %v", byKind)
	for _, k := range []library.CardKind{KindDefinition, KindGlossary, KindCloze, KindHeading} {
		if byKind[k] == 0 {
			t.Errorf("no %s card in the whole corpus", k)
		}
	}
	if per := 100 * float64(len(all)) / float64(pagesAll); per < 10 {
		t.Errorf("%.1f cards per 100 pages: the generator finds almost nothing", per)
	}
	// A sample to read: every n-th card.
	step := max(len(all)/30, 1)
	for i := 0; i < len(all); i += step {
		c := all[i]
		t.Logf("  [%s] %s p.%d  Q: %s  A: %s", c.Kind, titles[c.DocID], c.Page, c.Front, collapse(c.Back))
	}
}
