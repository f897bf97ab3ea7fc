package ingest

import (
	"bytes"
	"compress/zlib"
	"context"
	"fmt"
	"image"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium/requests"
)

// scanLines is the text of the generated scans: common words, each once
// per line, so that a box can be checked against the word it should hold.
var scanLines = []string{
	"The quiet river carries seven",
	"wooden boats toward the harbour",
	"while children gather shells",
	"Evening light paints every",
	"window of the old lighthouse",
}

// pageGeom is where a generated page lies: its media box, crop box and
// /Rotate (0, 90, 180 or 270).
type pageGeom struct {
	media, crop [4]float64
	rotate      int
}

// displayed returns the page's size as shown: the crop box, turned.
func (g pageGeom) displayed() (w, h float64) {
	w, h = g.crop[2]-g.crop[0], g.crop[3]-g.crop[1]
	if g.rotate%180 == 90 {
		w, h = h, w
	}
	return w, h
}

// toDisplay maps a point of user space to the page as shown (points from
// its top left), the way PDF viewers apply the crop box and /Rotate. It is
// written here independently of PDFium to check the boxes OCR gives.
func (g pageGeom) toDisplay(x, y float64) (float64, float64) {
	c := g.crop
	switch g.rotate {
	case 90:
		return y - c[1], x - c[0]
	case 180:
		return c[2] - x, y - c[1]
	case 270:
		return c[3] - y, c[2] - x
	}
	return x - c[0], c[3] - y
}

// userOf is the inverse of toDisplay.
func (g pageGeom) userOf(dx, dy float64) (float64, float64) {
	c := g.crop
	switch g.rotate {
	case 90:
		return c[0] + dy, c[1] + dx
	case 180:
		return c[2] - dx, c[1] + dy
	case 270:
		return c[2] - dy, c[3] - dx
	}
	return c[0] + dx, c[3] - dy
}

// textMatrix is the start of the text matrix that sets text upright as shown.
func (g pageGeom) textMatrix() string {
	return map[int]string{0: "1 0 0 1", 90: "0 1 -1 0", 180: "-1 0 0 -1", 270: "0 -1 1 0"}[g.rotate]
}

// writePDF writes a one-page PDF with the geometry g, the content stream
// content and, if img is not nil, the grey image img as /Im0.
func writePDF(g pageGeom, content string, img *image.Gray) []byte {
	var b bytes.Buffer
	var offs []int
	obj := func(body string, stream []byte) {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s", len(offs), body)
		if stream != nil {
			b.WriteString("\nstream\n")
			b.Write(stream)
			b.WriteString("\nendstream")
		}
		b.WriteString("\nendobj\n")
	}
	box := func(r [4]float64) string { return fmt.Sprintf("[%g %g %g %g]", r[0], r[1], r[2], r[3]) }
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>", nil)
	obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox %s /CropBox %s /Rotate %d /Resources << /Font << /F1 5 0 R >> /XObject << /Im0 6 0 R >> >> /Contents 4 0 R >>",
		box(g.media), box(g.crop), g.rotate), nil)
	obj(fmt.Sprintf("<< /Length %d >>", len(content)), []byte(content))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", nil)
	if img != nil {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		w, h := img.Bounds().Dx(), img.Bounds().Dy()
		for y := range h {
			zw.Write(img.Pix[y*img.Stride : y*img.Stride+w])
		}
		zw.Close()
		obj(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length %d >>", w, h, z.Len()), z.Bytes())
	} else {
		obj("<< /Type /XObject /Subtype /Form /BBox [0 0 1 1] /Length 0 >>", []byte{})
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	return b.Bytes()
}

// textPDF is a page of scanLines in 18-point Helvetica, upright as shown
// whatever the page's /Rotate.
func textPDF(g pageGeom) []byte {
	var c strings.Builder
	c.WriteString("BT /F1 18 Tf\n")
	for k, line := range scanLines {
		x, y := g.userOf(40, 70+float64(k)*34)
		fmt.Fprintf(&c, "%s %g %g Tm (%s) Tj\n", g.textMatrix(), x, y, line)
	}
	c.WriteString("ET\n")
	return writePDF(g, c.String(), nil)
}

// scanOf renders the page of data at 200 DPI and returns a PDF of the same
// geometry showing only that image, upright: a scan with no text layer.
func scanOf(t *testing.T, data []byte, g pageGeom) []byte {
	t.Helper()
	eng, err := sharedEngine()
	if err != nil {
		t.Fatal(err)
	}
	in, err := eng.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.release(in)
	d, err := openDoc(in, data, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: d.doc})
	r, err := in.RenderPageInDPI(&requests.RenderPageInDPI{
		Page:        requests.Page{ByIndex: &requests.PageByIndex{Document: d.doc, Index: 0}},
		DPI:         200,
		ImageFormat: requests.RenderImageFormatGrayscale,
	})
	if err != nil {
		t.Fatal(err)
	}
	src := r.Result.RenderedImage.(*image.Gray)
	img := image.NewGray(src.Bounds())
	copy(img.Pix, src.Pix)
	r.Cleanup()
	// The image's unit square onto the crop box as shown.
	wd, hd := g.displayed()
	c := g.crop
	cm := map[int]string{
		0:   fmt.Sprintf("%g 0 0 %g %g %g", wd, hd, c[0], c[1]),
		90:  fmt.Sprintf("0 %g %g 0 %g %g", wd, -hd, c[0]+hd, c[1]),
		180: fmt.Sprintf("%g 0 0 %g %g %g", -wd, -hd, c[2], c[1]+hd),
		270: fmt.Sprintf("0 %g %g 0 %g %g", -wd, hd, c[2]-hd, c[3]),
	}[g.rotate]
	return writePDF(g, "q "+cm+" cm /Im0 Do Q\n", img)
}

// verifies that the words OCR reads on generated scans (upright, cropped,
// turned by each /Rotate) get boxes in PDF user space that lie on those words
// in the text page the scan was made from, and offsets that cover the
// page's text exactly.
func TestOCRWordBoxes(t *testing.T) {
	needTesseract(t)
	for _, c := range []struct {
		name string
		g    pageGeom
	}{
		{"upright", pageGeom{media: [4]float64{0, 0, 400, 260}, crop: [4]float64{0, 0, 400, 260}}},
		{"cropped", pageGeom{media: [4]float64{0, 0, 520, 400}, crop: [4]float64{60, 90, 460, 350}}},
		{"rotated-cropped", pageGeom{media: [4]float64{0, 0, 330, 480}, crop: [4]float64{30, 50, 290, 450}, rotate: 90}},
		{"upside-down", pageGeom{media: [4]float64{0, 0, 420, 300}, crop: [4]float64{10, 20, 410, 280}, rotate: 180}},
		{"rotated-270", pageGeom{media: [4]float64{0, 0, 300, 440}, crop: [4]float64{0, 20, 260, 420}, rotate: 270}},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := textPDF(c.g)
			doc, err := FileWithOptions(context.Background(), writeFile(t, "scan.pdf", scanOf(t, text, c.g)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !equalInts(doc.OCRPages, []int{1}) || doc.Pages[0].OCR == nil {
				t.Fatalf("OCRPages %v, layout %v", doc.OCRPages, doc.Pages[0].OCR)
			}
			page := doc.Pages[0]
			lay := page.OCR
			if w, h := c.g.displayed(); math.Abs(lay.Width-w) > 0.5 || math.Abs(lay.Height-h) > 0.5 {
				t.Errorf("layout size %gx%g, want %gx%g", lay.Width, lay.Height, w, h)
			}
			checkOffsets(t, page.Text, lay.Words)

			truth := boundedTexts(t, text, lay.Words)
			right := 0
			runes := []rune(page.Text)
			for k, w := range lay.Words {
				if w.X0 < c.g.crop[0]-0.5 || w.X1 > c.g.crop[2]+0.5 || w.Y0 < c.g.crop[1]-0.5 || w.Y1 > c.g.crop[3]+0.5 {
					t.Errorf("word %q box %v outside the crop box %v", string(runes[w.Start:w.End]), w, c.g.crop)
				}
				if string(runes[w.Start:w.End]) == truth[k] {
					right++
				} else {
					t.Logf("OCR %q, text layer under its box %q", string(runes[w.Start:w.End]), truth[k])
				}
			}
			if want := len(strings.Fields(strings.Join(scanLines, " "))); len(lay.Words) < want || right < len(lay.Words)*9/10 {
				t.Errorf("%d of %d boxes lie on their word (want ≥ 90%% of ≥ %d)", right, len(lay.Words), want)
			}
			// The first word is where it was typeset: left margin 40 pt, first
			// baseline 70 pt down, as shown whatever the rotation.
			first := lay.Words[0]
			ax, ay := c.g.toDisplay(first.X0, first.Y0)
			bx, by := c.g.toDisplay(first.X1, first.Y1)
			left, bottom := min(ax, bx), max(ay, by)
			if math.Abs(left-40) > 3 || math.Abs(bottom-70) > 6 {
				t.Errorf("first word at (%.1f, %.1f) as shown, want about (40, 70)", left, bottom)
			}
		})
	}
}

// checkOffsets verifies that words are in order, each a non-empty run of
// text, and that only white space lies between them.
func checkOffsets(t *testing.T, text string, words []OCRWord) {
	t.Helper()
	runes := []rune(text)
	at := 0
	for _, w := range words {
		if w.Start < at || w.End <= w.Start || w.End > len(runes) {
			t.Fatalf("word [%d,%d) after %d in %d runes", w.Start, w.End, at, len(runes))
		}
		if gap := strings.TrimSpace(string(runes[at:w.Start])); gap != "" {
			t.Errorf("text %q before [%d,%d) is in no word", gap, w.Start, w.End)
		}
		if strings.ContainsAny(string(runes[w.Start:w.End]), " \n") {
			t.Errorf("word %q holds white space", string(runes[w.Start:w.End]))
		}
		at = w.End
	}
	if rest := strings.TrimSpace(string(runes[at:])); rest != "" {
		t.Errorf("text %q after the last word is in no word", rest)
	}
}

// boundedTexts returns, for each word, the text layer of the PDF data
// inside the word's box shrunk by a point (PDFium's own reading).
func boundedTexts(t *testing.T, data []byte, words []OCRWord) []string {
	t.Helper()
	eng, err := sharedEngine()
	if err != nil {
		t.Fatal(err)
	}
	in, err := eng.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer eng.release(in)
	d, err := openDoc(in, data, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: d.doc})
	tp, err := in.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByIndex: &requests.PageByIndex{Document: d.doc, Index: 0}}})
	if err != nil {
		t.Fatal(err)
	}
	defer in.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	out := make([]string, len(words))
	for k, w := range words {
		r, err := in.FPDFText_GetBoundedText(&requests.FPDFText_GetBoundedText{TextPage: tp.TextPage, Left: w.X0 + 1, Top: w.Y1 - 1, Right: w.X1 - 1, Bottom: w.Y0 + 1})
		if err != nil {
			t.Fatal(err)
		}
		out[k] = strings.TrimSpace(r.Text)
	}
	return out
}

// verifies that word offsets follow the normalised page text: a ligature
// spelled out, a soft hyphen dropped, noise lines skipped; and that boxes
// go through the pixel-to-page map.
func TestReadTSVOffsets(t *testing.T) {
	row := func(block, par, line, conf string, left, top int, text string) string {
		return strings.Join([]string{"5", "1", block, par, line, "1", fmt.Sprint(left), fmt.Sprint(top), "40", "10", conf, text}, "\t")
	}
	tsv := strings.Join([]string{
		row("1", "1", "1", "95", 10, 20, "The"), row("1", "1", "1", "93", 60, 20, "\uFB01nal"), row("1", "1", "1", "90", 110, 20, "co\u00ADde"),
		row("1", "1", "2", "12", 10, 40, "~<"), row("1", "1", "2", "20", 60, 40, "Fo"), // noise
		row("2", "1", "1", "92", 10, 80, "Ω-résumé"), row("2", "1", "1", "94", 60, 80, "here."),
	}, "\n")
	// 200 DPI, a page of 300 points shown upright: y up from the bottom.
	s := 72.0 / 200
	m := affine{A: s, D: -s, F: 300}
	text, lay := readTSV(tsv, &m, 200, 300)
	if want := "The final code\n\nΩ-résumé here."; text != want {
		t.Fatalf("text %q, want %q", text, want)
	}
	if text != normalizePDFText(fromTSV(tsv)) {
		t.Errorf("readTSV's text differs from fromTSV's")
	}
	if lay == nil || len(lay.Words) != 5 {
		t.Fatalf("layout %+v", lay)
	}
	runes := []rune(text)
	var got []string
	for _, w := range lay.Words {
		got = append(got, string(runes[w.Start:w.End]))
	}
	if want := "The|final|code|Ω-résumé|here."; strings.Join(got, "|") != want {
		t.Errorf("words by offset %q, want %q", strings.Join(got, "|"), want)
	}
	checkOffsets(t, text, lay.Words)
	if w := lay.Words[3]; math.Abs(w.X0-3.6) > 0.01 || math.Abs(w.X1-18) > 0.01 || math.Abs(w.Y1-(300-28.8)) > 0.01 || math.Abs(w.Y0-(300-32.4)) > 0.01 {
		t.Errorf("box of Ω-résumé %+v", w)
	}
	if !utf8.ValidString(text) {
		t.Error("invalid UTF-8")
	}
	if _, lay := readTSV(tsv, nil, 0, 0); lay != nil {
		t.Error("a layout without a pixel map")
	}
}

// FuzzReadTSV checks that any Tesseract output gives the same text as before boxes were
// kept, and word offsets that are in order, inside that text and on its words. Fuzz with
// `go test -fuzz FuzzReadTSV ./backend/ingest`.
func FuzzReadTSV(f *testing.F) {
	row := func(block, line, conf, text string, left int) string {
		return strings.Join([]string{"5", "1", block, "1", line, "1", fmt.Sprint(left), "10", "30", "12", conf, text}, "\t")
	}
	f.Add(strings.Join([]string{row("1", "1", "95", "The", 0), row("1", "1", "93", "\uFB01nal", 40), row("1", "2", "91", "co\u00ADde\u00A0x", 0), row("2", "1", "90", "ok.", 0)}, "\n"))
	f.Add(row("1", "1", "95", "a\tb", 0) + "\r\n" + row("1", "1", "95", "\x00\uFFFE", 5) + "\n5\t1\t1\t1\t1\t1\t-3\tx\t4\t4\t99\tword words")
	f.Add("")
	f.Fuzz(func(t *testing.T, tsv string) {
		m := affine{A: 0.36, D: -0.36, F: 800}
		text, lay := readTSV(tsv, &m, 612, 792)
		if text != normalizePDFText(fromTSV(tsv)) {
			t.Fatalf("text %q differs from fromTSV's %q", text, normalizePDFText(fromTSV(tsv)))
		}
		if lay == nil {
			return
		}
		runes := []rune(text)
		at := 0
		for _, w := range lay.Words {
			if w.Start < at || w.End <= w.Start || w.End > len(runes) {
				t.Fatalf("word [%d,%d) after %d in %d runes", w.Start, w.End, at, len(runes))
			}
			if strings.TrimSpace(string(runes[w.Start:w.End])) == "" || w.X0 > w.X1 || w.Y0 > w.Y1 {
				t.Fatalf("word [%d,%d) %q box %+v", w.Start, w.End, string(runes[w.Start:w.End]), w)
			}
			at = w.End
		}
	})
}

// BenchmarkReadTSV measures reading one real page of Tesseract output (the fullest page
// of the corpus's Walden.pdf, rendered at 300 DPI) into text, with and without
// word boxes: what keeping the boxes adds to OCR, next to Tesseract's seconds per page.
func BenchmarkReadTSV(b *testing.B) {
	if _, err := exec.LookPath("tesseract"); err != nil {
		b.Fatal("tesseract is not installed: run `go tool task setup:test` (apt install tesseract-ocr)")
	}
	eng, err := sharedEngine()
	if err != nil {
		b.Fatal(err)
	}
	src := corpusFile(b, "Walden.pdf")
	data, err := os.ReadFile(src)
	if err != nil {
		b.Fatal(err)
	}
	orig, err := FileWithOptions(context.Background(), src, noOCR)
	if err != nil {
		b.Fatal(err)
	}
	pageIdx := 0
	for i, p := range orig.Pages {
		if len(p.Text) > len(orig.Pages[pageIdx].Text) {
			pageIdx = i
		}
	}
	in, err := eng.acquire(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	d, err := openDoc(in, data, "")
	if err != nil {
		b.Fatal(err)
	}
	img, err := renderGray(in, d.doc, pageIdx, 300)
	in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: d.doc})
	eng.release(in)
	if err != nil {
		b.Fatal(err)
	}
	tsv, err := runTesseract(context.Background(), "tesseract", OCROptions{}.withDefaults(), img)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("text", func(b *testing.B) {
		for b.Loop() {
			readTSV(tsv, nil, 0, 0)
		}
	})
	b.Run("boxes", func(b *testing.B) {
		var words int
		for b.Loop() {
			_, lay := readTSV(tsv, img.toPage, img.width, img.height)
			words = len(lay.Words)
		}
		b.ReportMetric(float64(words), "words")
	})
}
