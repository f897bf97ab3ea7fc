// Package pdftext extracts the text of PDF pages from their content
// streams, on top of pdfcpu's object reader: it interprets the text
// operators, decodes fonts (ToUnicode CMaps, simple encodings with
// Differences, Type 1 built-in encodings, composite fonts) and lays the
// glyphs out into lines by their positions. Each page says how much of its
// text it could not decode, so that a caller can hand the pages it is not
// sure of to a full renderer.
package pdftext

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/filter"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Page is the text of one page and how far it can be trusted.
type Page struct {
	// Text is the page's lines in content order, words separated by
	// single spaces, lines by "\n", annotation text after a blank line;
	// a hyphen that ended a line is [LineEndHyphen] with no break after it.
	Text string
	// Glyphs counts the glyphs shown; Unknown those whose text the fonts
	// do not give (no ToUnicode and no usable encoding), and UnknownRuns
	// those of them shown next to another unknown one: a word rather than
	// a bullet or a symbol.
	Glyphs, Unknown, UnknownRuns int
	// Images: the page paints an image or a form XObject (a scan, often).
	Images bool
	// Vertical: the page uses a vertical writing mode, which the layout
	// does not handle.
	Vertical bool
	// Err says why the page's content could not be read, if it could not.
	Err error
}

// Confident reports whether the page's text is as good as a renderer's:
// its content was read and nearly every glyph decoded. Lone unknown glyphs
// (bullets, ornaments, math symbols of fonts without a Unicode map) carry
// no words and are tolerated up to a tenth of the glyphs; unknown runs, up
// to a fiftieth.
func (p Page) Confident() bool {
	return p.Err == nil && !p.Vertical && p.UnknownRuns*50 <= p.Glyphs && p.Unknown*10 <= p.Glyphs
}

// Doc is a document's page list with inherited resources resolved.
type Doc struct {
	x     *reader
	pages []pageRef
}

type pageRef struct {
	dict types.Dict
	res  types.Dict
}

// maxContent bounds a page's decoded content (all streams and forms).
const maxContent = 256 << 20

// Open lists the pages of a document pdfcpu has read. It only reads the
// context, so pages may be extracted from several goroutines.
func Open(ctx *model.Context) (*Doc, error) {
	d := &Doc{x: &reader{t: ctx.XRefTable}}
	root, err := ctx.Pages()
	if err != nil {
		return nil, fmt.Errorf("page tree: %w", err)
	}
	seen := map[int]bool{}
	var walk func(o types.Object, res types.Dict, depth int) error
	walk = func(o types.Object, res types.Dict, depth int) error {
		if ir, ok := o.(types.IndirectRef); ok {
			if seen[ir.ObjectNumber.Value()] {
				return errors.New("page tree: a cycle")
			}
			seen[ir.ObjectNumber.Value()] = true
		}
		node := d.x.dict(o)
		if node == nil || depth > 64 {
			return nil
		}
		if r := d.x.dict(node["Resources"]); r != nil {
			res = r
		}
		kids, ok := d.x.deref(node["Kids"]).(types.Array)
		if !ok || name(d.x.deref(node["Type"])) == "Page" {
			d.pages = append(d.pages, pageRef{dict: node, res: res})
			return nil
		}
		for _, k := range kids {
			if err := walk(k, res, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(*root, nil, 0); err != nil {
		return nil, err
	}
	return d, nil
}

// NumPages is the number of pages found in the page tree.
func (d *Doc) NumPages() int { return len(d.pages) }

// Extract reads every page, on up to workers goroutines (0: one per
// core), calling done after each page.
func (d *Doc) Extract(ctx context.Context, workers int, done func()) ([]Page, error) {
	out := make([]Page, len(d.pages))
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	workers = max(1, min(workers, len(d.pages)/8))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			c := newCache()
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(d.pages) {
					return
				}
				out[i] = d.page(i, c)
				if done != nil {
					done()
				}
			}
		})
	}
	wg.Wait()
	return out, ctx.Err()
}

// PageText reads page i (0-based).
func (d *Doc) PageText(i int) Page {
	return d.page(i, newCache())
}

func (d *Doc) page(i int, c *cache) (p Page) {
	defer func() {
		if v := recover(); v != nil {
			p = Page{Err: fmt.Errorf("reading the page's content failed: %v", v)}
		}
	}()
	ref := d.pages[i]
	content, err := d.x.contents(ref.dict["Contents"])
	p = d.interpret(ref, content, c)
	if err != nil {
		p.Err = err
	}
	return p
}

// interpret runs content as the content of page ref.
func (d *Doc) interpret(ref pageRef, content []byte, c *cache) (p Page) {
	in := &interp{x: d.x, cache: c, page: &p}
	in.gs.ctm = identity
	in.run(content, ref.res, 0)
	if in.budget < 0 {
		p.Err = errors.New("the page's content is too large")
	}
	for _, a := range d.annotations(ref.dict) {
		in.out.paragraph(a)
	}
	p.Text = string(in.out.buf)
	return p
}

// annotations returns the text that free-text comments and filled-in
// form fields show on the page, which is not part of its content.
func (d *Doc) annotations(page types.Dict) []string {
	arr, _ := d.x.deref(page["Annots"]).(types.Array)
	var out []string
	for _, o := range arr {
		a := d.x.dict(o)
		if a == nil {
			continue
		}
		key := ""
		switch name(d.x.deref(a["Subtype"])) {
		case "FreeText":
			key = "Contents"
		case "Widget":
			key = "V"
		}
		if key == "" {
			continue
		}
		if s, err := model.Text(d.x.deref(a[key])); err == nil {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	}
	return out
}

// reader dereferences objects for the goroutines extracting pages.
//
// An object in an object stream is parsed on first use, which writes it to
// pdfcpu's table, so the table is read under mu and written under its write
// lock. Parsing them all when the document is opened was a twentieth of the
// CPU of ingesting the pdfcpu corpus, mostly for objects text never reads
// (structure elements, annotations).
type reader struct {
	t  *model.XRefTable
	mu sync.RWMutex
}

func (r *reader) deref(o types.Object) types.Object {
	for range 8 {
		ir, ok := o.(types.IndirectRef)
		if !ok {
			return o
		}
		o = r.object(ir.ObjectNumber.Value())
	}
	return nil
}

// object returns the object numbered nr, parsing it if it is still in its
// object stream; nil if there is none or it cannot be parsed.
func (r *reader) object(nr int) types.Object {
	r.mu.RLock()
	e, ok := r.t.Table[nr]
	if !ok || e == nil || e.Free {
		r.mu.RUnlock()
		return nil
	}
	o := e.Object
	r.mu.RUnlock()
	if _, lazy := o.(types.LazyObjectStreamObject); !lazy {
		return o
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, lazy := e.Object.(types.LazyObjectStreamObject); lazy {
		if _, err := r.t.Dereference(*types.NewIndirectRef(nr, *e.Generation)); err != nil {
			e.Object = nil
		}
	}
	return e.Object
}

func (r *reader) dict(o types.Object) types.Dict {
	switch v := r.deref(o).(type) {
	case types.Dict:
		return v
	case types.StreamDict:
		return v.Dict
	}
	return nil
}

// stream decodes a stream object; nil when it is not one or cannot be
// decoded.
func (r *reader) stream(o types.Object) ([]byte, types.Dict) {
	sd, ok := r.deref(o).(types.StreamDict)
	if !ok {
		return nil, nil
	}
	b, err := decode(sd)
	if err != nil && b == nil {
		return nil, sd.Dict
	}
	return b, sd.Dict
}

func decode(sd types.StreamDict) ([]byte, error) {
	if sd.Content != nil {
		return sd.Content, nil
	}
	if len(sd.FilterPipeline) == 0 {
		return sd.Raw, nil
	}
	if f := sd.FilterPipeline[0]; len(sd.FilterPipeline) == 1 && f.Name == "FlateDecode" && f.DecodeParms == nil {
		if b, err := inflate(sd.Raw, maxContent); err == nil {
			return b, nil
		}
		// pdfcpu's decoder keeps what a damaged stream holds.
	}
	b, err := sd.DecodeLengthWithLimit(-1, maxContent)
	if err != nil {
		if filter.IsCorruptFlateInput(err) && len(b) > 0 {
			return b, nil // a damaged stream's readable start, as viewers show it
		}
		return nil, err
	}
	return b, nil
}

// contents joins a page's content streams.
func (r *reader) contents(o types.Object) ([]byte, error) {
	switch v := r.deref(o).(type) {
	case nil:
		return nil, nil
	case types.StreamDict:
		b, err := decode(v)
		if err != nil {
			return nil, fmt.Errorf("content stream: %w", err)
		}
		return b, nil
	case types.Array:
		var all []byte
		for _, s := range v {
			sd, ok := r.deref(s).(types.StreamDict)
			if !ok {
				continue
			}
			b, err := decode(sd)
			if err != nil {
				return all, fmt.Errorf("content stream: %w", err)
			}
			all = append(append(all, b...), '\n')
		}
		return all, nil
	}
	return nil, errors.New("content is not a stream")
}

type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// mul returns m × n.
func (m matrix) mul(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

type gstate struct {
	ctm                        matrix
	font                       *font
	size, tc, tw, th, tl, rise float64
}

type interp struct {
	x      *reader
	cache  *cache
	page   *Page
	out    layout
	gs     gstate
	stack  []gstate
	tm     matrix
	tlm    matrix
	budget int // bytes of content left, against form recursion bombs
	inited bool
}

func (in *interp) run(content []byte, res types.Dict, depth int) {
	if !in.inited {
		in.inited = true
		in.budget = maxContent
		in.gs.th = 1
	}
	in.budget -= len(content)
	if in.budget < 0 || depth > 12 {
		return
	}
	l := &lexer{b: content}
	var ops []operand
	for {
		o, ok := l.next(0)
		if !ok {
			return
		}
		if o.kind != kOp {
			if len(ops) < 64 {
				ops = append(ops, o)
			}
			continue
		}
		in.op(o.str, ops, res, depth, l)
		ops = ops[:0]
		l.reset()
	}
}

func nums(ops []operand, n int) ([]float64, bool) {
	if len(ops) < n {
		return nil, false
	}
	var v [6]float64
	for i, o := range ops[len(ops)-n:] {
		if o.kind != kNum {
			return nil, false
		}
		v[i] = o.num
	}
	return v[:n], true
}

// op runs one operator with its operands (one switch: most operators of a content
// stream, paths among them, are none of these and cost one comparison tree).
func (in *interp) op(op []byte, ops []operand, res types.Dict, depth int, l *lexer) {
	gs := &in.gs
	switch string(op) { // no allocation: the compiler compares the bytes
	case "BT":
		in.tm, in.tlm = identity, identity
	case "q":
		if len(in.stack) < 256 {
			in.stack = append(in.stack, *gs)
		}
	case "Q":
		if n := len(in.stack); n > 0 {
			*gs = in.stack[n-1]
			in.stack = in.stack[:n-1]
		}
	case "cm":
		if v, ok := nums(ops, 6); ok {
			gs.ctm = matrix(v).mul(gs.ctm)
		}
	case "Tf":
		if len(ops) >= 2 && ops[len(ops)-2].kind == kName && ops[len(ops)-1].kind == kNum {
			gs.size = ops[len(ops)-1].num
			gs.font = in.font(res, ops[len(ops)-2].str)
		}
	case "Tc", "Tw", "Tz", "TL", "Ts":
		in.textState(op, ops)
	case "Td":
		if v, ok := nums(ops, 2); ok {
			in.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(in.tlm)
			in.tm = in.tlm
		}
	case "TD":
		if v, ok := nums(ops, 2); ok {
			gs.tl = -v[1]
			in.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(in.tlm)
			in.tm = in.tlm
		}
	case "Tm":
		if v, ok := nums(ops, 6); ok {
			in.tm, in.tlm = matrix(v), matrix(v)
		}
	case "T*":
		in.nextLine()
	case "Tj":
		if len(ops) > 0 && ops[len(ops)-1].kind == kStr {
			in.show(ops[len(ops)-1].str)
		}
	case "'":
		in.nextLine()
		if len(ops) > 0 && ops[len(ops)-1].kind == kStr {
			in.show(ops[len(ops)-1].str)
		}
	case "\"":
		if len(ops) >= 3 && ops[len(ops)-1].kind == kStr {
			gs.tw, gs.tc = ops[len(ops)-3].num, ops[len(ops)-2].num
			in.nextLine()
			in.show(ops[len(ops)-1].str)
		}
	case "TJ":
		if len(ops) > 0 && ops[len(ops)-1].kind == kArr {
			in.showArray(ops[len(ops)-1].arr)
		}
	case "Do":
		if len(ops) > 0 && ops[len(ops)-1].kind == kName {
			in.xobject(res, string(ops[len(ops)-1].str), depth)
		}
	case "BI":
		in.page.Images = true
	case "ID":
		l.skipInlineImage()
	}
}

// textState sets a text state parameter of one number: Tc, Tw, Tz, TL or Ts.
func (in *interp) textState(op []byte, ops []operand) {
	v, ok := nums(ops, 1)
	if !ok {
		return
	}
	gs := &in.gs
	switch string(op) {
	case "Tc":
		gs.tc = v[0]
	case "Tw":
		gs.tw = v[0]
	case "Tz":
		gs.th = v[0] / 100
	case "TL":
		gs.tl = v[0]
	case "Ts":
		gs.rise = v[0]
	}
}

// showArray runs a TJ array: strings shown, numbers moving the next glyph back by
// thousandths of the font size.
func (in *interp) showArray(arr []operand) {
	gs := &in.gs
	for _, e := range arr {
		switch e.kind {
		case kStr:
			in.show(e.str)
		case kNum:
			in.tm = matrix{1, 0, 0, 1, -e.num / 1000 * gs.size * gs.th, 0}.mul(in.tm)
		}
	}
}

func (in *interp) nextLine() {
	in.tlm = matrix{1, 0, 0, 1, 0, -in.gs.tl}.mul(in.tlm)
	in.tm = in.tlm
}

func (in *interp) font(res types.Dict, n []byte) *font {
	fd := in.x.dict(res["Font"])
	if fd == nil {
		return nil
	}
	ref := fd[string(n)]
	key := ref
	if _, ok := ref.(types.IndirectRef); !ok {
		key = nil // a direct font dict: not cached
	}
	if key != nil {
		if f, ok := in.cache.fonts[key]; ok {
			return f
		}
	}
	d := in.x.dict(ref)
	if d == nil {
		return nil
	}
	f := loadFont(in.x, d)
	if key != nil {
		in.cache.fonts[key] = f
	}
	return f
}

func (in *interp) xobject(res types.Dict, n string, depth int) {
	xd := in.x.dict(res["XObject"])
	if xd == nil {
		return
	}
	ref := xd[n]
	sd, ok := in.x.deref(ref).(types.StreamDict)
	if !ok {
		return
	}
	switch name(in.x.deref(sd.Dict["Subtype"])) {
	case "Image":
		in.page.Images = true
	case "Form":
		in.page.Images = true
		content, err := in.cache.form(ref, sd)
		if err != nil {
			return
		}
		saved, savedStack := in.gs, len(in.stack)
		savedTm, savedTlm := in.tm, in.tlm
		if m, ok := in.x.deref(sd.Dict["Matrix"]).(types.Array); ok && len(m) == 6 {
			var v matrix
			for i := range v {
				v[i], _ = num(in.x.deref(m[i]))
			}
			in.gs.ctm = v.mul(in.gs.ctm)
		}
		fres := in.x.dict(sd.Dict["Resources"])
		if fres == nil {
			fres = res
		}
		in.run(content, fres, depth+1)
		in.gs, in.stack = saved, in.stack[:min(savedStack, len(in.stack))]
		in.tm, in.tlm = savedTm, savedTlm
	}
}

// show places the glyphs of one string.
func (in *interp) show(s []byte) {
	gs := &in.gs
	f := gs.font
	if f == nil {
		in.missingFont(s)
		return
	}
	if f.vertical {
		in.page.Vertical = true
	}
	// The text rendering matrix's linear part is the same for the whole
	// string; only the origin moves.
	m := matrix{gs.size * gs.th, 0, 0, gs.size, 0, gs.rise}.mul(in.tm).mul(gs.ctm)
	ax, ay := m[0], m[1]
	adv := math.Hypot(ax, ay) // page units per text space unit along the baseline
	size := math.Hypot(m[2], m[3])
	if adv == 0 || size == 0 {
		in.invisible(f, s)
		return
	}
	run := 0 // unknown glyphs in a row
	unknown := func() {
		in.page.Unknown++
		run++
		switch {
		case run == 2:
			in.page.UnknownRuns += 2
		case run > 2:
			in.page.UnknownRuns++
		}
	}
	cos, sin := ax/adv, ay/adv
	dir := direction(ax, ay)
	// Distances along the baseline, for the frame coordinates.
	hscale := adv / (gs.size * gs.th) // page units per text space unit, unscaled by size
	if gs.size*gs.th == 0 {
		hscale = 0
	}
	f.decode(s, func(g glyphInfo) {
		ox, oy := m[4], m[5]
		x := ox*cos + oy*sin
		y := -ox*sin + oy*cos
		w := g.width * adv
		if g.text == " " || g.text == "\u00a0" {
			in.out.add(placed{literal: true, blank: g.width == 0})
			run = 0
		} else {
			in.page.Glyphs++
			if !g.ok {
				unknown()
			} else {
				run = 0
				if g.text != "" {
					in.out.add(placed{text: g.text, x: x, y: y, end: x + w, size: size, dir: dir})
				}
			}
		}
		// Advance: tx = (w0·Tfs + Tc + Tw) · Th, in text space.
		tx := g.width*gs.size + gs.tc
		if g.space {
			tx += gs.tw
		}
		tx *= gs.th
		dx := tx * hscale
		m[4] += dx * cos
		m[5] += dx * sin
		in.tm[4] += tx * in.tm[0]
		in.tm[5] += tx * in.tm[1]
	})
}

// missingFont counts the glyphs of a string in a font that is missing: all unknown.
func (in *interp) missingFont(s []byte) {
	n := utf8.RuneCount(s)
	in.page.Glyphs += n
	in.page.Unknown += n
	if n > 1 {
		in.page.UnknownRuns += n
	}
}

// invisible counts the glyphs of a string drawn at zero size: none is placed.
func (in *interp) invisible(f *font, s []byte) {
	f.decode(s, func(g glyphInfo) {
		in.page.Glyphs++
		if !g.ok {
			in.page.Unknown++
		}
	})
}

// direction is the baseline's angle from (ax, ay), in whole degrees, -180 given as 180.
func direction(ax, ay float64) int32 {
	dir := int32(math.Round(math.Atan2(ay, ax) * 180 / math.Pi))
	if dir == -180 {
		dir = 180
	}
	return dir
}

// cache holds what one goroutine decoded for earlier pages of a document:
// fonts, and the content of form XObjects, which running heads, logos and
// imposed pages repeat on every page.
type cache struct {
	fonts     map[types.Object]*font
	forms     map[int][]byte
	formBytes int
}

// maxFormCache bounds the decoded forms kept per goroutine.
const maxFormCache = 64 << 20

func newCache() *cache {
	return &cache{fonts: map[types.Object]*font{}, forms: map[int][]byte{}}
}

func (c *cache) form(ref types.Object, sd types.StreamDict) ([]byte, error) {
	ir, ok := ref.(types.IndirectRef)
	if !ok {
		return decode(sd)
	}
	nr := ir.ObjectNumber.Value()
	if b, ok := c.forms[nr]; ok {
		return b, nil
	}
	b, err := decode(sd)
	if err == nil && c.formBytes+len(b) <= maxFormCache {
		c.forms[nr] = b
		c.formBytes += len(b)
	}
	return b, err
}
