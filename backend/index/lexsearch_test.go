package index

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// goSourceCorpus cuts the Go standard library's net/http sources into chunks of about 60
// words: English comments and code identifiers, real text for both the text and the
// code fields. Each file is a document and each declaration's name a section.
func goSourceCorpus(t *testing.T) []LexDoc {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(runtime.GOROOT(), "src", "net", "http", "*.go"))
	if err != nil || len(files) < 20 {
		t.Skipf("Go sources not found under GOROOT (%d files, %v)", len(files), err)
	}
	slices.Sort(files)
	var docs []LexDoc
	for _, f := range files[:min(len(files), 40)] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc := filepath.Base(f)
		section := ""
		var words []string
		flush := func() {
			if len(words) > 0 {
				docs = append(docs, LexDoc{ID: fmt.Sprintf("%s-%d", doc, len(docs)), DocID: doc, Title: doc, Section: section, Text: strings.Join(words, " ")})
				words = words[:0]
			}
		}
		for _, line := range strings.Split(string(b), "\n") {
			if name, ok := strings.CutPrefix(line, "func "); ok {
				flush()
				section = strings.Fields(name + " x")[0]
			}
			words = append(words, strings.Fields(line)...)
			if len(words) >= 60 {
				flush()
			}
		}
		flush()
	}
	return docs
}

// verifies the direct search returns bleve's hits with bleve's scores (to 1e-9) over a
// real index of several segments with deleted and replaced chunks: for the dev set's
// questions, for runs of the corpus's own words (code words among them), for questions
// with repeated and absent words, with and without a document scope; and that the
// question's terms kept from the search for the relevance gate are QueryTerms' own.
func TestDirectSearchMatchesBleve(t *testing.T) {
	docs := goSourceCorpus(t)
	l := openLexical(t, t.TempDir())
	for i := 0; i < len(docs); i += 300 { // one segment per batch, until merged
		if err := l.Add(docs[i:min(i+300, len(docs))]); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var gone []string
	for range 40 {
		gone = append(gone, docs[rng.IntN(len(docs))].ID)
	}
	if err := l.Delete(gone); err != nil {
		t.Fatal(err)
	}
	replaced := []LexDoc{docs[3], docs[len(docs)/2]}
	replaced[0].Text += " handler handler ServeHTTP"
	replaced[1].Text = "a short chunk about cookies"
	if err := l.Add(replaced); err != nil {
		t.Fatal(err)
	}

	var dev, runs []string
	f, err := os.Open(filepath.Join("..", "..", "testdata", "eval", "dev.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct{ Question string }
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			t.Fatal(err)
		}
		dev = append(dev, q.Question)
	}
	f.Close()
	for range 300 {
		w := strings.Fields(docs[rng.IntN(len(docs))].Text)
		n := 1 + rng.IntN(14)
		s := rng.IntN(max(1, len(w)-n+1))
		runs = append(runs, strings.Join(w[s:min(len(w), s+n)], " "))
	}
	odd := []string{
		"the the request request request body", "ServeHTTP ServeHTTP handler", "zyzzyva quux", "net/http.Request.Context()",
		"How does the server close idle connections after a timeout?", "--", "?!", "",
		"cookie jar expires max-age header parse error redirect policy transport proxy tls dial keep-alive chunked"}

	docIDs := []string{docs[0].DocID, docs[len(docs)-1].DocID}
	compared, hits := 0, 0
	// Each group of questions in order, each question as before: its hits against
	// bleve's, and the terms the search kept against QueryTerms'.
	compare := func(t *testing.T, queries []string) {
		for _, q := range queries {
			compareQuery(t, l, q, docIDs, &compared, &hits)
		}
	}
	t.Run("dev questions", func(t *testing.T) { compare(t, dev) })
	t.Run("runs of the corpus's words", func(t *testing.T) { compare(t, runs) })
	t.Run("repeated, absent and odd words", func(t *testing.T) { compare(t, odd) })
	if hits < compared {
		t.Fatalf("only %d hits over %d searches: the comparison says little", hits, compared)
	}
}

// compareQuery searches q directly and through bleve, with and without the scope docIDs,
// for 5 and 30 hits, counting the searches and bleve's hits.
func compareQuery(t *testing.T, l *Lexical, q string, docIDs []string, compared, hits *int) {
	t.Helper()
	for _, scope := range [][]string{nil, docIDs} {
		for _, k := range []int{5, 30} {
			want, err := l.searchBleve(q, k, scope)
			if err != nil {
				t.Fatal(err)
			}
			got, err := l.searchDirect(q, k, scope)
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			*compared++
			*hits += len(want)
			// The relevance gate's terms, read off the search, are those
			// QueryTerms computes afresh.
			memo, err := l.QueryTerms(q)
			if err != nil {
				t.Fatal(err)
			}
			l.terms.Store(nil)
			fresh, err := l.QueryTerms(q)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(memo, fresh) {
				t.Errorf("%q: terms from the search %v, computed %v", q, memo, fresh)
			}
			if msg := sameHits(got, want); msg != "" {
				t.Errorf("%q (k=%d, scope %v): %s\n got %v\nwant %v", q, k, scope, msg, got, want)
			}
		}
	}
}

// sameHits compares two ranked lists: the same scores rank by rank, the same ids except
// among equal scores at the end of the list (which of several tied chunks makes the cut
// is decided by index order, and both follow it, but a last-bit difference in a long
// sum may still reorder exact ties).
func sameHits(got, want []LexHit) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d hits, want %d", len(got), len(want))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for i := range want {
		if !near(got[i].Score, want[i].Score) {
			return fmt.Sprintf("hit %d scores %.12f, want %.12f", i, got[i].Score, want[i].Score)
		}
	}
	for i := 0; i < len(want); {
		j := i + 1
		for j < len(want) && near(want[j].Score, want[i].Score) {
			j++
		}
		a, b := lexIDs(got[i:j]), lexIDs(want[i:j])
		slices.Sort(a)
		slices.Sort(b)
		if j < len(want) && !slices.Equal(a, b) {
			return fmt.Sprintf("hits %d-%d are %v, want %v", i, j-1, a, b)
		}
		i = j
	}
	return ""
}

// verifies the BM25 statistics counted from the segments' dictionaries are those of
// bleve's FieldDict (every field's distinct terms across segments, deleted chunks'
// terms included until merged away), on one segment and on several with deletions.
func TestCountStatsMatchesFieldDict(t *testing.T) {
	docs := goSourceCorpus(t)[:900]
	one := openLexical(t, t.TempDir())
	if err := one.Add(docs); err != nil {
		t.Fatal(err)
	}
	many := openLexical(t, t.TempDir())
	for i := 0; i < len(docs); i += 100 {
		if err := many.Add(docs[i : i+100]); err != nil {
			t.Fatal(err)
		}
	}
	if err := many.Delete([]string{docs[1].ID, docs[500].ID, docs[899].ID}); err != nil {
		t.Fatal(err)
	}
	for _, l := range []*Lexical{one, many} {
		// One snapshot for both counts: a merge landing between two reads drops the
		// deleted ids from "_id"'s dictionary (900 counted against 897 seen once at load 15).
		ix, err := l.idx.Advanced()
		if err != nil {
			t.Fatal(err)
		}
		r, err := ix.Reader()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		got, err := countStats(r.(*scorch.IndexSnapshot))
		if err != nil {
			t.Fatal(err)
		}
		if s, err := l.bm25Stats(); err != nil || s.DocCount != got.DocCount {
			t.Errorf("bm25Stats: %v docs (%v), the snapshot's count %v", s, err, got.DocCount)
		}
		n, err := r.DocCount()
		if err != nil {
			t.Fatal(err)
		}
		fields, err := r.Fields()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"*": 0}
		for _, f := range append(fields, "_id") {
			d, err := r.FieldDict(f)
			if err != nil {
				t.Fatal(err)
			}
			want[f] = 0 // "_id" is listed twice, as bm25Stats lists it
			for {
				e, err := d.Next()
				if err != nil {
					t.Fatal(err)
				}
				if e == nil {
					break
				}
				want[f]++
			}
			d.Close()
		}
		if got.DocCount != float64(n) || !maps.Equal(got.FieldCardinality, want) || want[fieldText] == 0 {
			t.Errorf("stats %v %v, FieldDict %d %v", got.DocCount, got.FieldCardinality, n, want)
		}
	}
}
