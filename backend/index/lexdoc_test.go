package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2/document"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

// fieldView is a field as a segment sees it: same-named fields of a document
// are merged (zapx sums their lengths and frequencies).
type fieldView struct {
	opts   bindex.FieldIndexingOptions
	length int
	freqs  map[string]int
}

// docView analyses doc as scorch does (each field, then the composites hear
// every field but _id) and returns its fields and composites by name.
func docView(t testing.TB, doc *document.Document) (fields, composites map[string]*fieldView) {
	t.Helper()
	fields, composites = map[string]*fieldView{}, map[string]*fieldView{}
	add := func(into map[string]*fieldView, name string, opts bindex.FieldIndexingOptions, length int, tfs bindex.TokenFrequencies) {
		v := into[name]
		if v == nil {
			v = &fieldView{freqs: map[string]int{}}
			into[name] = v
		}
		v.opts |= opts
		v.length += length
		for k, tf := range tfs {
			if string(tf.Term) != k {
				t.Errorf("field %s: term %q filed under %q", name, tf.Term, k)
			}
			if len(tf.Locations) != 0 {
				t.Errorf("field %s: term %q has locations", name, k)
			}
			v.freqs[k] += tf.Frequency()
		}
	}
	doc.VisitFields(func(f bindex.Field) {
		f.Analyze()
		add(fields, f.Name(), f.Options(), f.AnalyzedLength(), f.AnalyzedTokenFrequencies())
		doc.VisitComposite(func(c bindex.CompositeField) {
			c.Compose(f.Name(), f.AnalyzedLength(), f.AnalyzedTokenFrequencies())
		})
	})
	doc.VisitComposite(func(c bindex.CompositeField) {
		add(composites, c.Name(), c.Options(), c.AnalyzedLength(), c.AnalyzedTokenFrequencies())
	})
	return fields, composites
}

// compareLexDoc checks that the fast document of d is, as a segment sees it,
// the one the mapping makes.
func compareLexDoc(t testing.TB, b *lexDocBuilder, d LexDoc) {
	t.Helper()
	m, err := lexMapping()
	if err != nil {
		t.Fatal(err)
	}
	slow := document.NewDocument(d.ID)
	if err := m.MapDocument(slow, lexRecord{Doc: d.DocID, Title: d.Title, Section: d.Section, Text: d.Text}); err != nil {
		t.Fatal(err)
	}
	sc := getLexScratch()
	defer putLexScratch(sc)
	fast := b.document(d, sc)
	if fast.ID() != slow.ID() || fast.Indexed() != slow.Indexed() {
		t.Fatalf("id %q indexed %v, want %q %v", fast.ID(), fast.Indexed(), slow.ID(), slow.Indexed())
	}
	wantF, wantC := docView(t, slow)
	gotF, gotC := docView(t, fast)
	for _, cmp := range []struct {
		what      string
		got, want map[string]*fieldView
	}{{"field", gotF, wantF}, {"composite", gotC, wantC}} {
		if !slices.Equal(sortedKeys(cmp.got), sortedKeys(cmp.want)) {
			t.Fatalf("%s: %ss %v, want %v", d.ID, cmp.what, sortedKeys(cmp.got), sortedKeys(cmp.want))
		}
		for name, w := range cmp.want {
			g := cmp.got[name]
			if g.opts != w.opts || g.length != w.length {
				t.Errorf("%s: %s %s: options %v length %d, want %v %d", d.ID, cmp.what, name, g.opts, g.length, w.opts, w.length)
			}
			for term, n := range w.freqs {
				if g.freqs[term] != n {
					t.Errorf("%s: %s %s: term %q frequency %d, want %d", d.ID, cmp.what, name, term, g.freqs[term], n)
				}
			}
			for term := range g.freqs {
				if _, ok := w.freqs[term]; !ok {
					t.Errorf("%s: %s %s: term %q not made by the mapping", d.ID, cmp.what, name, term)
				}
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func fastBuilder(t testing.TB) *lexDocBuilder {
	t.Helper()
	m, err := lexMapping()
	if err != nil {
		t.Fatal(err)
	}
	b := newLexDocBuilder(m)
	if b == nil {
		t.Fatal("lexMapping's mapping gets no fast document builder")
	}
	return b
}

var lexDocSeeds = []string{
	"", " ", "Hello world's (foo) bar.", "The cat’s CATS' Ⱥ ȾΣ ΣΣ σ İstanbul",
	"faiss_Index_search(), --num-ctx v2.6.3. `std::vector<int>` a/b \"quoted\" «guillemets» *bold*",
	"stop at \xff invalid", "stop at \uFFFD replacement", "tab\tnew\nline\u00a0nbsp\u0085nel\u2003em",
	"3.14 1,000 can't O'Neil's U.S.A. e-mail co-operate 東京都 ひらがな カタカナ 한국어 ﷺ",
	"running runs ran easily fairly generalizations (((", "'s ’s ＇s s's ''",
	"a.b.c,d;e:f!g?h", "()", "f()) g(() [x] {y} <z>", "x\x00y", "\u200b\u200d zero\u200bwidth",
	"abc\u202fdef 3\u202f000 \u202f", "a \u0301b \u0301abc e\u0301 c\u0308d", "x\u200d y \u200dz \u00adsoft",
	"👍🏻 x 🏻y 🇺🇸🇬🇧 \U0001F1FA\U0001F1F8x", "word\u00a0word\u2003em\u3000ideo", "a. b: c' d, 1. 2, x'",
	"\u0301 starts", "tail \u0301", "мир, Ελλάδα's ΣΊΣΥΦΟΣ", "\u05d0\"\u05d1 \u05d0'",
}

// verifies the fast documents on hand-picked words: possessives, final sigma,
// letters whose lower case is wider, code punctuation, invalid and replacement
// runes (where the whitespace tokenizer stops), Unicode spaces, scripts.
func TestLexDocSeeds(t *testing.T) {
	b := fastBuilder(t)
	for i, s := range lexDocSeeds {
		compareLexDoc(t, b, LexDoc{ID: fmt.Sprint(i), DocID: "doc", Title: s, Section: s, Text: s + " " + s})
	}
}

// verifies that every chunk of the pdfcpu corpus gets, through the fast path,
// the terms, frequencies and lengths bleve's mapping gives it.
func TestLexDocCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts the pdfcpu corpus")
	}
	docs := corpusLexDocs(t)
	// Every corpus chunk is compared; none would compare nothing and pass.
	if len(docs) < 1000 {
		t.Fatalf("the corpus gave %d chunks, want the thousands its PDFs hold", len(docs))
	}
	b := fastBuilder(t)
	for _, d := range docs {
		compareLexDoc(t, b, d)
		if t.Failed() {
			t.Fatalf("first difference in chunk %s of %s", d.ID, d.Title)
		}
	}
}

// verifies that the index Add builds through the fast documents holds what bleve's
// mapping builds: two indexes of the corpus's chunks, written in ingest's batches, one
// each way, hold the same terms, each in the same chunks, and answer searches alike.
// (Not the dictionaries' per-term counts: bleve's FieldDict sums them across segments
// and, seen under -race, undercounts some terms depending on how the merger laid the
// segments out, while the postings agree.)
func TestLexDocIndexMatchesMapping(t *testing.T) {
	if testing.Short() {
		t.Skip("extracts the pdfcpu corpus")
	}
	docs := corpusLexDocs(t)
	build := func(fast bool) *Lexical {
		dir := t.TempDir()
		l, err := OpenLexical(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !fast {
			lexBuilders.Store(l.idx.Mapping(), (*lexDocBuilder)(nil))
		} else if lexBuilderFor(l.idx.Mapping()) == nil {
			t.Fatal("a new index gets no fast documents")
		}
		for start := 0; start < len(docs); start += 500 {
			if err := l.Add(docs[start:min(len(docs), start+500)]); err != nil {
				t.Fatal(err)
			}
		}
		if err := l.Close(); err != nil { // settles the merger
			t.Fatal(err)
		}
		if l, err = OpenLexical(dir); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		return l
	}
	a, b := build(true), build(false)
	for _, f := range []string{fieldText, fieldSection, fieldCode, fieldDoc} {
		ta, tb := dictOf(t, a, f), dictOf(t, b, f)
		if len(ta) != len(tb) {
			t.Errorf("field %s: %d terms, want %d", f, len(ta), len(tb))
		}
		bad := 0
		for term := range tb {
			if _, ok := ta[term]; !ok {
				bad++
				t.Errorf("field %s: term %q missing", f, term)
			} else if ga, gb := postingsOf(t, a, f, term), postingsOf(t, b, f, term); !slices.Equal(ga, gb) {
				bad++
				t.Errorf("field %s: term %q in chunks %v, want %v", f, term, ga, gb)
			}
			if bad > 5 {
				t.Fatalf("field %s: more differences", f)
			}
		}
	}
	for _, q := range []string{"page tree inheritance", "faiss_Index_search", "v2.6.3 --num-ctx", "Adobe's fonts", "loon pond ice", "cross-reference stream"} {
		ga, err := a.Search(q, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		gb, err := b.Search(q, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ga, gb) {
			t.Errorf("search %q: %v, want %v", q, ga, gb)
		}
	}
}

// postingsOf returns the ids of the chunks whose field holds term, sorted.
func postingsOf(t *testing.T, l *Lexical, field, term string) []string {
	t.Helper()
	ix, err := l.idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := ix.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	tfr, err := r.TermFieldReader(context.Background(), []byte(term), field, false, false, false)
	if err != nil {
		t.Fatal(err)
	}
	defer tfr.Close()
	var out []string
	for {
		d, err := tfr.Next(nil)
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			break
		}
		id, err := r.ExternalID(d.ID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func dictOf(t *testing.T, l *Lexical, field string) map[string]uint64 {
	t.Helper()
	d, err := l.idx.FieldDict(field)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	out := map[string]uint64{}
	for {
		e, err := d.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e == nil {
			return out
		}
		out[e.Term] = e.Count
	}
}

var (
	corpusOnce sync.Once
	corpusDocs []LexDoc
	corpusErr  error
)

// corpusLexDocs extracts and chunks the pdfcpu corpus as ingest does and
// returns the lexical entries of its chunks.
func corpusLexDocs(t testing.TB) []LexDoc {
	t.Helper()
	corpusOnce.Do(func() { corpusDocs, corpusErr = loadCorpusLexDocs() })
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpusDocs
}

func loadCorpusLexDocs() ([]LexDoc, error) {
	files, err := testcorpus.ListPDFs()
	if err != nil {
		return nil, err
	}
	os.Setenv("CARREL_OCR", "off")
	var docs []LexDoc
	for _, p := range files {
		src, err := ingest.File(context.Background(), p, nil)
		if err != nil {
			continue // no text
		}
		title := src.Title
		if title == "" {
			title = filepath.Base(p)
		}
		for _, parent := range chunk.Tree(src, chunk.DefaultProfiles().For(src.DocType)) {
			for _, c := range append([]chunk.Chunk{parent.Chunk}, parent.Children...) {
				docs = append(docs, LexDoc{ID: fmt.Sprint(len(docs)), DocID: filepath.Base(p), Title: title, Section: c.Section, Text: c.Text})
			}
		}
	}
	return docs, nil
}

// FuzzLexDoc compares the fast documents with the mapping's on any text.
func FuzzLexDoc(f *testing.F) {
	for _, s := range lexDocSeeds {
		f.Add(s, "Section > "+s, s)
	}
	b := fastBuilder(f)
	f.Fuzz(func(t *testing.T, text, section, title string) {
		compareLexDoc(t, b, LexDoc{ID: "c", DocID: "d", Title: title, Section: section, Text: text})
	})
}

// BenchmarkLexDocuments analyses the corpus's chunks for the index, through
// the fast path (fast) and through bleve's mapping and analyzers (mapping).
//
//	go test ./backend/index -run '^$' -bench LexDocuments
func BenchmarkLexDocuments(b *testing.B) {
	docs := corpusLexDocs(b)
	fb := fastBuilder(b)
	m, err := lexMapping()
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		sc := getLexScratch()
		defer putLexScratch(sc)
		for range b.N {
			for _, d := range docs {
				fb.document(d, sc)
			}
		}
	})
	b.Run("mapping", func(b *testing.B) {
		for range b.N {
			for _, d := range docs {
				doc := document.NewDocument(d.ID)
				if err := m.MapDocument(doc, lexRecord{Doc: d.DocID, Title: d.Title, Section: d.Section, Text: d.Text}); err != nil {
					b.Fatal(err)
				}
				for _, f := range doc.Fields {
					f.Analyze()
				}
			}
		}
	})
}

// verifies that DropWordCache frees the words the writes cached, and that
// documents built after it are still the mapping's.
func TestDropWordCache(t *testing.T) {
	b := fastBuilder(t)
	compareLexDoc(t, b, LexDoc{ID: "1", DocID: "d", Text: "hello cached words"})
	DropWordCache()
	sc := getLexScratch()
	n := len(sc.words)
	putLexScratch(sc)
	if n != 0 {
		t.Fatalf("%d words cached after DropWordCache", n)
	}
	compareLexDoc(t, b, LexDoc{ID: "2", DocID: "d", Text: "hello cached words again"})
}
