// Package chunk cuts an ingested document into passages for retrieval and
// citation.
//
// [Split] treats a document as the text of its pages joined by
// [PageSeparator] and cuts it into chunks of about [Options.Target]
// characters. It prefers to cut before an outline heading, then before a
// line that reads as a numbered or Markdown heading, then at a paragraph
// break, then after a sentence, then at a line break, then between words;
// only text with no white space at all is cut mid-word.
// When a cut falls inside a paragraph, the next chunk starts a little
// before it ([Options.Overlap]) at a sentence or word start, so that a
// sentence near a cut is whole in at least one chunk.
//
// No cut falls inside a fenced or indented code block or a table (Markdown
// pipe rows, or rows aligned by tabs or spaces as PDF text lays them out) that
// fits in Max; a longer one is cut only between its lines.
//
// [Tree] cuts the same parents and splits each into small children, the
// units searched by vectors: a question's few words match a short passage's
// embedding better than a long one's, while the parent gives the model the
// context around it. Children carry the offsets of their own text.
//
// Each [Chunk] says where its text lies: Start in page PageStart's text to
// End in page PageEnd's text, so a citation can name its page(s) and the
// viewer can highlight the passage. [PageText] rebuilds a chunk's text
// from those offsets.
package chunk

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/ingest"
)

// PageSeparator joins the text of consecutive pages when a chunk crosses a
// page break. Pages with no text are skipped and add no separator.
const PageSeparator = "\n"

// Options tune [Split]. Sizes count characters (runes), not bytes.
type Options struct {
	// Target is the preferred chunk size.
	Target int `json:"target"`
	// Min is the smallest chunk cut from a longer text. A document, or the
	// last chunk of one, may be shorter.
	Min int `json:"min"`
	// Max is the largest chunk; a text with no white space for Max
	// characters is cut there.
	Max int `json:"max"`
	// Overlap is the fraction of a chunk that the next chunk repeats when
	// the cut between them falls inside a paragraph (0 to 0.5).
	Overlap float64 `json:"overlap"`

	// ChildTarget, ChildMin, ChildMax and ChildOverlap size the children
	// [Tree] splits each parent into, as the fields above size parents. 0
	// means the default; ChildOverlap < 0 means none.
	ChildTarget  int     `json:"child_target"`
	ChildMin     int     `json:"child_min"`
	ChildMax     int     `json:"child_max"`
	ChildOverlap float64 `json:"child_overlap"`
}

// DefaultOptions suit passages for a small embedding model and a prompt of
// a few thousand tokens: parents of about 900 characters (200 to 300 tokens
// of English), at least 200, at most 1200, and 15% overlap; children of
// about 400 characters (~100 tokens), 100 to 600, with 15% overlap.
func DefaultOptions() Options {
	return Options{Target: 900, Min: 200, Max: 1200, Overlap: 0.15,
		ChildTarget: 400, ChildMin: 100, ChildMax: 600, ChildOverlap: 0.15}
}

// sane returns o with out-of-range values replaced or clamped.
func (o Options) sane() Options {
	d := DefaultOptions()
	if o.Target <= 0 {
		o.Target = d.Target
	}
	if o.Min <= 0 || o.Min > o.Target {
		o.Min = max(1, min(d.Min, o.Target/2))
	}
	if o.Max < o.Target {
		o.Max = o.Target + o.Target/3
	}
	o.Overlap = min(max(o.Overlap, 0), 0.5)
	// Children: by default about a third of the parent, never larger than it.
	if o.ChildTarget <= 0 {
		o.ChildTarget = min(d.ChildTarget, max(1, o.Target*4/9))
	}
	o.ChildTarget = min(o.ChildTarget, o.Target)
	if o.ChildMin <= 0 || o.ChildMin > o.ChildTarget {
		o.ChildMin = max(1, min(d.ChildMin, o.ChildTarget/2))
	}
	if o.ChildMax < o.ChildTarget {
		o.ChildMax = o.ChildTarget + o.ChildTarget/2
	}
	o.ChildMax = min(o.ChildMax, o.Max)
	switch {
	case o.ChildOverlap == 0:
		o.ChildOverlap = d.ChildOverlap
	case o.ChildOverlap < 0:
		o.ChildOverlap = -1 // none; kept negative so that sane is idempotent
	}
	o.ChildOverlap = min(o.ChildOverlap, 0.5)
	return o
}

// child returns the options children are split with.
func (o Options) child() Options {
	return Options{Target: o.ChildTarget, Min: o.ChildMin, Max: o.ChildMax, Overlap: max(o.ChildOverlap, 0)}
}

// Chunk is one passage of a document.
type Chunk struct {
	// Text is the passage: never empty, never starting or ending with white
	// space. Across a page break the pages' texts are joined with
	// PageSeparator.
	Text string
	// PageStart and PageEnd are the 1-based physical pages the passage
	// starts and ends on; equal unless it crosses a page break.
	PageStart, PageEnd int
	// Start is the byte offset in page PageStart's Text where the passage
	// starts.
	Start int
	// End is the byte offset in page PageEnd's Text where the passage ends
	// (exclusive).
	End int
	// Section is the title of the nearest outline heading at or before the
	// passage's start, or "" if there is none.
	Section string
}

// ID is a chunk's identity: the hex SHA-256 of its text with runs of white
// space collapsed to one space and the ends trimmed. Case is kept.
func ID(text string) string {
	bp := idBufs.Get().(*[]byte)
	buf := normalizeSpace((*bp)[:0], text)
	sum := sha256.Sum256(buf)
	*bp = buf
	idBufs.Put(bp)
	return hex.EncodeToString(sum[:])
}

// idBufs are normalizeSpace's buffers: building the string of
// strings.Join(strings.Fields(text), " ") for every chunk allocated as much as
// a tenth of an ingest's garbage.
var idBufs = sync.Pool{New: func() any { return new([]byte) }}

// normalizeSpace appends to buf the words of text, as strings.Fields splits
// them (at unicode.IsSpace; invalid UTF-8 is not space), joined by one space.
func normalizeSpace(buf []byte, text string) []byte {
	start := len(buf)
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r, size := rune(text[j]), 1
			if r >= utf8.RuneSelf {
				r, size = utf8.DecodeRuneInString(text[j:])
			}
			if unicode.IsSpace(r) {
				break
			}
			j += size
		}
		if len(buf) > start {
			buf = append(buf, ' ')
		}
		buf = append(buf, text[i:j]...)
		i = j
	}
	return buf
}

// PageText rebuilds the text a chunk's offsets point to in doc: the tail of
// page PageStart from Start, the whole text of any pages in between, and
// the head of page PageEnd up to End, joined with PageSeparator. For a
// chunk from Split(doc, …) it equals c.Text. It returns "" if the offsets
// do not fit doc.
func PageText(doc *ingest.Document, c Chunk) string {
	n := len(doc.Pages)
	if c.PageStart < 1 || c.PageEnd < c.PageStart || c.PageEnd > n {
		return ""
	}
	first, last := doc.Pages[c.PageStart-1].Text, doc.Pages[c.PageEnd-1].Text
	if c.Start < 0 || c.Start > len(first) || c.End < 0 || c.End > len(last) {
		return ""
	}
	if c.PageStart == c.PageEnd {
		if c.Start > c.End {
			return ""
		}
		return first[c.Start:c.End]
	}
	var b strings.Builder
	b.WriteString(first[c.Start:])
	for p := c.PageStart + 1; p < c.PageEnd; p++ {
		if t := doc.Pages[p-1].Text; t != "" {
			b.WriteString(PageSeparator)
			b.WriteString(t)
		}
	}
	b.WriteString(PageSeparator)
	b.WriteString(last[:c.End])
	return b.String()
}

// Split cuts doc into chunks (the parents of [Tree]), in reading order.
// Chunks follow each other or overlap; together they cover all of the
// document's text.
func Split(doc *ingest.Document, opts Options) []Chunk {
	if doc != nil && doc.PagePassages {
		var out []Chunk
		for _, p := range Tree(doc, opts) {
			out = append(out, p.Chunk)
		}
		return out
	}
	parents, _ := cutParents(doc, opts)
	out := make([]Chunk, len(parents))
	for i, p := range parents {
		out[i] = p.Chunk
	}
	return out
}

// Parent is a passage given to the model, with the children it is searched by.
type Parent struct {
	Chunk
	// Children cover the parent's text in order, following each other or
	// overlapping, each within the parent, from where the parent before it
	// ends (the text two parents share has children in the first only).
	Children []Chunk
}

// Tree cuts doc into parents as [Split] does and each parent into children
// sized by opts' Child fields.
func Tree(doc *ingest.Document, opts Options) []Parent {
	if doc != nil && doc.PagePassages {
		return treeByPage(doc, opts)
	}
	parents, sp := cutParents(doc, opts)
	if len(parents) == 0 {
		return nil
	}
	co := sp.opts.child()
	csp := splitter{stream: sp.stream, opts: co, heads: sp.heads, titles: sp.titles, spans: protect(sp.text, sp.blocks, co.Max), blocks: sp.blocks}
	prevEnd := 0
	for i := range parents {
		p := &parents[i]
		// Children start where the parent before ends: the text two parents share (the
		// parents' overlap) has children in the first already, whole sentences up to its
		// cut, and their vectors find that parent, which holds the text too. Splitting it
		// again gave every parent a child repeating it, a seventh of the text embedded
		// (Walden's children held 1.28 times its text, now 1.08).
		// Inside a long code block or table the cut between two parents falls between
		// lines, and a child starting there would lose the line's indentation: there the
		// children start with the parent, as before.
		var children []cut
		if from := max(p.s, prevEnd); from > p.s && !inBlock(sp.blocks, from) {
			children = csp.split(from, p.e)
		}
		if len(children) == 0 {
			children = csp.split(p.s, p.e)
		}
		for _, c := range children {
			p.Children = append(p.Children, c.Chunk)
		}
		prevEnd = max(prevEnd, p.e)
	}
	out := make([]Parent, len(parents))
	for i, p := range parents {
		out[i] = p.Parent
	}
	return out
}

// inBlock reports whether stream byte p lies within one of blocks (sorted), its
// start excluded.
func inBlock(blocks []block, p int) bool {
	i := sort.Search(len(blocks), func(i int) bool { return blocks[i].e >= p })
	return i < len(blocks) && blocks[i].s < p
}

// cut is a chunk with its place in the stream.
type cut struct {
	Parent
	s, e int
}

func cutParents(doc *ingest.Document, opts Options) ([]cut, *splitter) {
	if doc == nil {
		return nil, nil
	}
	s := newStream(doc)
	if s.text == "" {
		return nil, nil
	}
	o := opts.sane()
	blocks := findBlocks(s.text)
	sp := &splitter{stream: s, opts: o, heads: s.locateHeadings(doc.Outline), blocks: blocks, spans: protect(s.text, blocks, o.Max)}
	sp.titles = titleLines(s.text, blocks)
	return sp.split(0, len(s.text)), sp
}

// stream is the document's text as one string: the non-empty pages joined
// with PageSeparator.
type stream struct {
	text   string
	starts []int // offset in text where each segment starts
	pages  []int // 1-based page number of each segment
	lens   []int // length of each segment
}

func newStream(doc *ingest.Document) *stream {
	s := &stream{}
	var b strings.Builder
	for i, p := range doc.Pages {
		if p.Text == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(PageSeparator)
		}
		s.starts = append(s.starts, b.Len())
		s.pages = append(s.pages, i+1)
		s.lens = append(s.lens, len(p.Text))
		b.WriteString(p.Text)
	}
	s.text = b.String()
	return s
}

// segment returns the index of the segment holding byte pos, which must
// not lie on a separator.
func (s *stream) segment(pos int) int {
	return sort.Search(len(s.starts), func(i int) bool { return s.starts[i] > pos }) - 1
}

// heading is an outline entry placed in the stream.
type heading struct {
	title string
	pos   int
	exact bool // its title was found in the text, not assumed at page start
}

// locateHeadings finds where each outline heading's title appears on its
// page (preferring an occurrence at the start of a line), falling back to
// the start of the page. The result is sorted by position.
func (s *stream) locateHeadings(outline []ingest.Heading) []heading {
	var out []heading
	for _, h := range outline {
		// The first segment of this page or, if it has no text, of the
		// next page that has.
		k := sort.Search(len(s.pages), func(i int) bool { return s.pages[i] >= h.Page })
		if k == len(s.pages) {
			out = append(out, heading{title: h.Title, pos: len(s.text)})
			continue
		}
		pos, exact := s.starts[k], false
		if s.pages[k] == h.Page && len(outline) <= 5000 {
			if off, ok := findTitle(s.text[s.starts[k]:s.starts[k]+s.lens[k]], h.Title); ok {
				pos, exact = s.starts[k]+off, true
			}
		}
		out = append(out, heading{title: h.Title, pos: pos, exact: exact})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].pos < out[j].pos })
	return out
}

// findTitle finds title in page, case-insensitively and with any white
// space between its words, preferring a match that starts a line.
func findTitle(page, title string) (int, bool) {
	words := strings.Fields(title)
	if len(words) == 0 || len(words) > 40 {
		return 0, false
	}
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	re, err := regexp.Compile(`(?i)` + strings.Join(words, `\s+`))
	if err != nil {
		return 0, false
	}
	matches := re.FindAllStringIndex(page, 20)
	if len(matches) == 0 {
		return 0, false
	}
	// Best a line that is the title alone, then one that starts with it.
	first := -1
	for _, m := range matches {
		lineStart := strings.LastIndexByte(page[:m[0]], '\n') + 1
		// Allow a section number or Markdown marks before the title
		// ("2.3 Methods", "## Methods").
		if strings.TrimLeft(page[lineStart:m[0]], "0123456789.IVXivx#§ \t") != "" {
			continue
		}
		lineEnd := strings.IndexByte(page[m[1]:], '\n')
		if lineEnd < 0 {
			lineEnd = len(page) - m[1]
		}
		if strings.TrimSpace(page[m[1]:m[1]+lineEnd]) == "" {
			return lineStart, true
		}
		if first < 0 {
			first = lineStart
		}
	}
	if first >= 0 {
		return first, true
	}
	return matches[0][0], true
}

// Boundary classes, best first.
type class int

const (
	atHeading   class = iota
	atTitleLine       // a line that looks like a section heading (numbered, or Markdown)
	atParagraph
	atSentence
	atLine
	atWord
	atHard
)

// penalty is added to a cut's distance from the target (as a fraction of
// it): a paragraph break 40% off target beats a sentence end on target.
var penalty = [...]float64{
	atHeading:   -0.4,
	atTitleLine: -0.2,
	atParagraph: 0.1,
	atSentence:  0.5,
	atLine:      0.6,
	atWord:      0.8,
	atHard:      3,
}

type splitter struct {
	*stream
	opts   Options
	heads  []heading
	titles []heading // lines that read as headings (titleLine), in order
	blocks []block
	spans  []span // no cut falls inside one (see protect)
	end    int    // the end of the range being split
	pos    []int  // scratch: byte offset of each rune of the window
}

// split cuts stream bytes [from, to), which must not lie inside a span.
func (sp *splitter) split(from, to int) []cut {
	var chunks []cut
	text := sp.text
	sp.end = to
	start := skipSpace(text[:to], from)
	for start < to {
		c, next := sp.cut(start)
		end := trimRightSpace(text, start, c)
		if end > start {
			chunks = append(chunks, cut{Parent: Parent{Chunk: sp.chunk(start, end)}, s: start, e: end})
		}
		if next <= start { // cannot happen; guards against a loop
			next = max(c, start+1)
		}
		start = skipSpace(text[:to], next)
	}
	return chunks
}

// chunk makes the Chunk for stream bytes [s, e), which start and end with
// non-space characters.
func (sp *splitter) chunk(s, e int) Chunk {
	a, b := sp.segment(s), sp.segment(e-1)
	c := Chunk{
		Text:      sp.text[s:e],
		PageStart: sp.pages[a],
		PageEnd:   sp.pages[b],
		Start:     s - sp.starts[a],
		End:       e - sp.starts[b],
	}
	// The last heading at or before s: from the outline, or a heading line after it
	// (outlines rarely list the deeper sections a passage sits in).
	at := -1
	i := sort.Search(len(sp.heads), func(i int) bool { return sp.heads[i].pos > s })
	if i > 0 {
		c.Section, at = sp.heads[i-1].title, sp.heads[i-1].pos
	}
	if j := sort.Search(len(sp.titles), func(j int) bool { return sp.titles[j].pos > s }); j > 0 && sp.titles[j-1].pos > at {
		c.Section = sp.titles[j-1].title
	}
	return c
}

// cut decides where the chunk starting at byte start ends (cut) and where
// the next one starts (next, before skipping white space).
func (sp *splitter) cut(start int) (cut, next int) {
	o, end := sp.opts, sp.end
	i := sp.window(start)
	runes := len(sp.pos) - 1
	lo, hi := o.Min, o.Max
	// The rest fits: it is still cut where a section starts, if both sides keep Min.
	fits := i == end && runes <= o.Max
	if i == end && runes-o.Min < hi {
		hi = max(runes-o.Min, lo) // leave the last chunk at least Min
	}
	hi = min(hi, runes)
	if fits && hi <= lo {
		return end, end
	}
	bestK, bestClass := sp.bestBoundary(start, lo, hi, fits)
	if fits && bestClass > atTitleLine {
		return end, end
	}
	return sp.cutAt(start, bestK, bestClass)
}

// window fills sp.pos with the byte offsets of the runes from start, up to Max+Min
// runes ahead, and the offset after the last (pos[k] is where rune k starts;
// pos[len-1] is the end), which it returns.
func (sp *splitter) window(start int) int {
	text, o, end := sp.text[:sp.end], sp.opts, sp.end
	sp.pos = sp.pos[:0]
	i := start
	for len(sp.pos) <= o.Max+o.Min && i < end {
		sp.pos = append(sp.pos, i)
		_, size := utf8.DecodeRuneInString(text[i:])
		i += size
	}
	sp.pos = append(sp.pos, i)
	return i
}

// bestBoundary scores the boundaries between runes lo and hi of the window (headings, then
// runs of white space outside spans) and returns the best one's rune and class. When
// the rest fits, only section starts are considered.
func (sp *splitter) bestBoundary(start, lo, hi int, fits bool) (bestK int, bestClass class) {
	text, o, end := sp.text[:sp.end], sp.opts, sp.end
	best := 1e9
	bestK, bestClass = hi, atHard
	consider := func(k int, c class) {
		score := penalty[c] + abs(float64(k-o.Target))/float64(o.Target)
		if score < best {
			best, bestK, bestClass = score, k, c
		}
	}
	hk := sort.Search(len(sp.heads), func(j int) bool { return sp.heads[j].pos >= sp.pos[lo] })
	for ; hk < len(sp.heads) && sp.heads[hk].pos <= sp.pos[hi]; hk++ {
		k := sort.SearchInts(sp.pos, sp.heads[hk].pos)
		if k > hi || sp.pos[k] != sp.heads[hk].pos {
			continue
		}
		if _, in := inside(sp.spans, sp.pos[k]); in {
			continue // a "# comment" line in a code block is no heading
		}
		// The chunk must hold Min runes without the white space before
		// the heading.
		e := trimRightSpace(text, start, sp.pos[k])
		if sort.SearchInts(sp.pos, e) >= lo {
			consider(k, atHeading)
		}
	}
	for k := lo; k <= hi; k++ {
		p := sp.pos[k]
		if p >= end || !isSpaceAt(text, p) || isSpaceBefore(text, p) {
			continue // not the start of a run of white space
		}
		if _, in := inside(sp.spans, p); in {
			continue
		}
		if c := sp.classify(p); !fits || c <= atTitleLine {
			consider(k, c)
		}
	}
	return bestK, bestClass
}

// cutAt cuts the chunk starting at byte start before rune bestK of the window, a
// boundary of class bestClass, unless that falls in a span, and starts the next chunk
// there or, cut inside a paragraph, with overlap.
func (sp *splitter) cutAt(start, bestK int, bestClass class) (cut, next int) {
	text, o := sp.text[:sp.end], sp.opts
	cut = sp.pos[bestK]
	if sp2, in := inside(sp.spans, cut); in {
		// No boundary in [Min, Max] lies outside the blocks: the window ends
		// inside one. Cut before it (leaving this chunk shorter than Min) so
		// that the next chunk holds it whole; spans are at most Max long, so
		// one that starts here ends within reach.
		if trimRightSpace(text, start, sp2.s) > start {
			return sp2.s, sp2.s
		}
		return sp2.e, sp2.e
	}
	if bestClass == atHeading || bestClass == atTitleLine || bestClass == atParagraph || o.Overlap == 0 {
		return cut, cut
	}
	next = sp.overlapStart(bestK)
	if sp2, in := inside(sp.spans, next); in {
		// The overlap would start the next chunk inside a block: start it at
		// the block, or without overlap.
		next = cut
		if sp2.s > start {
			next = sp2.s
		}
	}
	return cut, next
}

// classify names the boundary at p, the start of a run of white space.
func (sp *splitter) classify(p int) class {
	text := sp.text
	q := skipSpace(text, p)
	newlines := strings.Count(text[p:q], "\n")
	if newlines >= 1 && titleLine(text[q:min(len(text), q+maxTitleLine+1)]) {
		return atTitleLine
	}
	if newlines >= 2 {
		return atParagraph
	}
	if sentenceEnd(text, p, q) {
		return atSentence
	}
	if newlines == 1 {
		return atLine
	}
	return atWord
}

// overlapStart picks where the next chunk starts when the chunk of k runes
// was cut inside a paragraph: about Overlap·k runes before the cut, at a
// sentence start if one is near, else at a word start.
func (sp *splitter) overlapStart(k int) int {
	ov := int(sp.opts.Overlap*float64(k) + 0.5)
	if ov == 0 {
		return sp.pos[k]
	}
	want := k - ov
	lo, hi := max(1, k-ov*3/2), k-max(1, ov/2)
	bestSentence, bestWord := -1, -1
	for j := lo; j <= hi; j++ {
		p := sp.pos[j]
		if isSpaceAt(sp.text, p) || !isSpaceBefore(sp.text, p) {
			continue // not a word start
		}
		runStart := p
		for runStart > 0 && isSpaceBefore(sp.text, runStart) {
			_, size := utf8.DecodeLastRuneInString(sp.text[:runStart])
			runStart -= size
		}
		if sentenceEnd(sp.text, runStart, p) && (bestSentence < 0 || abs(float64(j-want)) < abs(float64(bestSentence-want))) {
			bestSentence = j
		}
		if bestWord < 0 || abs(float64(j-want)) < abs(float64(bestWord-want)) {
			bestWord = j
		}
	}
	switch {
	case bestSentence >= 0:
		return sp.pos[bestSentence]
	case bestWord >= 0:
		return sp.pos[bestWord]
	}
	return sp.pos[max(1, want)]
}

// abbreviations end with a period but rarely end a sentence.
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "cf": true, "vs": true, "etc": true, "al": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true,
	"fig": true, "figs": true, "eq": true, "eqs": true, "sec": true, "ch": true,
	"no": true, "vol": true, "pp": true, "p": true, "approx": true, "resp": true,
	"z.b": true, "bzw": true, "usw": true, "ca": true,
}

// sentenceEnd reports whether the text before the white space [p, q) ends
// a sentence: a terminal mark, perhaps followed by closing quotes or
// brackets, not after a known abbreviation or an initial, and not followed
// by a lowercase letter.
func sentenceEnd(text string, p, q int) bool {
	i := p
	for i > 0 {
		r, size := utf8.DecodeLastRuneInString(text[:i])
		if !strings.ContainsRune(`"')]}»”’`, r) {
			break
		}
		i -= size
	}
	if i == 0 {
		return false
	}
	r, size := utf8.DecodeLastRuneInString(text[:i])
	switch r {
	case '!', '?', '…', '。', '！', '？':
	case '.':
		word := text[:i-size]
		j := len(word)
		for j > 0 {
			r, s := utf8.DecodeLastRuneInString(word[:j])
			if !unicode.IsLetter(r) && r != '.' {
				break
			}
			j -= s
		}
		word = word[j:]
		if abbreviations[strings.ToLower(word)] {
			return false
		}
		if utf8.RuneCountInString(word) == 1 && unicode.IsUpper([]rune(word)[0]) {
			return false // an initial: "J. Smith"
		}
	default:
		return false
	}
	if q < len(text) {
		if next, _ := utf8.DecodeRuneInString(text[q:]); unicode.IsLower(next) {
			return false
		}
	}
	return true
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func isSpaceAt(s string, i int) bool {
	if s[i] < utf8.RuneSelf {
		return asciiSpace[s[i]]
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsSpace(r)
}

func isSpaceBefore(s string, i int) bool {
	if i == 0 {
		return false
	}
	if s[i-1] < utf8.RuneSelf {
		return asciiSpace[s[i-1]]
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return unicode.IsSpace(r)
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// skipSpace returns the offset of the first non-space rune at or after i.
func skipSpace(s string, i int) int {
	for i < len(s) && isSpaceAt(s, i) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}

// trimRightSpace returns e moved back over white space, not before s.
func trimRightSpace(text string, s, e int) int {
	for e > s && isSpaceBefore(text, e) {
		_, size := utf8.DecodeLastRuneInString(text[:e])
		e -= size
	}
	return e
}

// maxTitleLine is the longest line taken for a section heading.
const maxTitleLine = 90

// numberedTitle is a numbered heading's start: "3 ", "2.1 ", "J.1.1.2 ", "A.3. ", then
// a capital letter. A lone letter needs a number after it, or "A Man…" would be one.
var numberedTitle = regexp.MustCompile(`^(?:\d{1,2}(?:\.\d{1,3}){0,4}|[A-Z](?:\.\d{1,3}){1,4})\.?[ \t]+\p{Lu}`)

// titleLine reports whether s starts with a line that reads as a section heading, so that
// a passage starts with its section even when the outline does not list it (outlines
// rarely go below the second level; plain text and Markdown have none): a numbered or
// Markdown heading, short, not ending like a sentence part.
func titleLine(s string) bool {
	line, _, found := strings.Cut(s, "\n")
	if !found && len(s) > maxTitleLine {
		return false
	}
	line = strings.TrimSpace(line)
	if line == "" || len(line) > maxTitleLine || strings.ContainsAny(line[len(line)-1:], ".,;:") {
		return false
	}
	if strings.HasPrefix(line, "#") {
		t := strings.TrimLeft(line, "#")
		return len(line)-len(t) <= 6 && strings.HasPrefix(t, " ")
	}
	return numberedTitle.MatchString(line)
}

// titleLines finds the lines of text that read as headings (titleLine), outside code
// blocks and tables, with their text as a section title.
func titleLines(text string, blocks []block) []heading {
	var out []heading
	b := 0
	for _, l := range splitLines(text) {
		for b < len(blocks) && blocks[b].e <= l.s {
			b++
		}
		if b < len(blocks) && blocks[b].s <= l.e && l.s < blocks[b].e {
			continue // a line of a code block or table
		}
		t := strings.TrimSpace(text[l.s:l.e])
		if t == "" || !(t[0] == '#' || t[0] >= '0' && t[0] <= '9' || t[0] >= 'A' && t[0] <= 'Z') {
			continue // cheap test before the pattern
		}
		p := skipSpace(text, l.s)
		if !titleLine(text[p:l.e]) {
			continue
		}
		out = append(out, heading{title: strings.TrimSpace(strings.TrimLeft(t, "#")), pos: p, exact: true})
	}
	return out
}

// treeByPage cuts each page of doc on its own (Document.PagePassages): no passage
// crosses a page break, and a short page is a passage however short, so that a
// thread's comment is one passage. The page's outline headings name its section.
func treeByPage(doc *ingest.Document, opts Options) []Parent {
	var out []Parent
	for _, pg := range doc.Pages {
		if pg.Text == "" {
			continue
		}
		one := &ingest.Document{Pages: []ingest.Page{{Number: 1, Text: pg.Text}}}
		for _, h := range doc.Outline {
			if h.Page == pg.Number {
				one.Outline = append(one.Outline, ingest.Heading{Title: h.Title, Page: 1, Level: h.Level})
			}
		}
		for _, p := range Tree(one, opts) {
			p.PageStart, p.PageEnd = pg.Number, pg.Number
			for i := range p.Children {
				p.Children[i].PageStart, p.Children[i].PageEnd = pg.Number, pg.Number
			}
			out = append(out, p)
		}
	}
	return out
}
