package index

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/scorer"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// The direct search scores the query buildQuery describes straight from the segments'
// postings: for each term, its posting list's frequencies and norms, summed per chunk
// into a small array, then the best k. It gives the scores bleve's searchers give the
// same query (TestDirectSearchMatchesBleve) at a fraction of the cost: at 100k chunks
// bleve's conjunction, disjunction and boolean searchers, its document-match pool and
// collector took four fifths of a lexical query.
//
// How bleve scores that query, which the code below follows step by step:
//   - each analysed token of a match query is a term searcher (a repeated token is
//     searched twice); its score for a chunk is BM25 (idf·tf·k1 / (tf + k1·(1-b+b·len/avg)),
//     tf = √freq, len = 1/norm², avg = ⌈distinct terms of the field / chunks⌉) times its
//     query weight boost·idf·queryNorm;
//   - queryNorm is 1/√(Σ (boost·idf)²) over every term searcher of the query, as the
//     outermost searcher sets it last;
//   - a disjunction sums its matching clauses in the order of its clauses sorted by
//     posting count, times matched/clauses (coord); a conjunction and a boolean sum;
//   - ties are broken by index order (segment, then number in it), as bleve's collector
//     breaks them by hit number.

// qLeaf is one term searcher of the query.
type qLeaf struct {
	field  string
	term   []byte
	boost  float64
	count  uint64 // chunks holding the term (bleve's TermFieldReader.Count)
	idf    float64
	avgLen float64 // 0: the field has no statistics and scores TF-IDF, as in bleve
	qw     float64 // boost·idf·queryNorm
	pls    []segment.PostingsList
}

// qGroup is a match query: a disjunction of its tokens' term searchers.
type qGroup struct {
	index  int      // gText, gCode or gSection
	leaves []*qLeaf // sorted by count, as bleve's disjunction sorts its searchers
	count  uint64
	weight float64
}

func (g *qGroup) present() bool { return g != nil && len(g.leaves) > 0 }

// qLeavesByCount sorts like bleve's OrderedSearcherList: sort.Sort with the same Less over the
// same starting order gives the same order, and so the same floating-point sums.
type qLeavesByCount []*qLeaf

func (s qLeavesByCount) Len() int           { return len(s) }
func (s qLeavesByCount) Less(i, j int) bool { return s[i].count < s[j].count }
func (s qLeavesByCount) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

type qGroupsByCount []*qGroup

func (s qGroupsByCount) Len() int           { return len(s) }
func (s qGroupsByCount) Less(i, j int) bool { return s[i].count < s[j].count }
func (s qGroupsByCount) Swap(i, j int)      { s[i], s[j] = s[j], s[i] }

// Groups of the query (see buildQuery).
const (
	gText = iota
	gCode
	gSection
	nGroups
)

// qPlan is a question's query, ready to score.
type qPlan struct {
	// terms are the text field's distinct terms in question order with their weights,
	// as QueryTerms gives them.
	terms  []TermWeight
	groups [nGroups]*qGroup
	// core lists the groups a chunk must match one of, in bleve's order; two make a
	// disjunction of two clauses (text or code), one stands alone.
	core []*qGroup
}

// errNotDirect says the index is not one the direct search reproduces (not BM25).
var errNotDirect = errors.New("index: not a BM25 index")

// searchDirect is Search without bleve's searchers; see the comment at the top of the
// file. The caller holds l.mu.
func (l *Lexical) searchDirect(question string, k int, docIDs []string) ([]LexHit, error) {
	m, ok := l.idx.Mapping().(*mapping.IndexMappingImpl)
	if !ok || m.ScoringModel != index.BM25Scoring {
		return nil, errNotDirect
	}
	ix, err := l.idx.Advanced()
	if err != nil {
		return nil, err
	}
	r, err := ix.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, errNotDirect
	}
	stats, err := l.bm25Stats()
	if err != nil {
		return nil, err
	}
	segs := snap.Segments()
	plan, err := planQuery(m, segs, stats, question)
	if err != nil || plan == nil {
		return nil, err
	}
	l.terms.Store(&termsMemo{stats: stats, question: question, terms: plan.terms})
	var allow func(seg int, num uint32) bool
	if len(docIDs) > 0 {
		if allow, err = scopeOf(segs, docIDs); err != nil {
			return nil, err
		}
	}

	sc := qSumsPool.Get().(*qSums)
	defer qSumsPool.Put(sc)
	top := qTop{k: k}
	for si, s := range segs {
		n := s.Segment().Count()
		if n > math.MaxUint32 {
			return nil, errNotDirect
		}
		sc.reset(int(n))
		for g, grp := range plan.groups {
			if !grp.present() {
				continue
			}
			for _, lf := range grp.leaves {
				if err := sc.add(g, lf, lf.pls[si]); err != nil {
					return nil, err
				}
			}
		}
		for _, d := range sc.touched {
			if allow != nil && !allow(si, d) {
				continue
			}
			if score, ok := plan.score(&sc.acc[d]); ok {
				top.push(qCand{score: score, seg: uint32(si), num: d})
			}
		}
	}

	hits := make([]LexHit, 0, len(top.h))
	for _, c := range top.h {
		id, err := segs[c.seg].DocID(uint64(c.num))
		if err != nil {
			return nil, err
		}
		hits = append(hits, LexHit{ID: string(id), Score: c.score})
	}
	sortHits(hits)
	return hits, nil
}

// planQuery analyses question as buildQuery's match queries do and weighs each term.
// It returns nil when nothing is searchable.
func planQuery(m *mapping.IndexMappingImpl, segs []*scorch.SegmentSnapshot, stats *bsearch.BM25Stats, question string) (*qPlan, error) {
	an := m.AnalyzerNamed(m.AnalyzerNameForPath(fieldText))
	if an == nil {
		return nil, errors.New("no analyzer for the text field")
	}
	terms := an.Analyze([]byte(question))
	code := codeTerms(question)
	if len(terms) == 0 && len(code) == 0 {
		return nil, nil
	}
	pl := &planner{m: m, segs: segs, stats: stats, p: &qPlan{}, opened: map[string][]segment.TermDictionary{},
		tokens: map[analysed]analysis.TokenStream{{m.AnalyzerNameForPath(fieldText), question}: terms}}
	if len(terms) > 0 {
		if err := pl.group(gText, fieldText, question, 1); err != nil {
			return nil, err
		}
	}
	if len(code) > 0 {
		if err := pl.group(gCode, fieldCode, strings.Join(code, " "), boostCode); err != nil {
			return nil, err
		}
	}
	if len(terms) > 0 {
		if err := pl.group(gSection, fieldSection, question, boostSection); err != nil {
			return nil, err
		}
	}
	return pl.weigh(), nil
}

// planner builds a qPlan: the term groups of a question and their leaves.
type planner struct {
	m     *mapping.IndexMappingImpl
	segs  []*scorch.SegmentSnapshot
	stats *bsearch.BM25Stats
	p     *qPlan
	all   []*qLeaf
	// opened holds each segment's dictionary of a field, opened once for all the
	// field's terms.
	opened map[string][]segment.TermDictionary
	// tokens: the text and section fields analyse the question alike; it is analysed
	// once.
	tokens map[analysed]analysis.TokenStream
}

type analysed struct{ analyzer, text string }

// dict is segment seg's dictionary of field.
func (pl *planner) dict(field string, seg int) (segment.TermDictionary, error) {
	ds, ok := pl.opened[field]
	if !ok {
		ds = make([]segment.TermDictionary, len(pl.segs))
		pl.opened[field] = ds
	}
	if ds[seg] == nil {
		d, err := pl.segs[seg].Segment().Dictionary(field)
		if err != nil {
			return nil, err
		}
		ds[seg] = d
	}
	return ds[seg], nil
}

// analyse is text's tokens as field's analyzer makes them.
func (pl *planner) analyse(field, text string) (analysis.TokenStream, error) {
	name := pl.m.AnalyzerNameForPath(field)
	toks, ok := pl.tokens[analysed{name, text}]
	if !ok {
		a := pl.m.AnalyzerNamed(name)
		if a == nil {
			return nil, fmt.Errorf("no analyzer for the %s field", field)
		}
		toks = a.Analyze([]byte(text))
		pl.tokens[analysed{name, text}] = toks
	}
	return toks, nil
}

// group adds group g: text's terms in field, each boosted.
func (pl *planner) group(g int, field, text string, boost float64) error {
	toks, err := pl.analyse(field, text)
	if err != nil {
		return err
	}
	grp := &qGroup{index: g}
	for _, tok := range toks {
		lf := &qLeaf{field: field, term: tok.Term, boost: boost}
		if err := lf.open(pl.segs, pl.dict, pl.stats); err != nil {
			return err
		}
		grp.leaves = append(grp.leaves, lf)
		pl.all = append(pl.all, lf)
	}
	if g == gText {
		pl.termWeights(grp)
	}
	sort.Sort(qLeavesByCount(grp.leaves))
	for _, lf := range grp.leaves {
		grp.count += lf.count
		w := lf.boost * lf.idf
		grp.weight += w * w
	}
	pl.p.groups[g] = grp
	return nil
}

// termWeights lists the text group's distinct terms with their document frequency and
// IDF (QueryTerms).
func (pl *planner) termWeights(grp *qGroup) {
	seen := map[string]bool{}
	n := uint64(pl.stats.DocCount)
	for _, lf := range grp.leaves {
		if t := string(lf.term); !seen[t] {
			seen[t] = true
			df := float64(lf.count)
			pl.p.terms = append(pl.p.terms, TermWeight{Term: t, DF: int(lf.count), IDF: math.Log(1 + (float64(n)-df+0.5)/(df+0.5))})
		}
	}
}

// weigh orders the core's clauses and normalises every leaf's query weight, as bleve's
// searchers do; nil when nothing is searchable.
func (pl *planner) weigh() *qPlan {
	p := pl.p
	// The core's clauses, sorted as bleve's disjunction sorts them (a match query
	// that analysed to nothing is a match-none searcher: no postings, no weight).
	for _, g := range []int{gText, gCode} {
		if p.groups[g] != nil {
			p.core = append(p.core, p.groups[g])
		}
	}
	if len(p.core) == 2 {
		sort.Sort(qGroupsByCount(p.core))
	}
	var coreWeight float64
	for _, g := range p.core {
		coreWeight += g.weight
	}
	weight := coreWeight
	if p.groups[gSection] != nil {
		weight = 0.0 + coreWeight // the boolean's must: a conjunction of the core alone
		weight += 0.0 + p.groups[gSection].weight
	}
	if weight == 0 && !p.groups[gText].present() && !p.groups[gCode].present() {
		return nil // only code words that analyse to nothing: bleve's match-none
	}
	norm := 1.0 / math.Sqrt(weight)
	for _, lf := range pl.all {
		lf.qw = lf.boost * lf.idf * norm
	}
	return p
}

// open reads the term's posting lists and BM25 statistics, as bleve's term searcher does.
func (lf *qLeaf) open(segs []*scorch.SegmentSnapshot, dicts func(field string, seg int) (segment.TermDictionary, error), stats *bsearch.BM25Stats) error {
	lf.pls = make([]segment.PostingsList, len(segs))
	for i, s := range segs {
		d, err := dicts(lf.field, i)
		if err != nil {
			return fmt.Errorf("read %s terms: %w", lf.field, err)
		}
		pl, err := d.PostingsList(lf.term, s.Deleted(), nil)
		if err != nil {
			return fmt.Errorf("read postings of %q: %w", lf.term, err)
		}
		lf.pls[i] = pl
		lf.count += pl.Count()
	}
	count := uint64(stats.DocCount)
	card, ok := stats.FieldCardinality[lf.field]
	if !ok {
		return fmt.Errorf("field stat for bm25 not present %s", lf.field)
	}
	if count == 0 && card == 0 {
		lf.avgLen = 0
	} else {
		lf.avgLen = math.Ceil(float64(card) / float64(count))
	}
	if lf.avgLen > 0 {
		lf.idf = math.Log(1 + (float64(count)-float64(lf.count)+0.5)/(float64(lf.count)+0.5))
	} else {
		lf.idf = 1.0 + math.Log(float64(count)/float64(lf.count+1.0))
	}
	return nil
}

// termScore is bleve's TermQueryScorer score of one posting.
func (lf *qLeaf) termScore(freq uint64, norm float64) float64 {
	var tf float64
	if freq < scorer.MaxSqrtCache {
		tf = scorer.SqrtCache[int(freq)]
	} else {
		tf = math.Sqrt(float64(freq))
	}
	var score float64
	if lf.avgLen > 0 {
		fieldLength := 1 / (norm * norm)
		score = lf.idf * (tf * bsearch.BM25_k1) /
			(tf + bsearch.BM25_k1*(1-bsearch.BM25_b+(bsearch.BM25_b*fieldLength/lf.avgLen)))
	} else {
		score = tf * norm * lf.idf
	}
	if lf.qw != 1.0 {
		score = score * lf.qw
	}
	return score
}

// qAcc is one chunk's sums so far: per group, its matched terms' scores and count.
type qAcc struct {
	sum [nGroups]float64
	n   [nGroups]uint16
}

// score combines a chunk's group sums as bleve's searchers do; ok is false when the
// chunk matches no core clause.
func (p *qPlan) score(a *qAcc) (float64, bool) {
	group := func(g *qGroup) (float64, bool) {
		i := g.index
		if a.n[i] == 0 {
			return 0, false
		}
		return a.sum[i] * (float64(a.n[i]) / float64(len(g.leaves))), true
	}
	var core float64
	if len(p.core) == 1 {
		s, ok := group(p.core[0])
		if !ok {
			return 0, false
		}
		core = s
	} else {
		var sum float64
		matched := 0
		for _, g := range p.core {
			if s, ok := group(g); ok {
				sum += s
				matched++
			}
		}
		if matched == 0 {
			return 0, false
		}
		core = sum * (float64(matched) / float64(2))
	}
	if sec := p.groups[gSection]; sec.present() {
		if s, ok := group(sec); ok {
			return (0.0 + core) + s, true
		}
	}
	return core, true
}

// qSums holds one segment's sums per chunk, kept between searches (a pool) so that
// a query clears only the chunks it touched.
type qSums struct {
	acc     []qAcc
	touched []uint32
	it      segment.PostingsIterator
}

var qSumsPool = sync.Pool{New: func() any { return &qSums{} }}

// reset makes room for a segment of n chunks with no sums.
func (sc *qSums) reset(n int) {
	for _, d := range sc.touched {
		sc.acc[d] = qAcc{}
	}
	sc.touched = sc.touched[:0]
	if len(sc.acc) < n {
		sc.acc = make([]qAcc, n)
	}
}

// add adds the scores of one term's postings in a segment to group g's sums.
func (sc *qSums) add(g int, lf *qLeaf, pl segment.PostingsList) error {
	sc.it = pl.Iterator(true, true, false, sc.it)
	for {
		p, err := sc.it.Next()
		if err != nil {
			return fmt.Errorf("read postings of %q: %w", lf.term, err)
		}
		if p == nil {
			return nil
		}
		d := uint32(p.Number())
		a := &sc.acc[d]
		if a.n == [nGroups]uint16{} {
			sc.touched = append(sc.touched, d)
		}
		a.sum[g] += lf.termScore(p.Frequency(), p.Norm())
		a.n[g]++
	}
}

// qCand is a scored chunk: its segment and number there.
type qCand struct {
	score    float64
	seg, num uint32
}

// worse orders candidates as bleve's collector does: lower score, then later in the
// index.
func (a qCand) worse(b qCand) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	if a.seg != b.seg {
		return a.seg > b.seg
	}
	return a.num > b.num
}

// qTop keeps the k best candidates in a heap whose root is the worst of them.
type qTop struct {
	k int
	h []qCand
}

func (t *qTop) push(c qCand) {
	if len(t.h) < t.k {
		t.h = append(t.h, c)
		for i := len(t.h) - 1; i > 0; {
			p := (i - 1) / 2
			if !t.h[i].worse(t.h[p]) {
				break
			}
			t.h[i], t.h[p] = t.h[p], t.h[i]
			i = p
		}
		return
	}
	if !t.h[0].worse(c) {
		return
	}
	t.h[0] = c
	for i := 0; ; {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(t.h) && t.h[l].worse(t.h[w]) {
			w = l
		}
		if r < len(t.h) && t.h[r].worse(t.h[w]) {
			w = r
		}
		if w == i {
			return
		}
		t.h[i], t.h[w] = t.h[w], t.h[i]
		i = w
	}
}

// scopeOf returns a test for whether a segment's chunk belongs to one of docIDs (the
// doc field holds each chunk's document id as one term).
func scopeOf(segs []*scorch.SegmentSnapshot, docIDs []string) (func(seg int, num uint32) bool, error) {
	in := make([]map[uint32]bool, len(segs))
	for i, s := range segs {
		d, err := s.Segment().Dictionary(fieldDoc)
		if err != nil {
			return nil, fmt.Errorf("read document ids: %w", err)
		}
		in[i] = map[uint32]bool{}
		for _, id := range docIDs {
			pl, err := d.PostingsList([]byte(id), s.Deleted(), nil)
			if err != nil {
				return nil, fmt.Errorf("read chunks of %s: %w", id, err)
			}
			it := pl.Iterator(false, false, false, nil)
			for {
				p, err := it.Next()
				if err != nil {
					return nil, fmt.Errorf("read chunks of %s: %w", id, err)
				}
				if p == nil {
					break
				}
				in[i][uint32(p.Number())] = true
			}
		}
	}
	return func(seg int, num uint32) bool { return in[seg][num] }, nil
}

// sortHits puts hits best first, equal scores in id order.
func sortHits(hits []LexHit) {
	slices.SortStableFunc(hits, func(a, b LexHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// termsMemo is a question's QueryTerms as its search found them.
type termsMemo struct {
	stats    *bsearch.BM25Stats // the statistics of the index searched; replaced by a write
	question string
	terms    []TermWeight
}

// memoTerms returns question's QueryTerms if it was the last question searched and the
// index has not been written since. The caller holds l.mu.
func (l *Lexical) memoTerms(question string) ([]TermWeight, bool) {
	m := l.terms.Load()
	if m == nil || m.question != question || m.stats != l.current() {
		return nil, false
	}
	return slices.Clone(m.terms), true
}

// countStats counts the BM25 statistics of bm25Stats over snap: its chunks and, for
// every field, the distinct terms of all its segments together (as bleve's FieldDict
// lists them, terms of deleted chunks included until a merge drops them). It reads
// each segment's term dictionary without the posting count bleve's FieldDict reads for
// every term: at 100k chunks 150 ms -> 80 ms, paid by the first search after a write.
func countStats(snap *scorch.IndexSnapshot) (*bsearch.BM25Stats, error) {
	n, err := snap.DocCount()
	if err != nil {
		return nil, fmt.Errorf("count chunks: %w", err)
	}
	fields, err := snap.Fields()
	if err != nil {
		return nil, fmt.Errorf("list fields: %w", err)
	}
	s := &bsearch.BM25Stats{DocCount: float64(n), FieldCardinality: make(map[string]int, len(fields)+2)}
	// Scope filters search the document ids and "*" (no field); bleve gives
	// them the dictionary's count too, 0 for "*", so they score as before.
	s.FieldCardinality["*"] = 0
	// An index emptied by removals lists no fields; bleve refuses a query on a field
	// without statistics ("field stat for bm25 not present"), where no hits is right.
	for _, f := range []string{fieldText, fieldSection, fieldCode, fieldDoc} { // the fields queries search
		s.FieldCardinality[f] = 0
	}
	segs := snap.Segments()
	for _, f := range append(fields, "_id") {
		if s.FieldCardinality[f], err = distinctTerms(segs, f); err != nil {
			return nil, fmt.Errorf("read %s terms: %w", f, err)
		}
	}
	return s, nil
}

// distinctTerms counts field f's distinct terms over every segment.
func distinctTerms(segs []*scorch.SegmentSnapshot, f string) (int, error) {
	if len(segs) == 1 {
		d, err := segs[0].Segment().Dictionary(f)
		if err != nil {
			return 0, err
		}
		return d.Cardinality(), nil
	}
	// Each dictionary lists its terms in order: merge them, counting each once.
	var cs []termCursor
	for _, seg := range segs {
		d, err := seg.Segment().Dictionary(f)
		if err != nil {
			return 0, err
		}
		c := termCursor{it: d.AutomatonIterator(nil, nil, nil)}
		if o, ok := d.(interface {
			AutomatonIteratorOmitCount(segment.Automaton, []byte, []byte) segment.DictionaryIterator
		}); ok {
			c.it = o.AutomatonIteratorOmitCount(nil, nil, nil)
		}
		ok, err := c.next()
		if err != nil {
			return 0, err
		}
		if ok {
			cs = append(cs, c)
		}
	}
	distinct := 0
	for len(cs) > 0 {
		least := cs[0].term
		for _, c := range cs[1:] {
			least = min(least, c.term)
		}
		distinct++
		for i := 0; i < len(cs); {
			if cs[i].term != least {
				i++
				continue
			}
			ok, err := cs[i].next()
			if err != nil {
				return 0, err
			}
			if !ok {
				cs = append(cs[:i], cs[i+1:]...)
			}
		}
	}
	return distinct, nil
}

// termCursor walks one segment's dictionary of a field in term order.
type termCursor struct {
	it   segment.DictionaryIterator
	term string
}

// next moves to the next term; false at the end.
func (c *termCursor) next() (bool, error) {
	e, err := c.it.Next()
	if err != nil || e == nil {
		return false, err
	}
	c.term = e.Term
	return true, nil
}
