package index

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2/mapping"
)

// corpus is a small library: three documents in several chunks.
var corpus = []LexDoc{
	{ID: "ollama-1", DocID: "ollama", Title: "Ollama manual", Section: "Context window",
		Text: "Ollama truncates prompts to the context window. Pass --num-ctx 8192 to the runner, or set num_ctx in the request options, to raise it."},
	{ID: "ollama-2", DocID: "ollama", Title: "Ollama manual", Section: "Models",
		Text: "Pull a model with ollama pull. Models are stored under OLLAMA_MODELS and loaded on demand."},
	{ID: "ollama-3", DocID: "ollama", Title: "Ollama manual", Section: "Release notes",
		Text: "Version v2.6.2 fixed the scheduler. The number of contexts is capped at 4."},
	{ID: "faiss-1", DocID: "faiss", Title: "FAISS internals", Section: "C API",
		Text: "The C API exposes faiss_Index_search(), which takes the query matrix, k, and output buffers for distances and labels."},
	{ID: "faiss-2", DocID: "faiss", Title: "FAISS internals", Section: "Search",
		Text: "Every index can search: flat indexes scan all vectors, while an HNSW index walks a graph. The search returns the k nearest labels."},
	{ID: "faiss-3", DocID: "faiss", Title: "FAISS internals", Section: "Building",
		Text: "Bleve v2.6.3 ships a FAISS fork behind a build tag; this project links Debian's libfaiss instead."},
	{ID: "bio-1", DocID: "bio", Title: "Cell biology notes", Section: "Photosynthesis",
		Text: "Chlorophyll absorbs light in the chloroplasts, where photosynthesis turns water and carbon dioxide into sugar and oxygen."},
	{ID: "bio-2", DocID: "bio", Title: "Cell biology notes", Section: "Respiration",
		Text: "Mitochondria release the energy stored in sugar. It is what it is: the cell is the thing that is there, and that is that."},
}

func openLexical(t *testing.T, dir string) *Lexical {
	t.Helper()
	l, err := OpenLexical(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func filledLexical(t *testing.T) (*Lexical, string) {
	t.Helper()
	dir := t.TempDir()
	l := openLexical(t, dir)
	if err := l.Add(corpus); err != nil {
		t.Fatal(err)
	}
	return l, dir
}

func lexIDs(hs []LexHit) []string {
	ids := make([]string, len(hs))
	for i, h := range hs {
		ids[i] = h.ID
	}
	return ids
}

func search(t *testing.T, l *Lexical, q string, k int, docs ...string) []LexHit {
	t.Helper()
	hs, err := l.Search(q, k, docs)
	if err != nil {
		t.Fatalf("Search(%q): %v", q, err)
	}
	return hs
}

// verifies ranking for natural questions and verbatim identifiers.
func TestLexicalSearch(t *testing.T) {
	l, _ := filledLexical(t)
	cases := []struct {
		query   string
		wantTop string
		comment string
	}{
		{"How do I raise the context window in Ollama?", "ollama-1",
			"stop words (how, do, I, the, in) must not decide the ranking"},
		{"what absorbs light during photosynthesis?", "bio-1", "plain question"},
		{"searching indexes", "faiss-2", "stemming: searching/search, indexes/index"},
		{"chlorophyll quantum entanglement superconductivity", "bio-1",
			"not every term must match"},
		{"faiss_Index_search", "faiss-1", "C identifier, as typed"},
		{"what does faiss_Index_search() return?", "faiss-1", "identifier inside a question"},
		{"--num-ctx", "ollama-1", "command-line flag"},
		{"v2.6.3", "faiss-3", "version: must beat v2.6.2"},
		{"v2.6.2", "ollama-3", "version: must beat v2.6.3"},
		{"OLLAMA_MODELS", "ollama-2", "environment variable"},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			hs := search(t, l, c.query, 5)
			if len(hs) == 0 || hs[0].ID != c.wantTop {
				t.Fatalf("top = %v, want %s (%s)", lexIDs(hs), c.wantTop, c.comment)
			}
			for i := 1; i < len(hs); i++ {
				if hs[i].Score > hs[i-1].Score {
					t.Fatalf("scores not descending: %+v", hs)
				}
			}
		})
	}
}

// verifies that questions with nothing searchable return no hits, not every
// chunk.
func TestLexicalNothingToSearch(t *testing.T) {
	l, _ := filledLexical(t)
	for _, q := range []string{"", "   ", "what is it?", "is that it", "?!", "the"} {
		if hs := search(t, l, q, 10); len(hs) != 0 {
			t.Fatalf("Search(%q) = %v, want nothing", q, lexIDs(hs))
		}
		if hs := search(t, l, q, 10, "bio"); len(hs) != 0 {
			t.Fatalf("scoped Search(%q) = %v, want nothing", q, lexIDs(hs))
		}
	}
	if hs := search(t, l, "zyzzyva", 10); len(hs) != 0 {
		t.Fatalf("unknown word matched %v", lexIDs(hs))
	}
	if hs := search(t, l, "photosynthesis", 0); len(hs) != 0 {
		t.Fatal("k = 0 returned hits")
	}
}

// verifies the document scope filter: only those documents, same scores.
func TestLexicalScope(t *testing.T) {
	l, _ := filledLexical(t)
	q := "search the index for the k nearest labels"
	all := search(t, l, q, 10)
	scoped := search(t, l, q, 10, "faiss")
	if len(scoped) == 0 {
		t.Fatal("no hits in scope")
	}
	score := map[string]float64{}
	for _, h := range all {
		score[h.ID] = h.Score
	}
	for _, h := range scoped {
		if h.ID[:5] != "faiss" {
			t.Fatalf("hit %s outside scope", h.ID)
		}
		if score[h.ID] != h.Score {
			t.Fatalf("scope changed the score of %s: %v vs %v", h.ID, h.Score, score[h.ID])
		}
	}
	if hs := search(t, l, q, 10, "bio", "nosuchdoc"); len(hs) != 0 {
		t.Fatalf("scope bio matched %v", lexIDs(hs))
	}
	two := search(t, l, "sugar model", 10, "bio", "ollama")
	for _, h := range two {
		if h.ID[:3] != "bio" && h.ID[:6] != "ollama" {
			t.Fatalf("hit %s outside two-document scope", h.ID)
		}
	}
	if len(two) != 3 {
		t.Fatalf("two-document scope: got %v, want 3 hits", lexIDs(two))
	}
}

// verifies that a section heading match lifts a chunk above an otherwise
// equal one, without overriding the text.
func TestLexicalSectionBoost(t *testing.T) {
	dir := t.TempDir()
	l := openLexical(t, dir)
	docs := []LexDoc{
		{ID: "a", DocID: "d", Section: "Introduction", Text: "Gradient clipping keeps training stable."},
		{ID: "b", DocID: "d", Section: "Gradient clipping", Text: "Gradient clipping keeps training stable."},
	}
	// Unrelated chunks give the terms realistic, high IDFs in every field.
	for i := range 40 {
		docs = append(docs, LexDoc{ID: fmt.Sprintf("f%02d", i), DocID: "d", Section: fmt.Sprintf("Recipe %d", i),
			Text: fmt.Sprintf("Boil pasta number %d in salted water and serve it warm.", i)})
	}
	if err := l.Add(docs); err != nil {
		t.Fatal(err)
	}
	hs := search(t, l, "what is gradient clipping", 10)
	if !slices.Equal(lexIDs(hs), []string{"b", "a"}) {
		t.Fatalf("got %v, want [b a]", lexIDs(hs))
	}
	if hs[0].Score > 2*hs[1].Score {
		t.Fatalf("section boost too strong: %v vs %v", hs[0].Score, hs[1].Score)
	}
}

// verifies Delete, DeleteDoc (past one page of hits) and Count.
func TestLexicalDelete(t *testing.T) {
	dir := t.TempDir()
	l := openLexical(t, dir)
	var docs []LexDoc
	for i := range 2300 {
		docs = append(docs, LexDoc{ID: fmt.Sprintf("big-%04d", i), DocID: "big", Text: fmt.Sprintf("paragraph %d about turbines", i)})
	}
	docs = append(docs, corpus...)
	if err := l.Add(docs); err != nil {
		t.Fatal(err)
	}
	count := func() uint64 {
		n, err := l.Count()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != uint64(2300+len(corpus)) {
		t.Fatalf("Count = %d", n)
	}
	if err := l.DeleteDoc("big"); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != uint64(len(corpus)) {
		t.Fatalf("Count after DeleteDoc = %d, want %d", n, len(corpus))
	}
	if hs := search(t, l, "turbines", 10); len(hs) != 0 {
		t.Fatalf("deleted document still found: %v", lexIDs(hs))
	}
	if err := l.DeleteDoc("nosuchdoc"); err != nil {
		t.Fatal(err)
	}
	if err := l.Delete([]string{"bio-1", "nosuchchunk"}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != uint64(len(corpus)-1) {
		t.Fatalf("Count after Delete = %d", n)
	}
	if hs := search(t, l, "chlorophyll", 10); len(hs) != 0 {
		t.Fatalf("deleted chunk still found: %v", lexIDs(hs))
	}
}

// verifies that re-adding a chunk id replaces it.
func TestLexicalReplace(t *testing.T) {
	l, _ := filledLexical(t)
	if err := l.Add([]LexDoc{{ID: "bio-1", DocID: "bio", Text: "Ribosomes build proteins."}}); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.Count(); n != uint64(len(corpus)) {
		t.Fatalf("Count = %d after replace, want %d", n, len(corpus))
	}
	if hs := search(t, l, "chlorophyll", 10); len(hs) != 0 {
		t.Fatalf("old text still found: %v", lexIDs(hs))
	}
	if hs := search(t, l, "ribosomes", 10); !slices.Equal(lexIDs(hs), []string{"bio-1"}) {
		t.Fatalf("new text: got %v", lexIDs(hs))
	}
	if err := l.Add([]LexDoc{{DocID: "x", Text: "no id"}}); err == nil {
		t.Fatal("empty chunk id accepted")
	}
}

// verifies that the index persists across Close and reopen, with the same
// results, and that a closed index refuses work.
func TestLexicalPersist(t *testing.T) {
	l, dir := filledLexical(t)
	queries := []string{"context window", "faiss_Index_search", "--num-ctx", "sugar energy"}
	var before [][]LexHit
	for _, q := range queries {
		before = append(before, search(t, l, q, 5))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil { // idempotent
		t.Fatal(err)
	}
	if _, err := l.Search("x", 1, nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Search after Close: %v", err)
	}
	if err := l.Add(corpus[:1]); !errors.Is(err, ErrClosed) {
		t.Fatalf("Add after Close: %v", err)
	}

	m := openLexical(t, dir)
	if n, err := m.Count(); err != nil || n != uint64(len(corpus)) {
		t.Fatalf("Count after reopen = %d, %v", n, err)
	}
	for i, q := range queries {
		if after := search(t, m, q, 5); !slices.Equal(after, before[i]) {
			t.Fatalf("%q: %v after reopen, %v before", q, after, before[i])
		}
	}
	if err := m.DeleteDoc("ollama"); err != nil {
		t.Fatal(err)
	}
	m.Close()
	r := openLexical(t, dir)
	if n, _ := r.Count(); n != uint64(len(corpus)-3) {
		t.Fatalf("Count after delete and reopen = %d", n)
	}
}

// verifies that an index written with another schema version is refused.
func TestLexicalSchemaMismatch(t *testing.T) {
	l, dir := filledLexical(t)
	if err := l.idx.SetInternal([]byte(lexSchemaKey), []byte("0")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if m, err := OpenLexical(dir); !errors.Is(err, ErrSchemaMismatch) {
		if m != nil {
			m.Close()
		}
		t.Fatalf("got %v, want ErrSchemaMismatch", err)
	}
}

// verifies the verbatim-word helpers.
func TestCodeWords(t *testing.T) {
	trims := map[string]string{
		"faiss_Index_search(),": "faiss_Index_search",
		"`--num-ctx`":           "--num-ctx",
		"v2.6.3.":               "v2.6.3",
		"(see":                  "see",
		"\"quoted\"":            "quoted",
		"std::vector":           "std::vector",
		"...":                   "",
		"a/b/c.go:12:":          "a/b/c.go:12",
	}
	for in, want := range trims {
		if got := trimCodeToken(in); got != want {
			t.Errorf("trimCodeToken(%q) = %q, want %q", in, got, want)
		}
	}
	code := map[string]bool{
		"faiss_Index_search": true, "--num-ctx": true, "v2.6.3": true, "camelCase": true,
		"OLLAMA_MODELS": true, "std::vector": true, "2024": true,
		"the": false, "What": false, "context": false, "-": false, "well": false,
	}
	for w, want := range code {
		if got := looksLikeCode(w); got != want {
			t.Errorf("looksLikeCode(%q) = %v, want %v", w, got, want)
		}
	}
	if got := codeTerms("What does `faiss_Index_search()` return in v2.6.3?"); !slices.Equal(got, []string{"faiss_Index_search", "v2.6.3"}) {
		t.Errorf("codeTerms = %q", got)
	}
}

// The title is indexed only verbatim, for code-like words (no query reads an analysed
// title), and no field keeps term positions (no query is a phrase): indexing what no
// query reads was a third of the lexical index's share of ingest.
func TestLexicalIndexesWhatQueriesRead(t *testing.T) {
	l, _ := filledLexical(t)
	if hs := search(t, l, "manual", 10); len(hs) != 0 {
		t.Errorf("a plain title word matched %v", lexIDs(hs))
	}
	if got := lexIDs(search(t, l, "FAISS", 10)); len(got) != 3 {
		t.Errorf("a code-like title word matched %v, want the three faiss chunks", got)
	}
	dm := l.idx.Mapping().(*mapping.IndexMappingImpl).DefaultMapping
	for name, p := range dm.Properties {
		for _, f := range p.Fields {
			if f.IncludeTermVectors {
				t.Errorf("field %s (%s) keeps term positions", f.Name, name)
			}
			if name == fieldTitle && f.Name != fieldCode {
				t.Errorf("title indexed as %q, want only %q", f.Name, fieldCode)
			}
		}
	}
}

// The same chunks score the same however they were batched into segments:
// bleve's own BM25 statistics sum each segment's distinct terms, which made a
// library's ranking depend on its ingest batches and on the merger's progress.
func TestLexicalScoresIndependentOfSegments(t *testing.T) {
	one := openLexical(t, t.TempDir())
	if err := one.Add(corpus); err != nil {
		t.Fatal(err)
	}
	many := openLexical(t, t.TempDir())
	for _, d := range corpus { // one segment per chunk
		if err := many.Add([]LexDoc{d}); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"search the index for the k nearest labels", "sugar energy in the cell", "ollama context window"} {
		a, err := one.Search(q, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := many.Search(q, 10, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%q: %d hits in one batch, %d in one batch per chunk", q, len(a), len(b))
		}
		for i := range a {
			if a[i].ID != b[i].ID || math.Abs(a[i].Score-b[i].Score) > 1e-9 {
				t.Errorf("%q hit %d: %s %.6f in one batch, %s %.6f in one batch per chunk", q, i, a[i].ID, a[i].Score, b[i].ID, b[i].Score)
			}
		}
	}
	// The statistics are the union's, the same for both layouts, and a write is
	// seen by the next search's statistics.
	sa, err := one.bm25Stats()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := many.bm25Stats()
	if err != nil {
		t.Fatal(err)
	}
	if sa.DocCount != float64(len(corpus)) || sa.FieldCardinality[fieldText] == 0 || sa.FieldCardinality[fieldText] != sb.FieldCardinality[fieldText] {
		t.Fatalf("stats: one batch %+v, one batch per chunk %+v", sa, sb)
	}
	if err := one.Add([]LexDoc{{ID: "bio-3", DocID: "bio", Text: "Chlorophyll is green. Chlorophyll is a pigment of plants."}}); err != nil {
		t.Fatal(err)
	}
	after, err := one.bm25Stats()
	if err != nil {
		t.Fatal(err)
	}
	if after.DocCount != sa.DocCount+1 || after.FieldCardinality[fieldText] <= sa.FieldCardinality[fieldText] {
		t.Fatalf("after adding a chunk with new words: %+v, before %+v", after, sa)
	}
}

// verifies an index emptied by removals searches to no hits, not an error: with no
// document left bleve lists no fields, and its BM25 refuses a field without statistics
// (found by the soak test: every question failed after the last document was removed).
func TestLexicalEmptiedSearches(t *testing.T) {
	l, _ := filledLexical(t)
	docs := map[string]bool{}
	for _, d := range corpus {
		docs[d.DocID] = true
	}
	for id := range docs {
		if err := l.DeleteDoc(id); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{"photosynthesis", "faiss_Index_search", "v2.6.3"} {
		if hs := search(t, l, q, 5); len(hs) != 0 {
			t.Fatalf("Search(%q) on an emptied index = %v", q, lexIDs(hs))
		}
	}
	if err := l.Add(corpus[:1]); err != nil {
		t.Fatal(err)
	}
	if hs := search(t, l, corpus[0].Text, 5); len(hs) != 1 {
		t.Fatalf("after adding again: %v", lexIDs(hs))
	}
}
