package pdftext

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/internal/testpdf"
)

// buildPDF writes a one-page PDF whose page has the given content stream
// and resources, with extra objects numbered from 5 on. Streams given as
// "stream:<dict>\n<data>" become stream objects.
func buildPDF(content, resources string, extra ...string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources " + resources + " /Contents 4 0 R %ANNOTS% >>",
		stream("", content),
	}
	objs = append(objs, extra...)
	return testpdf.Assemble(objs)
}

func stream(dict, data string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// withAnnots puts an /Annots entry in the page of a buildPDF document.
func withAnnots(pdf []byte, annots string) []byte {
	s := strings.Replace(string(pdf), "%ANNOTS%", "/Annots "+annots, 1)
	// The objects after the page moved: assemble them again for a correct xref table.
	var objs []string
	for _, m := range objRE.FindAllStringSubmatch(s[:strings.Index(s, "xref\n")], -1) {
		objs = append(objs, m[1])
	}
	return testpdf.Assemble(objs)
}

// objRE matches an object of an assembled PDF (objects numbered 1, 2, … in order).
var objRE = regexp.MustCompile(`(?s)\d+ 0 obj\n(.*?)\nendobj\n`)

const helv = "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >> >> >>"

func onePage(t *testing.T, pdf []byte) Page {
	t.Helper()
	pdf = []byte(strings.Replace(string(pdf), "%ANNOTS%", "", 1))
	pages := extractAll(t, pdf)
	if len(pages) != 1 {
		t.Fatalf("got %d pages", len(pages))
	}
	return pages[0]
}

func TestGenerated(t *testing.T) {
	cmapIdentity := stream("", `/CIDInit /ProcSet findresource begin
12 dict begin begincmap
1 begincodespacerange <0000> <FFFF> endcodespacerange
2 beginbfchar <0003> <0020> <0011> <00660069> endbfchar
1 beginbfrange <0024> <0026> <0041> endbfrange
1 beginbfrange <0044> <0045> [<0064> <D835DC9C>] endbfrange
endcmap end end`)
	type0 := "<< /Font << /F1 << /Type /Font /Subtype /Type0 /BaseFont /ABCDEF+Some /Encoding /Identity-H /ToUnicode 6 0 R /DescendantFonts [5 0 R] >> >> >>"
	cid := "<< /Type /Font /Subtype /CIDFontType2 /BaseFont /ABCDEF+Some /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 500 /W [3 [250] 36 38 600] >>"

	type1prog := stream("/Length1 200 /Length2 0 /Length3 0", `%!PS-AdobeFont-1.0: Custom
/Encoding 256 array
0 1 255 {1 index exch /.notdef put} for
dup 65 /H put
dup 66 /i put
dup 67 /exclam put
readonly def
currentfile eexec
`)

	tests := []struct {
		name       string
		pdf        []byte
		want       string
		confident  bool
		unknownMin int
		images     bool
	}{
		{
			name:      "standard 14 font without widths, literal space",
			pdf:       buildPDF("BT /F1 12 Tf 72 700 Td (Hello World) Tj ET", helv),
			want:      "Hello World",
			confident: true,
		},
		{
			name:      "TJ: a wide kern is a word gap, a small one is not",
			pdf:       buildPDF("BT /F1 12 Tf 72 700 Td [(Hel) 20 (lo) -400 (W) 80 (orld)] TJ ET", helv),
			want:      "Hello World",
			confident: true,
		},
		{
			name:      "lines, and a hyphen ending a line",
			pdf:       buildPDF("BT /F1 12 Tf 14 TL 72 700 Td (first line of infor-) Tj T* (mation) Tj 0 -14 Td (third) Tj ET", helv),
			want:      "first line of infor\uFFFEmation\nthird",
			confident: true,
		},
		{
			name: "Differences with AGL names, uniXXXX and ligatures",
			pdf: buildPDF("BT /F1 12 Tf 72 700 Td <01020304050620> Tj ET",
				"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [1 /fi /quoteright /uni20AC /f_f /a.sc /Alpha] >> >> >> >>"),
			want:      "\uFB01\u2019\u20AC\uFB00a\u0391", // a trailing space is no word gap
			confident: true,
		},
		{
			name: "producer glyph names say nothing: not confident",
			pdf: buildPDF("BT /F1 12 Tf 72 700 Td <010203> Tj ET",
				"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /XYZ /FirstChar 1 /LastChar 3 /Widths [500 500 500] /Encoding << /Differences [1 /g12 /g13 /g14] >> >> >> >>"),
			want:       "",
			confident:  false,
			unknownMin: 3,
		},
		{
			name: "composite font: Identity-H with ToUnicode ranges and arrays, W widths",
			pdf: buildPDF("BT /F1 10 Tf 72 700 Td <0024002500260003001100440045> Tj ET", type0,
				cid, cmapIdentity),
			want:      "ABC fid\U0001D49C",
			confident: true,
		},
		{
			name:      "Type 1 built-in encoding read from the font program",
			pdf:       buildPDF("BT /F1 12 Tf 72 700 Td (ABC) Tj ET", "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Custom /FirstChar 65 /LastChar 67 /Widths [700 300 300] /FontDescriptor 5 0 R >> >> >>", "<< /Type /FontDescriptor /FontName /ABCDEF+Custom /Flags 4 /FontFile 6 0 R >>", type1prog),
			want:      "Hi!",
			confident: true,
		},
		{
			name: "a lone unknown bullet among words is tolerated",
			pdf: buildPDF("BT /F2 12 Tf 72 700 Td <01> Tj /F1 12 Tf 90 700 Td (a point worth making) Tj ET",
				"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >> /F2 << /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Bullets /FirstChar 1 /LastChar 1 /Widths [500] /Encoding << /Differences [1 /g7] >> >> >> >>"),
			want:       "a point worth making",
			confident:  true,
			unknownMin: 1,
		},
		{
			name:      "a space left out of a standard font's Widths is still a space",
			pdf:       buildPDF("BT /F1 24 Tf 100 100 Td (Hello World) Tj ET", "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica /FirstChar 72 /LastChar 114 /Widths [722 0 0 0 0 0 0 0 0 0 0 0 0 0 0 944 0 0 0 0 0 0 0 0 0 0 0 0 0 556 0 0 0 0 0 0 222 0 0 556 0 0 333] >> >> >>"),
			want:      "Hello World",
			confident: true,
		},
		{
			name:      "a literal space of no width in an unknown font is still a space",
			pdf:       buildPDF("BT /F1 24 Tf 100 100 Td (ab cd) Tj ET", "<< /Font << /F1 << /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+Custom /FirstChar 97 /LastChar 100 /Widths [500 500 500 500] /Encoding /WinAnsiEncoding >> >> >>"),
			want:      "ab cd",
			confident: true,
		},
		{
			name:      "a missing font: glyphs unknown",
			pdf:       buildPDF("BT /F9 12 Tf 72 700 Td (Hello) Tj ET", helv),
			confident: false,
		},
		{
			name:      "text drawn twice for bold appears once",
			pdf:       buildPDF("BT /F1 12 Tf 72 700 Td (Bold) Tj ET BT /F1 12 Tf 72.3 700 Td (Bold) Tj ET BT /F1 12 Tf 110 700 Td (text) Tj ET", helv),
			want:      "Bold text",
			confident: true,
		},
		{
			name:      "rotated text keeps its words",
			pdf:       buildPDF("BT /F1 12 Tf 0 1 -1 0 300 100 Tm (Up the side) Tj ET", helv),
			want:      "Up the side",
			confident: true,
		},
		{
			name:      "words spaced with Tc, literal spaces cancelled with Tw",
			pdf:       buildPDF("BT /F1 10 Tf 72 700 Td (Th) Tj 3 Tc (e) Tj -0.98 Tc -0.5 Tw (To o) Tj 0 Tc 0 Tw (l) Tj ET", helv),
			want:      "The Tool",
			confident: true,
		},
		{
			name: "form XObject text is read and counts as a possible scan",
			pdf: buildPDF("q 1 0 0 1 50 50 cm /X1 Do Q", "<< /XObject << /X1 5 0 R >> >>",
				stream("/Type /XObject /Subtype /Form /BBox [0 0 500 500] /Resources "+helv, "BT /F1 12 Tf 10 10 Td (inside a form) Tj ET")),
			want:      "inside a form",
			confident: true,
			images:    true,
		},
		{
			name:      "inline image data holding EI-like bytes is skipped",
			pdf:       buildPDF("q BI /W 2 /H 1 /BPC 8 /CS /G ID \x00EIx\xff EI Q BT /F1 12 Tf 72 700 Td (after) Tj ET", helv),
			want:      "after",
			confident: true,
			images:    true,
		},
		{
			name:      "string escapes and octal codes",
			pdf:       buildPDF(`BT /F1 12 Tf 72 700 Td (a\(b\)c \101\102 d\\e) Tj ET`, helv),
			want:      `a(b)c AB d\e`,
			confident: true,
		},
		{
			name:      "superscript on the same line",
			pdf:       buildPDF("BT /F1 12 Tf 72 700 Td (E = mc) Tj 4 Ts /F1 8 Tf (2) Tj 0 Ts /F1 12 Tf ( holds) Tj ET", helv),
			want:      "E = mc2 holds",
			confident: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := onePage(t, tc.pdf)
			if p.Err != nil {
				t.Fatalf("error: %v", p.Err)
			}
			if tc.want != "" && p.Text != tc.want {
				t.Errorf("text %q, want %q", p.Text, tc.want)
			}
			if p.Confident() != tc.confident {
				t.Errorf("confident %v (glyphs %d unknown %d), want %v", p.Confident(), p.Glyphs, p.Unknown, tc.confident)
			}
			if p.Unknown < tc.unknownMin {
				t.Errorf("unknown %d, want at least %d", p.Unknown, tc.unknownMin)
			}
			if p.Images != tc.images {
				t.Errorf("images %v, want %v", p.Images, tc.images)
			}
		})
	}
}

func TestAnnotations(t *testing.T) {
	pdf := buildPDF("BT /F1 12 Tf 72 700 Td (Body) Tj ET", helv,
		"<< /Type /Annot /Subtype /FreeText /Rect [0 0 100 100] /Contents (A comment) >>",
		"<< /Type /Annot /Subtype /Widget /FT /Tx /Rect [0 0 100 100] /T (name) /V (Ada Lovelace) >>",
		"<< /Type /Annot /Subtype /Text /Rect [0 0 10 10] /Contents (a sticky note is not shown) >>")
	pdf = withAnnots(pdf, "[5 0 R 6 0 R 7 0 R]")
	pages := extractAll(t, pdf)
	if want := "Body\n\nA comment\n\nAda Lovelace"; pages[0].Text != want {
		t.Errorf("text %q, want %q", pages[0].Text, want)
	}
}

// TestPagesAndInheritance checks the page tree walk: inherited resources,
// nested page nodes, order.
func TestPagesAndInheritance(t *testing.T) {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 3 /Resources " + helv + " >>",
		"<< /Type /Pages /Parent 2 0 R /Kids [5 0 R 6 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 7 0 R >>",
		"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] /Contents 8 0 R >>",
		"<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] /Contents [9 0 R 10 0 R] >>",
		stream("", "BT /F1 12 Tf 72 700 Td (three) Tj ET"),
		stream("", "BT /F1 12 Tf 72 700 Td (one) Tj ET"),
		stream("", "BT /F1 12 Tf 72 700 Td (tw"),
		stream("", "o) Tj ET"),
	}
	pages := extractAll(t, testpdf.Assemble(objs))
	var got []string
	for _, p := range pages {
		got = append(got, p.Text)
	}
	// Content streams of one page are joined with a line break, which
	// splits a token spread over two streams as viewers do.
	if want := []string{"one", "tw\no", "three"}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("pages %q, want %q", got, want)
	}
}

func TestExtractCancelled(t *testing.T) {
	d, err := Open(read(t, buildPDF("BT /F1 12 Tf 72 700 Td (x) Tj ET", helv)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Extract(ctx, 1, nil); err == nil {
		t.Error("a cancelled extraction returned no error")
	}
}

func TestParagraphBreak(t *testing.T) {
	p := onePage(t, buildPDF("BT /F1 12 Tf 72 700 Td (Title) Tj 0 -14 Td (next line) Tj 0 -100 Td (far below) Tj ET", helv))
	if want := "Title\nnext line\n\nfar below"; p.Text != want {
		t.Errorf("text %q, want %q", p.Text, want)
	}
}
