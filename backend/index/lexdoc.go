package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/character"
	unitok "github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	bindex "github.com/blevesearch/bleve_index_api"
	"github.com/blevesearch/segment"
)

// The lexical index's documents are built here rather than by bleve's mapping
// and analyzers, which were a third of the CPU of ingesting a PDF: they reflect
// over each record, analyse the chunk text twice through token streams of
// pointers, allocate every term, stem every word again, and give the code
// field three separate frequency maps that zapx merges. Here each word's
// analysis is looked up in a cache kept across batches (a word's analysis
// depends on the word alone; see addText), and each field's frequencies go
// into one map.
//
// The result is the document the mapping would make, as the segment sees it:
// the same fields with the same options, lengths, terms and frequencies (the
// code field's three values merged as zapx merges same-named fields), and
// bleve's own "_all" composite. The filters applied to each word are the
// mapping's own; only the two tokenizers are reimplemented (the unicode one
// through the same segmenter). lexdoc_test.go checks the documents against the
// mapping's over the corpus's chunks and by fuzzing. Queries still go through
// the mapping.

// lexAllExcluded are the fields left out of bleve's "_all" composite (none is
// included in it), in the order the mapping lists them.
var lexAllExcluded = []string{fieldDoc, fieldCode, fieldSection, fieldCode, fieldText, fieldCode}

// lexDocBuilder makes the bleve documents of an index whose mapping is
// lexMapping's.
type lexDocBuilder struct {
	enFilters   []analysis.TokenFilter
	codeFilters []analysis.TokenFilter
	opts        map[string]bindex.FieldIndexingOptions
}

var (
	lexMappingJSON = sync.OnceValues(func() ([]byte, error) {
		m, err := lexMapping()
		if err != nil {
			return nil, err
		}
		return json.Marshal(m)
	})
	// lexBuilders caches the builder of each mapping (an index keeps its
	// mapping for its lifetime); a nil entry means the slow path.
	lexBuilders sync.Map // mapping.IndexMapping -> *lexDocBuilder
)

// lexBuilderFor returns the document builder for an index with mapping m, or
// nil if m is not lexMapping's (an index made by an older version keeps the
// mapping it was made with, and must be analysed by it).
func lexBuilderFor(m mapping.IndexMapping) *lexDocBuilder {
	if b, ok := lexBuilders.Load(m); ok {
		return b.(*lexDocBuilder)
	}
	b := newLexDocBuilder(m)
	lexBuilders.Store(m, b)
	return b
}

func newLexDocBuilder(m mapping.IndexMapping) *lexDocBuilder {
	want, err := lexMappingJSON()
	if err != nil {
		return nil
	}
	got, err := json.Marshal(m)
	if err != nil || !bytes.Equal(got, want) {
		return nil
	}
	enAn, ok := m.AnalyzerNamed(en.AnalyzerName).(*analysis.DefaultAnalyzer)
	if !ok || enAn.CharFilters != nil {
		return nil
	}
	if _, ok := enAn.Tokenizer.(*unitok.UnicodeTokenizer); !ok {
		return nil
	}
	codeAn, ok := m.AnalyzerNamed(codeAnalyzer).(*analysis.DefaultAnalyzer)
	if !ok || codeAn.CharFilters != nil {
		return nil
	}
	if _, ok := codeAn.Tokenizer.(*character.CharacterTokenizer); !ok {
		return nil
	}
	// The fields' options, as the mapping sets them.
	probe := document.NewDocument("probe")
	if err := m.MapDocument(probe, lexRecord{Doc: "d", Title: "t", Section: "s", Text: "x"}); err != nil {
		return nil
	}
	opts := map[string]bindex.FieldIndexingOptions{}
	for _, f := range probe.Fields {
		opts[f.Name()] |= f.Options()
	}
	if len(opts) != 4 || len(probe.CompositeFields) != 1 || probe.CompositeFields[0].Name() != "_all" ||
		probe.CompositeFields[0].Options() != bindex.IndexField|bindex.IncludeTermVectors {
		return nil
	}
	for _, name := range []string{fieldDoc, fieldCode, fieldSection, fieldText} {
		if o, ok := opts[name]; !ok || o.IncludeTermVectors() || o.SkipFreqNorm() || o.IsStored() {
			return nil
		}
	}
	return &lexDocBuilder{enFilters: enAn.TokenFilters, codeFilters: codeAn.TokenFilters, opts: opts}
}

// addTo adds the documents of docs to batch.
func (b *lexDocBuilder) addTo(batch *bleve.Batch, docs []LexDoc) error {
	sc := getLexScratch()
	defer putLexScratch(sc)
	for _, d := range docs {
		if d.ID == "" {
			return errors.New("index: add lexical: empty chunk id")
		}
		if err := batch.IndexAdvanced(b.document(d, sc)); err != nil {
			return fmt.Errorf("index: add lexical %s: %w", d.ID, err)
		}
	}
	return nil
}

// document returns the bleve document of d, analysed with sc.
func (b *lexDocBuilder) document(d LexDoc, sc *lexScratch) *document.Document {
	doc := &document.Document{Fields: make([]document.Field, 4, 5)}
	doc.SetID(d.ID)
	fields := make([]lexField, 4)
	docTerm := &bindex.TokenFreq{Term: []byte(d.DocID)}
	docTerm.SetFrequency(1)
	fields[0] = lexField{name: fieldDoc, plain: len(d.DocID), length: 1, freqs: bindex.TokenFrequencies{d.DocID: docTerm}}

	// The English fields and the code field are built side by side, from
	// one pass over each value. The frequencies' slabs are sized by how many
	// distinct terms chunks have per byte (0.08 in the text field, 0.11 in
	// the code field); more are allocated if need be.
	sc.trim()
	var en, code lexFreqs
	codeLen := len(d.Title) + len(d.Section) + len(d.Text)
	code.slab = make([]bindex.TokenFreq, codeLen/8+4)
	code.start(codeLen/8 + 1)
	sc.addCode(b, d.Title, &code)
	en.slab = make([]bindex.TokenFreq, len(d.Section)/3+len(d.Text)/11+4)
	en.start(len(d.Section)/6 + 1)
	sc.addText(b, d.Section, &en, &code)
	fields[1] = lexField{name: fieldSection, plain: len(d.Section), length: en.n, freqs: en.m}
	en.start(len(d.Text)/11 + 1)
	sc.addText(b, d.Text, &en, &code)
	fields[2] = lexField{name: fieldText, plain: len(d.Text), length: en.n, freqs: en.m}
	fields[3] = lexField{name: fieldCode, plain: codeLen, length: code.n, freqs: code.m}

	for i := range fields {
		fields[i].opts = b.opts[fields[i].name]
		doc.Fields[i] = &fields[i]
	}
	doc.AddField(document.NewCompositeFieldWithIndexingOptions("_all", true, []string{}, lexAllExcluded,
		bindex.IndexField|bindex.IncludeTermVectors))
	doc.SetIndexed()
	return doc
}

// lexField is one analysed field of a chunk's document.
type lexField struct {
	name   string
	opts   bindex.FieldIndexingOptions
	plain  int
	length int
	freqs  bindex.TokenFrequencies
}

func (f *lexField) Name() string                                      { return f.name }
func (f *lexField) ArrayPositions() []uint64                          { return nil }
func (f *lexField) Options() bindex.FieldIndexingOptions              { return f.opts }
func (f *lexField) Value() []byte                                     { return nil } // not stored
func (f *lexField) NumPlainTextBytes() uint64                         { return uint64(f.plain) }
func (f *lexField) EncodedFieldType() byte                            { return 't' }
func (f *lexField) AnalyzedLength() int                               { return f.length }
func (f *lexField) AnalyzedTokenFrequencies() bindex.TokenFrequencies { return f.freqs }
func (f *lexField) Analyze()                                          {} // done by document

func (f *lexField) Size() int {
	return 96 + f.plain + len(f.freqs)*64
}

// lexTerm is what an analyzer's filters make of one token; keep is false
// when they drop it (a stop word, punctuation alone).
type lexTerm struct {
	s    string
	b    []byte
	keep bool
}

// lexFreqs accumulates one field's term frequencies at a time.
type lexFreqs struct {
	m    bindex.TokenFrequencies
	slab []bindex.TokenFreq
	n    int // tokens kept: the field's length
}

// start begins a field with room for about hint terms.
func (a *lexFreqs) start(hint int) {
	a.m, a.n = make(bindex.TokenFrequencies, hint), 0
}

func (a *lexFreqs) next() *bindex.TokenFreq {
	if len(a.slab) == 0 {
		a.slab = make([]bindex.TokenFreq, 32)
	}
	tf := &a.slab[0]
	a.slab = a.slab[1:]
	return tf
}

func (a *lexFreqs) add(t lexTerm) {
	a.n++
	if tf := a.m[t.s]; tf != nil {
		tf.SetFrequency(tf.Frequency() + 1)
		return
	}
	tf := a.next()
	tf.Term = t.b
	tf.SetFrequency(1)
	a.m[t.s] = tf
}

// lexCacheMax bounds each cache of the scratch; a full cache starts over.
// All the pdfcpu corpus's chunks have 27k distinct word segments and 46k
// distinct words between ASCII white space, which the caches hold in 19 MB.
const lexCacheMax = 1 << 16

// lexScratch is the analysis's caches and buffers.
type lexScratch struct {
	en    map[string]lexTerm // word segment -> en term
	words map[string]lexWord // word between ASCII white space -> its terms
	buf   []byte
	segs  [][]byte
	types []int
	terms []lexTerm
}

// lexWord is what the two analyzers make of a word between ASCII white
// space: its en terms, then its code terms. codeStops says the code field's
// tokenizer stops inside it (at an invalid or replacement rune).
type lexWord struct {
	terms     []lexTerm
	en        int // terms[:en] are the en terms
	codeStops bool
}

// trim empties the caches that are full.
func (sc *lexScratch) trim() {
	if len(sc.en) >= lexCacheMax {
		clear(sc.en)
	}
	if len(sc.words) >= lexCacheMax {
		clear(sc.words)
	}
}

// There is one scratch, kept between batches (its caches fill as a library
// is ingested) and taken by one batch at a time: with one per concurrent
// batch, each cache missed every word once, and a miss (segmenting,
// stemming) costs as much as many hits. Batches still build their segments
// concurrently.
var (
	lexScratchMu  sync.Mutex
	lexTheScratch *lexScratch
)

func getLexScratch() *lexScratch {
	lexScratchMu.Lock()
	if lexTheScratch == nil {
		lexTheScratch = &lexScratch{en: make(map[string]lexTerm, 1024), words: make(map[string]lexWord, 1024)}
	}
	return lexTheScratch
}

func putLexScratch(*lexScratch) { lexScratchMu.Unlock() }

// DropWordCache frees the word caches lexical writes keep between batches
// (up to about 25 MB after a large library), for the end of an ingest burst;
// the next write starts them again.
func DropWordCache() {
	lexScratchMu.Lock()
	lexTheScratch = nil
	lexScratchMu.Unlock()
}

// englishTerms appends the en analyzer's terms of text to out.
func (sc *lexScratch) englishTerms(b *lexDocBuilder, text string, out []lexTerm) []lexTerm {
	if text == "" {
		return out
	}
	sc.buf = append(sc.buf[:0], text...)
	segs, types, _, _ := segment.SegmentWordsDirect(sc.buf, sc.segs[:0], sc.types[:0])
	for i, seg := range segs {
		if types[i] == segment.None {
			continue
		}
		t, ok := sc.en[string(seg)]
		if !ok {
			t = filterToken(b.enFilters, seg)
			sc.en[string(seg)] = t
		}
		if t.keep {
			out = append(out, t)
		}
	}
	clear(segs) // do not keep the text alive through the scratch
	sc.segs, sc.types = segs[:0], types[:0]
	return out
}

// addText adds the en terms of text to en and its code terms to code, as
// the two analyzers would, from the cached analysis of each word between
// ASCII white space: a word's segmentation by the unicode tokenizer does not
// depend on what lies beyond the white space around it, except for a word
// starting with a mark or format character, which the segmenter joins to
// the white space before it (such words are segmented with it). Words are
// not split at other white space, which the segmenter may join (U+202F is
// a connector to it).
func (sc *lexScratch) addText(b *lexDocBuilder, text string, en, code *lexFreqs) {
	if !utf8.ValidString(text) {
		// Both tokenizers stop at the first invalid byte, the unicode one
		// even inside a word: analyse the whole text, uncached.
		sc.terms = sc.englishTerms(b, text, sc.terms[:0])
		for _, t := range sc.terms {
			en.add(t)
		}
		sc.terms, _ = sc.codeTerms(b, text, sc.terms[:0])
		for _, t := range sc.terms {
			code.add(t)
		}
		return
	}
	codeOn := true
	for i := 0; i < len(text); {
		if isASCIISpace(text[i]) {
			i++
			continue
		}
		j := i + 1
		for j < len(text) && !isASCIISpace(text[j]) {
			j++
		}
		w := text[i:j]
		if r, _ := utf8.DecodeRuneInString(w); r >= utf8.RuneSelf && joinsBefore(r) {
			// Segmented with the white space before it; not cached.
			k := i
			for k > 0 && isASCIISpace(text[k-1]) {
				k--
			}
			sc.terms = sc.englishTerms(b, text[k:j], sc.terms[:0])
			for _, t := range sc.terms {
				en.add(t)
			}
			if codeOn {
				var stop bool
				sc.terms, stop = sc.codeTerms(b, w, sc.terms[:0])
				for _, t := range sc.terms {
					code.add(t)
				}
				codeOn = !stop
			}
			i = j
			continue
		}
		lw, ok := sc.words[w]
		if !ok {
			terms := sc.englishTerms(b, w, sc.terms[:0])
			n := len(terms)
			terms, stop := sc.codeTerms(b, w, terms)
			sc.terms = terms
			lw = lexWord{terms: slices.Clone(terms), en: n, codeStops: stop}
			sc.words[strings.Clone(w)] = lw // not a slice of the chunk's text
		}
		for _, t := range lw.terms[:lw.en] {
			en.add(t)
		}
		if codeOn {
			for _, t := range lw.terms[lw.en:] {
				code.add(t)
			}
			codeOn = !lw.codeStops
		}
		i = j
	}
}

func isASCIISpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// joinsBefore reports whether r may be a mark, format character or emoji
// modifier, which word segmentation keeps with the character before it.
func joinsBefore(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc, unicode.Cf) || r >= 0x1F3FB && r <= 0x1F3FF
}

// addCode adds the carrel_code analyzer's terms of text to acc.
func (sc *lexScratch) addCode(b *lexDocBuilder, text string, acc *lexFreqs) {
	var terms []lexTerm
	terms, _ = sc.codeTerms(b, text, sc.terms[:0])
	for _, t := range terms {
		acc.add(t)
	}
	sc.terms = terms
}

// codeTerms appends the carrel_code analyzer's terms of text to out. Its
// tokenizer is bleve's whitespace one: runs of runes that are not
// unicode.IsSpace, up to the first invalid or replacement rune, where it
// stops; stopped says it did.
func (sc *lexScratch) codeTerms(b *lexDocBuilder, text string, out []lexTerm) (_ []lexTerm, stopped bool) {
	start, end := 0, 0
	for i := 0; i < len(text); {
		c := text[i]
		size := 1
		var space bool
		if c < utf8.RuneSelf {
			space = isASCIISpace(c)
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError {
				stopped = true
				break
			}
			space = unicode.IsSpace(r)
		}
		if !space {
			end = i + size
		} else {
			if end > start {
				out = sc.codeWord(b, text[start:end], out)
			}
			start = i + size
			end = start
		}
		i += size
	}
	if end > start {
		out = sc.codeWord(b, text[start:end], out)
	}
	return out, stopped
}

func (sc *lexScratch) codeWord(b *lexDocBuilder, w string, out []lexTerm) []lexTerm {
	// Not cached: code words are met once per word of the words cache, and
	// in titles, which are short.
	if t := filterToken(b.codeFilters, []byte(w)); t.keep {
		out = append(out, t)
	}
	return out
}

// filterToken runs filters over raw as the only token of a stream.
func filterToken(filters []analysis.TokenFilter, raw []byte) lexTerm {
	ts := analysis.TokenStream{{
		Term:     bytes.Clone(raw), // filters may rewrite it in place
		Start:    0,
		End:      len(raw),
		Position: 1,
		Type:     analysis.AlphaNumeric,
	}}
	for _, f := range filters {
		ts = f.Filter(ts)
	}
	if len(ts) == 0 {
		return lexTerm{}
	}
	term := bytes.Clone(ts[0].Term)
	if term == nil {
		term = []byte{}
	}
	return lexTerm{s: string(term), b: term, keep: true}
}
