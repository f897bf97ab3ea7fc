package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/token/lowercase"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	bindex "github.com/blevesearch/bleve_index_api"

	"github.com/carrel-app/carrel/backend/crashpoint"
)

// LexDoc is one chunk to index.
type LexDoc struct {
	ID      string // chunk id (a content hash)
	DocID   string // id of the document the chunk belongs to
	Title   string // document title
	Section string // section heading path of the chunk
	Text    string
}

// LexHit is one lexical search result. Score is a BM25 sum, comparable only
// within one result list.
type LexHit struct {
	ID    string
	Score float64
}

// Field names in the bleve index. They are stored on disk with the mapping.
const (
	fieldText    = "text"    // English analysis: stop words out, stemmed
	fieldTitle   = "title"   // only feeds the code field (see lexMapping)
	fieldSection = "section" // English analysis, a bonus
	fieldCode    = "code"    // text+title+section split on whitespace only
	fieldDoc     = "doc"     // document id, one keyword term

	codeAnalyzer = "carrel_code"

	// lexSchema is bumped whenever the mapping changes incompatibly; an index
	// with another value must be rebuilt.
	lexSchemaKey = "carrel:lexical-schema"
	// Indexes made before term positions and the analysed title were dropped
	// keep them (bleve stores the mapping with the index) and answer the same
	// queries: that change was compatible.
	lexSchema = "1"
)

// Query weights, relative to a match in the chunk text. A section heading
// match only adds to chunks that already match (see buildQuery). There is no
// phrase bonus: it cost a third of a query's CPU at 100k chunks and changed
// no rank on the dev set; word order and proximity are judged on the few
// best passages by backend/rerank instead. Without the phrase bonus that
// every matching chunk shared, the section weight was lowered (from 0.75) so
// a heading match still does not outweigh the text. There is no title bonus
// either: the title is shared by every chunk of a document, and dropping it
// changed no dev-set rank on two libraries while saving a tenth of a query's
// CPU (its words still match verbatim through the code field).
const (
	boostSection = 0.4
	boostCode    = 2.0
)

// lexRecord is what bleve indexes for a LexDoc; the chunk id is the bleve
// document id. Nothing is stored: SQLite has the text.
type lexRecord struct {
	Doc     string `json:"doc"`
	Title   string `json:"title"`
	Section string `json:"section"`
	Text    string `json:"text"`
}

// Lexical is the persistent BM25 index of chunks, in bleve's scorch format.
// Every Add and Delete is on disk when it returns. Lexical is safe for
// concurrent use.
type Lexical struct {
	mu     sync.RWMutex // Close excludes everything else
	idx    bleve.Index
	closed bool
	// stats are the BM25 collection statistics of the index as it was last
	// searched, valid while writes is the count they were taken at. See bm25Stats.
	stats  atomic.Pointer[lexStats]
	writes atomic.Uint64 // batches written; counted once each batch is searchable
	// terms are the last searched question's QueryTerms, read off its search
	// (lexsearch.go): the relevance gate asks for them right after.
	terms atomic.Pointer[termsMemo]
}

// lexStats are BM25 statistics and the write count they were taken at: a search that
// read the index before a write must not leave its statistics in place after it.
type lexStats struct {
	writes uint64
	s      *bsearch.BM25Stats
}

// current returns the kept statistics if no write happened since they were taken.
func (l *Lexical) current() *bsearch.BM25Stats {
	if e := l.stats.Load(); e != nil && e.writes == l.writes.Load() {
		return e.s
	}
	return nil
}

func lexMapping() (mapping.IndexMapping, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = "bm25"
	im.DefaultAnalyzer = en.AnalyzerName
	im.StoreDynamic = false
	im.IndexDynamic = false
	im.DocValuesDynamic = false
	err := im.AddCustomAnalyzer(codeAnalyzer, map[string]any{
		"type":          custom.Name,
		"tokenizer":     whitespace.Name,
		"token_filters": []any{codeTrimName, lowercase.Name},
	})
	if err != nil {
		return nil, err
	}

	// Only what queries read is indexed, as it is the largest cost of ingesting a
	// PDF: no term positions (no query is a phrase, nothing is highlighted), and
	// the title only in the code field (no query reads an analysed title; its
	// words still match verbatim there, with the scores they had).
	textField := func(analyzer string) *mapping.FieldMapping {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = analyzer
		fm.Store = false
		fm.IncludeInAll = false
		fm.DocValues = false
		fm.IncludeTermVectors = false
		return fm
	}
	code := func() *mapping.FieldMapping {
		fm := textField(codeAnalyzer)
		fm.Name = fieldCode
		return fm
	}
	doc := bleve.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt(fieldText, textField(en.AnalyzerName), code())
	doc.AddFieldMappingsAt(fieldTitle, code())
	doc.AddFieldMappingsAt(fieldSection, textField(en.AnalyzerName), code())
	doc.AddFieldMappingsAt(fieldDoc, textField(keyword.Name))
	im.DefaultMapping = doc
	return im, nil
}

// OpenLexical opens the lexical index in dir, creating it if dir holds none.
// An index built with another schema returns an error wrapping
// ErrSchemaMismatch; the caller deletes dir and re-indexes.
func OpenLexical(dir string) (*Lexical, error) {
	var (
		idx bleve.Index
		err error
	)
	if _, statErr := os.Stat(filepath.Join(dir, "index_meta.json")); statErr == nil {
		idx, err = bleve.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("index: open lexical %s: %w", dir, err)
		}
		schema, err := idx.GetInternal([]byte(lexSchemaKey))
		if err != nil || string(schema) != lexSchema {
			idx.Close()
			if err == nil {
				err = fmt.Errorf("%w: found %q, want %q", ErrSchemaMismatch, schema, lexSchema)
			}
			return nil, fmt.Errorf("index: open lexical %s: %w", dir, err)
		}
		return &Lexical{idx: idx}, nil
	} else if !errors.Is(statErr, fs.ErrNotExist) {
		return nil, fmt.Errorf("index: open lexical: %w", statErr)
	}

	if err := createLexical(dir); err != nil {
		return nil, fmt.Errorf("index: create lexical %s: %w", dir, err)
	}
	if idx, err = bleve.Open(dir); err != nil {
		return nil, fmt.Errorf("index: open lexical %s: %w", dir, err)
	}
	return &Lexical{idx: idx}, nil
}

// lexCreating is the folder, inside the index's own, where a new index is built.
const lexCreating = ".creating"

// createLexical makes a new, empty index in dir so that a kill at any moment leaves
// either no index or a whole one. bleve writes index_meta.json (what makes a folder an
// index) first and the mapping only when its persister runs: killed in between, the
// folder was an index that cannot be opened ("error parsing mapping JSON"), taken for a
// damaged one (seen in test:crash). So the index is built and closed (persisted) in
// dir/.creating, its files moved up, index_meta.json last; what an interrupted creation
// left, without index_meta.json, is removed first. dir itself is kept: it may be a mount
// point or a link of the user's.
func createLexical(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, lexCreating)
	for _, name := range []string{lexCreating, "store"} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("remove what an interrupted creation left: %w", err)
		}
	}
	m, err := lexMapping()
	if err != nil {
		return fmt.Errorf("lexical mapping: %w", err)
	}
	idx, err := bleve.New(tmp, m)
	if err != nil {
		return err
	}
	crashpoint.Hit("lexical.created")
	if err := idx.SetInternal([]byte(lexSchemaKey), []byte(lexSchema)); err != nil {
		idx.Close()
		return err
	}
	if err := idx.Close(); err != nil {
		return err
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() != "index_meta.json" {
			if err := os.Rename(filepath.Join(tmp, e.Name()), filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	if err := os.Rename(filepath.Join(tmp, "index_meta.json"), filepath.Join(dir, "index_meta.json")); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	return os.Remove(tmp)
}

// Add indexes docs in one batch; a chunk id already present is replaced.
func (l *Lexical) Add(docs []LexDoc) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	if len(docs) == 0 {
		return nil
	}
	b := l.idx.NewBatch()
	if fast := lexBuilderFor(l.idx.Mapping()); fast != nil {
		if err := fast.addTo(b, docs); err != nil {
			return err
		}
	} else {
		for _, d := range docs {
			if d.ID == "" {
				return errors.New("index: add lexical: empty chunk id")
			}
			rec := lexRecord{Doc: d.DocID, Title: d.Title, Section: d.Section, Text: d.Text}
			if err := b.Index(d.ID, rec); err != nil {
				return fmt.Errorf("index: add lexical %s: %w", d.ID, err)
			}
		}
	}
	defer l.writes.Add(1)
	if err := l.idx.Batch(b); err != nil {
		return fmt.Errorf("index: add lexical: %w", err)
	}
	return nil
}

// Delete removes chunks by id; absent ids are ignored.
func (l *Lexical) Delete(ids []string) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	return l.deleteLocked(ids)
}

func (l *Lexical) deleteLocked(ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	b := l.idx.NewBatch()
	for _, id := range ids {
		b.Delete(id)
	}
	defer l.writes.Add(1)
	if err := l.idx.Batch(b); err != nil {
		return fmt.Errorf("index: delete lexical: %w", err)
	}
	return nil
}

// DeleteDoc removes every chunk of the document docID.
func (l *Lexical) DeleteDoc(docID string) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	const page = 1000
	for {
		q := bleve.NewTermQuery(docID)
		q.SetField(fieldDoc)
		req := bleve.NewSearchRequestOptions(q, page, 0, false)
		req.Score = "none"
		res, err := l.idx.Search(req)
		if err != nil {
			return fmt.Errorf("index: delete lexical doc %s: %w", docID, err)
		}
		ids := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ids[i] = h.ID
		}
		if err := l.deleteLocked(ids); err != nil {
			return fmt.Errorf("index: delete lexical doc %s: %w", docID, err)
		}
		if len(res.Hits) < page {
			return nil
		}
	}
}

// Search returns up to k chunks ranked by BM25 for a question typed by the
// user. docIDs, if not empty, restricts the search to those documents
// without changing scores.
//
// The question is analysed like the text (English stop words removed,
// stemmed) and any term may match: coverage of more terms ranks higher, but
// none is required. Matches in the section heading add to a chunk's score. Words that look like code
// (faiss_Index_search, --num-ctx, v2.6.3) also match verbatim in a field
// split only on whitespace, with a higher weight.
func (l *Lexical) Search(question string, k int, docIDs []string) ([]LexHit, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, ErrClosed
	}
	if k <= 0 {
		return nil, nil
	}
	hits, err := l.searchDirect(question, k, docIDs)
	if errors.Is(err, errNotDirect) {
		return l.searchBleve(question, k, docIDs)
	}
	if err != nil {
		return nil, fmt.Errorf("index: search lexical: %w", err)
	}
	return hits, nil
}

// searchBleve is Search through bleve's own searchers: the reference the direct search
// (lexsearch.go) is tested against, and the way for an index it does not reproduce. The
// caller holds l.mu.
func (l *Lexical) searchBleve(question string, k int, docIDs []string) ([]LexHit, error) {
	q, err := l.buildQuery(question, docIDs)
	if err != nil {
		return nil, fmt.Errorf("index: search lexical: %w", err)
	}
	if q == nil {
		return nil, nil
	}
	// Sorted by score alone: a sort key on _id would make the collector load
	// the external id of every candidate (~17% of a query's CPU at 100k).
	// Equal scores are put in id order below, among the hits returned.
	req := bleve.NewSearchRequestOptions(q, k, 0, false)
	stats, err := l.bm25Stats()
	if err != nil {
		return nil, fmt.Errorf("index: search lexical: %w", err)
	}
	res, err := l.idx.SearchInContext(context.WithValue(context.Background(), bsearch.BM25StatsKey, stats), req)
	if err != nil {
		return nil, fmt.Errorf("index: search lexical: %w", err)
	}
	hits := make([]LexHit, len(res.Hits))
	for i, h := range res.Hits {
		hits[i] = LexHit{ID: h.ID, Score: h.Score}
	}
	sortHits(hits)
	return hits, nil
}

// bm25Stats returns the statistics BM25 normalises field lengths with, counted
// over the whole index. bleve's own count sums each segment's distinct terms, so
// the same chunks would score differently depending on how they were batched and
// how far the background merger has got (measured: dev-set MRR@10 0.729 with
// 1500-chunk batches, 0.701 with 500). Counting distinct terms once across
// segments scores an index as if it were fully merged, whatever its layout. The
// count reads every field's terms (countStats), so it is kept until the next write.
func (l *Lexical) bm25Stats() (*bsearch.BM25Stats, error) {
	if s := l.current(); s != nil {
		return s, nil
	}
	// Read before the snapshot: statistics of a snapshot older than a write that
	// completes meanwhile are kept under the older count, so the next search recounts.
	writes := l.writes.Load()
	ix, err := l.idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("count terms: %w", err)
	}
	r, err := ix.Reader()
	if err != nil {
		return nil, fmt.Errorf("count terms: %w", err)
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, fmt.Errorf("count terms: not a scorch index (%T)", r)
	}
	s, err := countStats(snap)
	if err != nil {
		return nil, err
	}
	l.stats.Store(&lexStats{writes: writes, s: s})
	return s, nil
}

// buildQuery returns nil when the question has nothing searchable (empty,
// or only stop words and punctuation).
//
// A chunk matches through its text or a verbatim code word; section
// matches only add to its score. bleve multiplies a disjunction's
// score by the fraction of its clauses that matched (a "coord" factor), which
// would turn any bonus match into a doubling. So each bonus gets its own
// boolean level, must(core) + should(bonus), whose score is a plain sum.
func (l *Lexical) buildQuery(question string, docIDs []string) (query.Query, error) {
	an := l.idx.Mapping().AnalyzerNamed(en.AnalyzerName)
	if an == nil {
		return nil, errors.New("no English analyzer")
	}
	terms := an.Analyze([]byte(question))
	code := codeTerms(question)
	if len(terms) == 0 && len(code) == 0 {
		return nil, nil
	}

	// Core: any analysed term in the text, or any code word verbatim. Here
	// the coord factor is wanted: a chunk with the exact identifier beats
	// one that only shares its word pieces.
	var core []query.Query
	if len(terms) > 0 {
		text := bleve.NewMatchQuery(question)
		text.SetField(fieldText)
		core = append(core, text)
	}
	if len(code) > 0 {
		c := bleve.NewMatchQuery(strings.Join(code, " "))
		c.SetField(fieldCode)
		c.SetBoost(boostCode)
		core = append(core, c)
	}
	var q query.Query
	if len(core) == 1 {
		q = core[0] // the same score without a disjunction level to walk per chunk
	} else {
		q = bleve.NewDisjunctionQuery(core...)
	}

	withBonus := func(bonus query.Query) {
		b := bleve.NewBooleanQuery()
		b.AddMust(q)
		b.AddShould(bonus)
		q = b
	}
	if len(terms) > 0 {
		m := bleve.NewMatchQuery(question)
		m.SetField(fieldSection)
		m.SetBoost(boostSection)
		withBonus(m)
	}

	if len(docIDs) > 0 {
		scope := make([]query.Query, len(docIDs))
		for i, id := range docIDs {
			t := bleve.NewTermQuery(id)
			t.SetField(fieldDoc)
			scope[i] = t
		}
		b := bleve.NewBooleanQuery()
		b.AddMust(q)
		b.AddFilter(bleve.NewDisjunctionQuery(scope...)) // filters do not score
		q = b
	}
	return q, nil
}

// Count reports the number of indexed chunks.
func (l *Lexical) Count() (uint64, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return 0, ErrClosed
	}
	n, err := l.idx.DocCount()
	if err != nil {
		return 0, fmt.Errorf("index: count lexical: %w", err)
	}
	return n, nil
}

// Close closes the index. It is idempotent.
func (l *Lexical) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	l.closed = true
	if err := l.idx.Close(); err != nil {
		return fmt.Errorf("index: close lexical: %w", err)
	}
	return nil
}

// TermWeight is one distinct analysed term of a question and its BM25 inverse document
// frequency in the text field: how much finding it says about a chunk.
type TermWeight struct {
	Term string
	DF   int // chunks holding the term
	IDF  float64
	// Known: no chunk holds the term, but one holds a longer word it begins (at least
	// minPrefix letters: "intro" of "introduct"), as a student shortens a word.
	Known bool
}

// minPrefix is the shortest term counted as the start of a longer indexed word.
const minPrefix = 4

// QueryTerms analyses question as Search does (English stop words out, stemmed) and
// returns its distinct terms with their IDF, ln(1 + (N - df + 0.5)/(df + 0.5)). A term
// in no chunk has the largest IDF: a question about something absent from the library
// leans on words the library does not have.
func (l *Lexical) QueryTerms(question string) ([]TermWeight, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, ErrClosed
	}
	if tw, ok := l.memoTerms(question); ok {
		return tw, l.markKnown(tw)
	}
	an := l.idx.Mapping().AnalyzerNamed(en.AnalyzerName)
	if an == nil {
		return nil, errors.New("index: no English analyzer")
	}
	n, err := l.idx.DocCount()
	if err != nil {
		return nil, fmt.Errorf("index: query terms: %w", err)
	}
	ix, err := l.idx.Advanced()
	if err != nil {
		return nil, fmt.Errorf("index: query terms: %w", err)
	}
	r, err := ix.Reader()
	if err != nil {
		return nil, fmt.Errorf("index: query terms: %w", err)
	}
	defer r.Close()
	seen := map[string]bool{}
	var out []TermWeight
	for _, tok := range an.Analyze([]byte(question)) {
		term := string(tok.Term)
		if seen[term] {
			continue
		}
		seen[term] = true
		// The posting list's size, read without walking it.
		tfr, err := r.TermFieldReader(context.Background(), tok.Term, fieldText, false, false, false)
		if err != nil {
			return nil, fmt.Errorf("index: query terms: %w", err)
		}
		df := tfr.Count()
		tfr.Close()
		known := false
		if df == 0 && len(term) >= minPrefix {
			if known, err = hasPrefixTerm(r, tok.Term); err != nil {
				return nil, fmt.Errorf("index: query terms: %w", err)
			}
		}
		out = append(out, TermWeight{Term: term, DF: int(df), IDF: math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5)), Known: known})
	}
	return out, nil
}

// markKnown sets Known on the terms in no chunk that begin a longer indexed word (the
// search's plan, which QueryTerms reuses, does not look). The caller holds l.mu.
func (l *Lexical) markKnown(tw []TermWeight) error {
	var r bindex.IndexReader
	for i, t := range tw {
		if t.DF > 0 || t.Known || len(t.Term) < minPrefix {
			continue
		}
		if r == nil {
			ix, err := l.idx.Advanced()
			if err != nil {
				return fmt.Errorf("index: query terms: %w", err)
			}
			if r, err = ix.Reader(); err != nil {
				return fmt.Errorf("index: query terms: %w", err)
			}
			defer r.Close()
		}
		known, err := hasPrefixTerm(r, []byte(t.Term))
		if err != nil {
			return fmt.Errorf("index: query terms: %w", err)
		}
		tw[i].Known = known
	}
	return nil
}

// hasPrefixTerm reports whether the text field's dictionary holds a term that starts with
// prefix.
func hasPrefixTerm(r bindex.IndexReader, prefix []byte) (bool, error) {
	d, err := r.FieldDictPrefix(fieldText, prefix)
	if err != nil {
		return false, err
	}
	defer d.Close()
	e, err := d.Next()
	return e != nil && e.Count > 0, err
}

// Terms returns the analysed terms of text in order, as the text field indexes them
// (English stop words out, stemmed), for readers of a passage such as backend/rerank.
func (l *Lexical) Terms(text string) []string {
	an := l.idx.Mapping().AnalyzerNamed(en.AnalyzerName)
	if an == nil {
		return nil
	}
	toks := an.Analyze([]byte(text))
	out := make([]string, len(toks))
	for i, tok := range toks {
		out[i] = string(tok.Term)
	}
	return out
}

// TextTerms returns the set of terms the text field's analysis makes of text, to tell
// which of a question's [Lexical.QueryTerms] a chunk holds.
func (l *Lexical) TextTerms(text string) map[string]bool {
	an := l.idx.Mapping().AnalyzerNamed(en.AnalyzerName)
	out := map[string]bool{}
	if an == nil {
		return out
	}
	for _, tok := range an.Analyze([]byte(text)) {
		out[string(tok.Term)] = true
	}
	return out
}

// IDs returns the id of every entry in the index, for checks that it agrees with the
// library (the crash tests).
func (l *Lexical) IDs() ([]string, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return nil, ErrClosed
	}
	n, err := l.idx.DocCount()
	if err != nil {
		return nil, fmt.Errorf("index: lexical ids: %w", err)
	}
	res, err := l.idx.Search(bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), int(n), 0, false))
	if err != nil {
		return nil, fmt.Errorf("index: lexical ids: %w", err)
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// OpenLexicalReadOnly opens the lexical index in dir without writing to it, for a
// library on a read-only disk or folder.
func OpenLexicalReadOnly(dir string) (*Lexical, error) {
	idx, err := bleve.OpenUsing(dir, map[string]interface{}{"read_only": true})
	if err != nil {
		return nil, fmt.Errorf("index: open lexical %s read-only: %w", dir, err)
	}
	if schema, err := idx.GetInternal([]byte(lexSchemaKey)); err != nil || string(schema) != lexSchema {
		idx.Close()
		return nil, fmt.Errorf("index: open lexical %s read-only: %w", dir, ErrSchemaMismatch)
	}
	return &Lexical{idx: idx}, nil
}
