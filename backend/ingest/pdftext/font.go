package pdftext

import (
	"bytes"
	"strconv"
	"strings"

	pdffont "github.com/pdfcpu/pdfcpu/pkg/font"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// font is what the extractor needs of a PDF font: how to split a string
// into codes, each code's Unicode text and its advance width in text space
// units (1/1000 em for all but Type3).
type font struct {
	composite bool
	space     []codeRange // composite: code lengths
	toUni     *cmap       // the ToUnicode CMap, if any
	encCMap   *cmap       // composite: an embedded encoding CMap (code → CID)
	identity  bool        // composite: code = CID
	ucs2      bool        // composite: the code is UTF-16 (Uni…-UCS2/UTF16 CMaps)
	vertical  bool

	// Simple fonts: per code, the text (from ToUnicode or the encoding)
	// and the width.
	text  [256]string
	known [256]bool
	width [256]float64

	// Composite fonts: widths by CID.
	dw      float64
	cidW    map[uint32]float64
	cidWRng []cidWidth

	scale float64 // glyph space → text space: 1/1000, or Type3's FontMatrix
}

type cidWidth struct {
	lo, hi uint32
	w      float64
}

// glyphInfo is one decoded code.
type glyphInfo struct {
	text  string
	width float64 // text space units per unit of font size
	ok    bool    // the text is known
	space bool    // code 32 of a simple font or a one-byte code 32: word spacing applies
}

// decode calls fn for each code in s.
func (f *font) decode(s []byte, fn func(g glyphInfo)) {
	if !f.composite {
		for _, b := range s {
			fn(glyphInfo{text: f.text[b], width: f.width[b] * f.scale, ok: f.known[b], space: b == 32})
		}
		return
	}
	for i := 0; i < len(s); {
		n := 2
		if len(f.space) > 0 {
			if k := codeLen(f.space, s[i:]); k > 0 {
				n = k
			} else {
				n = f.space[0].n
			}
		}
		n = min(n, len(s)-i)
		code := codeOf(s[i : i+n])
		i += n
		g := glyphInfo{space: n == 1 && code == 32}
		cid := code
		switch {
		case f.encCMap != nil:
			cid = f.encCMap.cid(code)
		case !f.identity:
			cid = 0
		}
		g.width = f.cidWidth(cid) * f.scale
		if f.toUni != nil {
			g.text, g.ok = f.toUni.text(code)
		}
		if !g.ok && f.ucs2 {
			g.text, g.ok = utf16Text(s[i-n:i]), true
		}
		fn(g)
	}
}

func (f *font) cidWidth(cid uint32) float64 {
	if w, ok := f.cidW[cid]; ok {
		return w
	}
	for _, r := range f.cidWRng {
		if cid >= r.lo && cid <= r.hi {
			return r.w
		}
	}
	return f.dw
}

// objects is the part of pdfcpu's reader the fonts need.
type objects interface {
	deref(o types.Object) types.Object
	dict(o types.Object) types.Dict
	stream(o types.Object) ([]byte, types.Dict)
}

func num(o types.Object) (float64, bool) {
	switch v := o.(type) {
	case types.Integer:
		return float64(v), true
	case types.Float:
		return float64(v), true
	}
	return 0, false
}

func name(o types.Object) string {
	if n, ok := o.(types.Name); ok {
		return string(n)
	}
	return ""
}

// loadFont reads a font dictionary.
func loadFont(x objects, d types.Dict) *font {
	f := &font{scale: 0.001}
	subtype := name(x.deref(d["Subtype"]))
	if tu, _ := x.stream(d["ToUnicode"]); tu != nil {
		f.toUni = parseCMap(tu)
	}
	if subtype == "Type0" {
		loadComposite(x, d, f)
		return f
	}
	base := stripSubset(name(x.deref(d["BaseFont"])))
	desc := x.dict(d["FontDescriptor"])
	if subtype == "Type3" {
		if m, ok := x.deref(d["FontMatrix"]).(types.Array); ok && len(m) == 6 {
			if v, ok := num(x.deref(m[0])); ok && v != 0 {
				f.scale = v
			}
		}
	}
	w := f.ownWidths(x, d, desc)
	f.encode(x, d, desc, base, subtype)
	// The standard 14's metrics need the text of each code: after the encoding.
	if subtype != "Type3" {
		if len(w.widths) > 0 && w.missing == 0 {
			f.coreWidthsOutside(base, w)
		}
		if len(w.widths) == 0 {
			f.coreWidths(base)
		}
	}
	// ToUnicode wins over the encoding.
	if f.toUni != nil {
		for c := range 256 {
			if t, ok := f.toUni.text(uint32(c)); ok {
				f.text[c], f.known[c] = t, true
			}
		}
	}
	return f
}

// simpleWidths is what a simple font's dictionary says of its widths.
type simpleWidths struct {
	first   int         // FirstChar: the code of widths[0]
	widths  types.Array // Widths
	missing float64     // the descriptor's MissingWidth
}

// ownWidths sets the widths the font gives (MissingWidth for the codes it leaves out).
func (f *font) ownWidths(x objects, d, desc types.Dict) simpleWidths {
	var w simpleWidths
	if desc != nil {
		w.missing, _ = num(x.deref(desc["MissingWidth"]))
	}
	w.widths, _ = x.deref(d["Widths"]).(types.Array)
	if v, ok := num(x.deref(d["FirstChar"])); ok {
		w.first = int(v)
	}
	for i := range f.width {
		f.width[i] = w.missing
	}
	for i, wv := range w.widths {
		c := w.first + i
		if c < 0 || c > 255 {
			continue
		}
		if v, ok := num(x.deref(wv)); ok {
			f.width[c] = v
		}
	}
	return w
}

// encode sets each code's text from the encoding: a base (named, else the font's
// built-in one) and differences.
func (f *font) encode(x objects, d, desc types.Dict, base, subtype string) {
	var base256 *[256]rune
	var diffs types.Array
	switch e := x.deref(d["Encoding"]).(type) {
	case types.Name:
		base256 = namedEncoding(string(e))
	case types.Dict:
		base256 = namedEncoding(name(x.deref(e["BaseEncoding"])))
		diffs, _ = x.deref(e["Differences"]).(types.Array)
	}
	var names [256]string
	builtin := false
	if base256 == nil {
		base256, names, builtin = implicitEncoding(x, desc, base, subtype)
	}
	if base256 != nil {
		for c, r := range base256 {
			if r != 0 {
				f.text[c], f.known[c] = string(r), true
			}
		}
	}
	if builtin {
		for c, n := range names {
			if n != "" {
				if t := glyphText(n); t != "" {
					f.text[c], f.known[c] = t, true
				}
			}
		}
	}
	code := 0
	for _, o := range diffs {
		switch v := x.deref(o).(type) {
		case types.Integer:
			code = int(v)
		case types.Float:
			code = int(v)
		case types.Name:
			if code >= 0 && code < 256 {
				names[code] = string(v)
				t := glyphText(string(v))
				f.text[code], f.known[code] = t, t != ""
			}
			code++
		}
	}
}

// implicitEncoding is the base encoding of a font whose dictionary names none: the
// Symbol and ZapfDingbats fonts' own, a Type 1 font program's built-in encoding (its
// glyph names, builtin true), else the standard or WinAnsi encoding unless the font is
// symbolic.
func implicitEncoding(x objects, desc types.Dict, base, subtype string) (base256 *[256]rune, names [256]string, builtin bool) {
	flags := 0.0
	if desc != nil {
		flags, _ = num(x.deref(desc["Flags"]))
	}
	symbolic := int(flags)&4 != 0 && int(flags)&32 == 0
	switch {
	case strings.HasPrefix(base, "Symbol"):
		return &symbolEncoding, names, false
	case strings.HasPrefix(base, "ZapfDingbats"):
		return &zapfDingbatsEncoding, names, false
	case subtype == "Type1" || subtype == "MMType1":
		if desc != nil {
			if ff, sd := x.stream(desc["FontFile"]); ff != nil {
				n1, _ := num(x.deref(sd["Length1"]))
				names, builtin = type1Encoding(ff, int(n1))
			}
		}
		if !builtin && (!symbolic || isStandard14(base)) {
			return &standardEncoding, names, builtin
		}
	case subtype == "TrueType":
		if !symbolic {
			return &winAnsiEncoding, names, false
		}
	case subtype == "Type3":
	default:
		if !symbolic {
			return &standardEncoding, names, false
		}
	}
	return nil, names, builtin
}

// coreWidthsOutside gives the codes outside Widths, when there is no MissingWidth, a
// standard 14 font's own metrics (a space left out of Widths is still a space).
func (f *font) coreWidthsOutside(base string, w simpleWidths) {
	core := coreName(base)
	if core == "" {
		return
	}
	for c := range 256 {
		if c >= w.first && c < w.first+len(w.widths) {
			continue
		}
		wc := c
		if r := []rune(f.text[c]); core != "Symbol" && core != "ZapfDingbats" && len(r) == 1 {
			wc = winAnsiCode(r[0])
		}
		if cw, err := pdffont.CharWidth(core, rune(wc)); err == nil {
			f.width[c] = float64(cw)
		}
	}
}

// coreWidths sets every width of a font that gives none: a standard 14 font's metrics,
// else 500.
func (f *font) coreWidths(base string) {
	core := coreName(base)
	for c := range 256 {
		w := 0.0
		if core != "" {
			r := []rune(f.text[c])
			wc := 32
			if len(r) == 1 {
				wc = winAnsiCode(r[0])
			}
			if core == "Symbol" || core == "ZapfDingbats" {
				wc = c
			}
			if cw, err := pdffont.CharWidth(core, rune(wc)); err == nil {
				w = float64(cw)
			}
		}
		if w == 0 {
			w = 500
		}
		f.width[c] = w
	}
}

func loadComposite(x objects, d types.Dict, f *font) {
	f.composite = true
	switch e := x.deref(d["Encoding"]).(type) {
	case types.Name:
		n := string(e)
		switch {
		case n == "Identity-H" || n == "Identity-V":
			f.identity = true
		case strings.Contains(n, "UCS2") || strings.Contains(n, "UTF16"):
			f.ucs2 = true
		}
		f.vertical = strings.HasSuffix(n, "-V")
		f.space = []codeRange{{n: 2, lo: 0, hi: 0xFFFF}}
	case types.StreamDict:
		if data, sd := x.stream(d["Encoding"]); data != nil {
			f.encCMap = parseCMap(data)
			f.space = f.encCMap.space
			if wm, ok := num(x.deref(sd["WMode"])); ok && wm == 1 {
				f.vertical = true
			}
		}
	}
	if len(f.space) == 0 {
		f.space = []codeRange{{n: 2, lo: 0, hi: 0xFFFF}}
	}
	f.dw = 1000
	var desc types.Dict
	if arr, ok := x.deref(d["DescendantFonts"]).(types.Array); ok && len(arr) > 0 {
		desc = x.dict(arr[0])
	}
	if desc == nil {
		return
	}
	if v, ok := num(x.deref(desc["DW"])); ok {
		f.dw = v
	}
	w, _ := x.deref(desc["W"]).(types.Array)
	f.cidW = map[uint32]float64{}
	for i := 0; i < len(w); {
		c1, ok := num(x.deref(w[i]))
		if !ok || c1 < 0 || i+1 >= len(w) {
			break
		}
		switch v := x.deref(w[i+1]).(type) {
		case types.Array:
			for k, o := range v {
				if len(f.cidW) > maxCMapEntries {
					break
				}
				if wv, ok := num(x.deref(o)); ok {
					f.cidW[uint32(c1)+uint32(k)] = wv
				}
			}
			i += 2
		default:
			c2, ok1 := num(v)
			if i+2 >= len(w) || !ok1 {
				return
			}
			wv, _ := num(x.deref(w[i+2]))
			if c2 >= c1 {
				f.cidWRng = append(f.cidWRng, cidWidth{uint32(c1), uint32(c2), wv})
			}
			i += 3
		}
	}
}

func namedEncoding(n string) *[256]rune {
	switch n {
	case "WinAnsiEncoding":
		return &winAnsiEncoding
	case "MacRomanEncoding":
		return &macRomanEncoding
	case "StandardEncoding":
		return &standardEncoding
	case "PDFDocEncoding":
		return &pdfDocEncoding
	}
	return nil
}

// stripSubset drops a subset tag: "ABCDEF+Times-Roman" → "Times-Roman".
func stripSubset(n string) string {
	if len(n) > 7 && n[6] == '+' {
		return n[7:]
	}
	return n
}

func isStandard14(base string) bool { return coreName(base) != "" && !strings.ContainsAny(base, "+") }

// coreName maps a base font name to the standard 14 font whose metrics
// stand in for its missing widths, or "".
func coreName(base string) string {
	b := strings.ToLower(strings.NewReplacer(" ", "", ",", "-").Replace(base))
	bold := strings.Contains(b, "bold")
	italic := strings.Contains(b, "italic") || strings.Contains(b, "oblique")
	style := func(fam, boldS, italicS, both, plain string) string {
		switch {
		case bold && italic:
			return fam + both
		case bold:
			return fam + boldS
		case italic:
			return fam + italicS
		}
		return fam + plain
	}
	switch {
	case strings.HasPrefix(b, "courier"):
		return style("Courier", "-Bold", "-Oblique", "-BoldOblique", "")
	case strings.HasPrefix(b, "helvetica") || strings.HasPrefix(b, "arial"):
		return style("Helvetica", "-Bold", "-Oblique", "-BoldOblique", "")
	case strings.HasPrefix(b, "times"):
		return style("Times", "-Bold", "-Italic", "-BoldItalic", "-Roman")
	case strings.HasPrefix(b, "symbol"):
		return "Symbol"
	case strings.HasPrefix(b, "zapfdingbats"):
		return "ZapfDingbats"
	}
	return ""
}

var winAnsiRev = func() map[rune]int {
	m := map[rune]int{}
	for c, r := range winAnsiEncoding {
		if r != 0 {
			if _, ok := m[r]; !ok {
				m[r] = c
			}
		}
	}
	return m
}()

func winAnsiCode(r rune) int {
	if c, ok := winAnsiRev[r]; ok {
		return c
	}
	return 32
}

// type1Encoding reads the built-in encoding of a Type 1 font program from
// its clear-text part: "dup 65 /A put" lines. ok is false when the font
// uses StandardEncoding or the part cannot be read.
func type1Encoding(prog []byte, clear int) (names [256]string, ok bool) {
	if clear <= 0 || clear > len(prog) {
		clear = len(prog)
	}
	head := prog[:clear]
	if i := bytes.Index(head, []byte("eexec")); i >= 0 {
		head = head[:i]
	}
	i := bytes.Index(head, []byte("/Encoding"))
	if i < 0 {
		return names, false
	}
	head = head[i+len("/Encoding"):]
	if bytes.HasPrefix(bytes.TrimSpace(head), []byte("StandardEncoding")) {
		return names, false
	}
	if j := bytes.Index(head, []byte("readonly def")); j >= 0 {
		head = head[:j]
	} else if j := bytes.Index(head, []byte(" def")); j >= 0 {
		head = head[:j]
	}
	f := bytes.Fields(head)
	for k := 0; k+3 < len(f); k++ {
		if string(f[k]) != "dup" || string(f[k+3]) != "put" || len(f[k+2]) < 2 || f[k+2][0] != '/' {
			continue
		}
		c, err := strconv.Atoi(string(f[k+1]))
		if err != nil || c < 0 || c > 255 {
			continue
		}
		names[c] = string(f[k+2][1:])
		ok = true
	}
	return names, ok
}
