package pdftext

import (
	"testing"
	"unicode/utf8"
)

// FuzzContent runs arbitrary content streams against a page whose
// resources hold a simple font, a composite font with a ToUnicode CMap
// and a form XObject that draws itself (a recursion the budget stops).
func FuzzContent(f *testing.F) {
	pdf := buildPDF("", "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> /F2 << /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /ToUnicode 6 0 R /DescendantFonts [5 0 R] >> >> /XObject << /X1 7 0 R >> >>",
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 /W [1 [600 700] 10 20 300] >>",
		stream("", "begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0001> <0100> <0041> endbfrange endcmap"),
		stream("/Type /XObject /Subtype /Form /BBox [0 0 10 10] /Resources << /XObject << /X1 7 0 R >> >>", "/X1 Do"))
	pdf = withAnnots(pdf, "[]")
	d, err := Open(read(f, pdf))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		"BT /F1 12 Tf 72 700 Td (Hello World) Tj ET",
		"BT /F2 10 Tf 1 0 0 1 5 5 Tm <00010002000A> Tj [<0003> -300 <0004>] TJ T* (x) ' 1 2 (y) \" ET",
		"q 2 0 0 2 0 0 cm /X1 Do Q BI /W 1 ID xx EI BT /F1 -12 Tf 0 Tz (z) Tj ET",
		"BT /F1 12 Tf [(a) 1e400 (b)] TJ 0 0 0 0 0 0 Tm (c) Tj ET <<>> BDC (",
		"[[[[[[[ << << /F1 ( \\777 <0g>",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		p := d.interpret(d.pages[0], content, newCache())
		if !utf8.ValidString(p.Text) {
			t.Errorf("text is not UTF-8: %q", p.Text)
		}
		if p.UnknownRuns > p.Unknown || p.Unknown > p.Glyphs || p.Glyphs < 0 {
			t.Errorf("glyphs %d, unknown %d, in runs %d", p.Glyphs, p.Unknown, p.UnknownRuns)
		}
	})
}

// FuzzCMap parses arbitrary CMaps and decodes arbitrary strings with them.
func FuzzCMap(f *testing.F) {
	f.Add([]byte("1 begincodespacerange <00> <80> <8140> <FFFF> endcodespacerange 2 beginbfchar <01> <0041> <8141> /fi endbfchar 1 beginbfrange <10> <20> [<0061> <00620063>] endbfrange 1 begincidrange <8140> <817f> 633 endcidrange"), []byte("\x01\x81\x41\x15\x81\x50"))
	f.Add([]byte("beginbfrange <0000> <FFFF> <D800> endbfrange"), []byte("\x00\x01\xff\xff"))
	f.Fuzz(func(t *testing.T, data, s []byte) {
		m := parseCMap(data)
		fn := &font{composite: true, space: m.space, toUni: m, encCMap: m, dw: 1000, scale: 0.001}
		n := 0
		fn.decode(s, func(g glyphInfo) {
			n++
			if !utf8.ValidString(g.text) {
				t.Errorf("glyph text is not UTF-8: %q", g.text)
			}
		})
		if n > len(s) {
			t.Errorf("%d glyphs from %d bytes", n, len(s))
		}
	})
}
