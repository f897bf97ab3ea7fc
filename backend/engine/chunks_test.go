package engine

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
)

// spanText rebuilds the text a chunk's offsets point to in the stored pages, as the viewer
// does to highlight it: the tail of its first page, the pages between, the head of its last.
func spanText(t *testing.T, lib *library.Library, c library.Chunk) string {
	t.Helper()
	var parts []string
	for p := c.PageStart; p <= c.PageEnd; p++ {
		text, err := lib.PageText(context.Background(), c.DocID, p)
		if err != nil {
			t.Fatal(err)
		}
		from, to := 0, len(text)
		if p == c.PageStart {
			from = c.Start
		}
		if p == c.PageEnd {
			to = c.End
		}
		if from > to || to > len(text) {
			t.Fatalf("chunk %d offsets %d–%d do not fit page %d (%d bytes)", c.Seq, from, to, p, len(text))
		}
		if text != "" || p == c.PageStart || p == c.PageEnd {
			parts = append(parts, text[from:to])
		}
	}
	return strings.Join(parts, "\n")
}

// verifies, on a real PDF and a Markdown file with code, that every stored parent and child
// points at its own text in the page texts, each child lies in its parent, the lexical index
// holds the parents, and a search returns parents whose span gives back their text.
func TestParentsAndChildrenStored(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, Config{})
	md := filepath.Join(t.TempDir(), "notes.md")
	code := "```go\nfunc main() {\n\tfmt.Println(\"budget\")\n}\n```"
	body := "# Notes\n\n" + strings.Repeat("The token budget trims retrieved passages to fit the prompt. ", 30) + "\n\n" + code + "\n\n" +
		strings.Repeat("Children are searched and parents are answered with. ", 30)
	if err := os.WriteFile(md, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{testcorpus.File(t, "T4.pdf"), md} {
		res, err := eng.Intake().IngestFile(ctx, path, nil)
		if err != nil || res.Status != Inserted {
			t.Fatalf("ingest %s: %+v %v", path, res, err)
		}
		parents, err := eng.lib.DocumentParents(ctx, res.DocID)
		if err != nil {
			t.Fatal(err)
		}
		children, err := eng.lib.DocumentChunks(ctx, res.DocID)
		if err != nil {
			t.Fatal(err)
		}
		if len(children) != res.Chunks || len(children) <= len(parents) {
			t.Fatalf("%s: %d children (result says %d) for %d parents", path, len(children), res.Chunks, len(parents))
		}
		byseq := map[int64]library.Chunk{}
		for _, p := range parents {
			if got := spanText(t, eng.lib, p); got != p.Text {
				t.Fatalf("%s: parent %d span gives %q, text is %q", path, p.Ord, got, p.Text)
			}
			byseq[p.Seq] = p
		}
		for _, c := range children {
			if got := spanText(t, eng.lib, c); got != c.Text {
				t.Fatalf("%s: child %d span gives %q, text is %q", path, c.Ord, got, c.Text)
			}
			p, ok := byseq[c.ParentSeq]
			if !ok || !strings.Contains(p.Text, c.Text) {
				t.Fatalf("%s: child %d is not in its parent %d", path, c.Ord, c.ParentSeq)
			}
		}
		if path == md {
			whole := false
			for _, p := range parents {
				whole = whole || strings.Contains(p.Text, code)
			}
			if !whole {
				t.Errorf("the code block is in no parent whole")
			}
		}
	}
	units, _ := eng.lib.ParentCount(ctx)
	if n, err := eng.lex.Count(); err != nil || n != uint64(units) {
		t.Errorf("lexical index holds %d entries for %d parents (%v)", n, units, err)
	}
	hits, err := eng.Search(ctx, "token budget prompt", SearchOptions{Mode: "lexical", K: 5})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %+v %v", hits, err)
	}
	for _, h := range hits {
		got := spanText(t, eng.lib, library.Chunk{DocID: h.DocID, PageStart: h.Page, PageEnd: h.PageEnd, Start: h.Start, End: h.End})
		if got != h.Text || h.MatchType != "full_text" || h.LexicalRank == 0 || h.LexicalScore <= 0 {
			t.Fatalf("hit %+v: span gives %q", h, got)
		}
	}
}

// verifies a library written before parents existed (the frozen v1 library) is re-chunked
// when opened: its document gets parents and children from its stored pages, is searchable
// with hits that point at the right page and span, and awaits embedding.
func TestOldLibraryRechunkedOnOpen(t *testing.T) {
	ctx := context.Background()
	frozen, err := os.ReadFile(filepath.Join("..", "library", "testdata", "schema_v1.sql"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, library.DBName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(string(frozen)); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	eng, err := Open(Config{Dir: dir, OllamaHost: "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { eng.Close() }()
	if un, err := eng.lib.Unparented(ctx); err != nil || len(un) != 0 {
		t.Fatalf("documents left unparented: %v %v", un, err)
	}
	parents, _ := eng.lib.DocumentParents(ctx, "d1")
	children, _ := eng.lib.DocumentChunks(ctx, "d1")
	if len(parents) == 0 || len(children) == 0 || children[0].ParentSeq != parents[0].Seq {
		t.Fatalf("re-chunked into %+v / %+v", parents, children)
	}
	if un, _ := eng.lib.Unembedded(ctx, 100); len(un) != len(children) {
		t.Errorf("%d of %d new children await embedding", len(un), len(children))
	}
	hits, err := eng.Search(ctx, "Simplify", SearchOptions{Mode: "lexical"})
	if err != nil || len(hits) != 1 || hits[0].DocID != "d1" || hits[0].PageEnd != 2 || !strings.Contains(hits[0].Text, "Simplify, simplify.") {
		t.Fatalf("search after re-chunking: %+v %v", hits, err)
	}
	h := hits[0]
	if got := spanText(t, eng.lib, library.Chunk{DocID: h.DocID, PageStart: h.Page, PageEnd: h.PageEnd, Start: h.Start, End: h.End}); got != h.Text {
		t.Errorf("hit span gives %q, text %q", got, h.Text)
	}
	eng.Close()
	// Opening again finds nothing to do and keeps the same passages.
	eng, err = Open(Config{Dir: dir, OllamaHost: "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	again, _ := eng.lib.DocumentParents(ctx, "d1")
	if len(again) != len(parents) || again[0].Seq != parents[0].Seq {
		t.Errorf("reopening re-chunked again: %+v", again)
	}
}

// verifies with a real embedding model (the tiny test one: its vectors are noise, so only
// the plumbing is checked) that children are embedded, and that vector and hybrid searches
// return parents found through their children, with both ranks and scores.
func TestVectorSearchMapsChildrenToParents(t *testing.T) {
	srv := testollama.Start(t)
	ctx := context.Background()
	// The tiny model's similarities are noise: a negative floor keeps every vector hit.
	eng := openEngine(t, Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: srv.EmbedModel, MinVectorScore: -1})
	path := filepath.Join(t.TempDir(), "ponds.txt")
	text := "Ponds freeze from the edges. " + strings.Repeat("Ice thickens slowly through the winter nights. ", 12) +
		"\n\nLoons dive when chased. " + strings.Repeat("The bird surfaces far away and laughs. ", 12)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Intake().IngestFile(ctx, path, nil)
	if err != nil || res.Status != Inserted {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	if eng.vec.Len() != res.Chunks || res.Chunks < 2 {
		t.Fatalf("%d vectors for %d children", eng.vec.Len(), res.Chunks)
	}
	parents, _ := eng.lib.DocumentParents(ctx, res.DocID)
	for _, mode := range []string{"vector", "hybrid"} {
		hits, err := eng.Search(ctx, "loon diving", SearchOptions{Mode: retrieveMode(t, mode), K: 5})
		if err != nil || len(hits) == 0 {
			t.Fatalf("%s search: %+v %v", mode, hits, err)
		}
		if len(hits) > len(parents) {
			t.Errorf("%s: %d hits for %d parents: children not mapped or not deduplicated", mode, len(hits), len(parents))
		}
		for _, h := range hits {
			if h.VectorRank == 0 || h.VectorScore == 0 {
				t.Errorf("%s hit without its vector rank and score: %+v", mode, h)
			}
			if mode == "hybrid" && h.MatchType == "hybrid" && (h.LexicalRank == 0 || h.LexicalScore == 0) {
				t.Errorf("hybrid hit without its lexical rank and score: %+v", h)
			}
			got := spanText(t, eng.lib, library.Chunk{DocID: h.DocID, PageStart: h.Page, PageEnd: h.PageEnd, Start: h.Start, End: h.End})
			if got != h.Text {
				t.Errorf("%s hit span gives %q, text %q", mode, got, h.Text)
			}
		}
	}
}

func retrieveMode(t *testing.T, s string) retrieve.Mode {
	m, err := retrieve.ParseMode(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
