package index

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
// analysis is looked up in a per-worker cache (a word's analysis depends on the
// word alone), and each field's frequencies go into one map.
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

// document returns the bleve document of d, analysed with sc.
func (b *lexDocBuilder) document(d LexDoc, sc *lexScratch) *document.Document {
	doc := &document.Document{Fields: make([]document.Field, 4, 5)}
	doc.SetID(d.ID)
	fields := make([]lexField, 4)
	// One slab of frequencies for the document's fields, sized by how many
	// distinct terms chunks have per byte (more are allocated if need be).
	acc := lexFreqs{slab: make([]bindex.TokenFreq, 2*len(d.Text)/9+len(d.Section)/3+len(d.Title)/5+4)}

	docTerm := acc.next()
	docTerm.Term = []byte(d.DocID)
	docTerm.SetFrequency(1)
	fields[0] = lexField{name: fieldDoc, plain: len(d.DocID), length: 1, freqs: bindex.TokenFrequencies{d.DocID: docTerm}}

	acc.start(len(d.Section)/6 + 1)
	sc.addEnglish(b, d.Section, &acc)
	fields[1] = lexField{name: fieldSection, plain: len(d.Section), length: acc.n, freqs: acc.m}

	acc.start(len(d.Text)/11 + 1)
	sc.addEnglish(b, d.Text, &acc)
	fields[2] = lexField{name: fieldText, plain: len(d.Text), length: acc.n, freqs: acc.m}

	acc.start((len(d.Title)+len(d.Section)+len(d.Text))/8 + 1)
	sc.addCode(b, d.Title, &acc)
	sc.addCode(b, d.Section, &acc)
	sc.addCode(b, d.Text, &acc)
	fields[3] = lexField{name: fieldCode, plain: len(d.Title) + len(d.Section) + len(d.Text), length: acc.n, freqs: acc.m}

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

// lexCacheMax bounds each cache of a scratch; a full cache starts over. The
// pdfcpu corpus's chunks have 25k distinct words and 40k distinct
// whitespace-delimited ones.
const lexCacheMax = 1 << 16

// lexScratch is one analysis worker's caches and buffers.
type lexScratch struct {
	en    map[string]lexTerm // word segment -> en term
	code  map[string]lexTerm // whitespace-delimited word -> code term
	buf   []byte
	segs  [][]byte
	types []int
}

// lexScratches keeps the scratches between batches. Not a sync.Pool: that
// drops its contents at every other garbage collection, and an ingest burst
// collects often, so the caches would be refilled over and over.
var lexScratches = make(chan *lexScratch, runtime.GOMAXPROCS(0))

func getLexScratch() *lexScratch {
	select {
	case sc := <-lexScratches:
		return sc
	default:
		return &lexScratch{en: make(map[string]lexTerm, 1024), code: make(map[string]lexTerm, 1024)}
	}
}

func putLexScratch(sc *lexScratch) {
	select {
	case lexScratches <- sc:
	default:
	}
}

// addEnglish adds the en analyzer's terms of text to acc. Its tokenizer is
// bleve's unicode one: the segmenter's words of any type but None.
func (sc *lexScratch) addEnglish(b *lexDocBuilder, text string, acc *lexFreqs) {
	if text == "" {
		return
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
			if len(sc.en) >= lexCacheMax {
				clear(sc.en)
			}
			sc.en[string(seg)] = t
		}
		if t.keep {
			acc.add(t)
		}
	}
	clear(segs) // do not keep the text alive through the scratch
	sc.segs, sc.types = segs[:0], types[:0]
}

// addCode adds the carrel_code analyzer's terms of text to acc. Its tokenizer is
// bleve's whitespace one: runs of runes that are not unicode.IsSpace, up to
// the first invalid or replacement rune, where it stops.
func (sc *lexScratch) addCode(b *lexDocBuilder, text string, acc *lexFreqs) {
	start, end := 0, 0
	for i := 0; i < len(text); {
		c := text[i]
		size := 1
		var space bool
		if c < utf8.RuneSelf {
			space = c == ' ' || (c >= '\t' && c <= '\r')
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError {
				break
			}
			space = unicode.IsSpace(r)
		}
		if !space {
			end = i + size
		} else {
			if end > start {
				sc.codeWord(b, text[start:end], acc)
			}
			start = i + size
			end = start
		}
		i += size
	}
	if end > start {
		sc.codeWord(b, text[start:end], acc)
	}
}

func (sc *lexScratch) codeWord(b *lexDocBuilder, w string, acc *lexFreqs) {
	t, ok := sc.code[w]
	if !ok {
		t = filterToken(b.codeFilters, []byte(w))
		if len(sc.code) >= lexCacheMax {
			clear(sc.code)
		}
		sc.code[strings.Clone(w)] = t // not a slice of the chunk's text
	}
	if t.keep {
		acc.add(t)
	}
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
