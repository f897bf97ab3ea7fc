package ingest

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// OCRLayout is where the words OCR read on a scanned page are, so that the
// viewer, which has no text layer there, can draw a highlight over them.
type OCRLayout struct {
	// Width and Height are the page's size as displayed (its crop box,
	// turned by its /Rotate), in points.
	Width, Height float64
	// Words are the words of Page.Text in order.
	Words []OCRWord
}

// OCRWord is one word of a scanned page.
type OCRWord struct {
	// X0, Y0, X1, Y1 is the word's box in PDF user space: points, origin at
	// the bottom left of the media box, before the page's /Rotate (what
	// pdf.js's viewport.convertToViewportRectangle takes). X0 < X1, Y0 < Y1.
	X0, Y0, X1, Y1 float64
	// Start and End are rune (code point) offsets of the word in the
	// page's Text: [Start, End).
	Start, End int
}

// affine maps a point: x' = A*x + C*y + E, y' = B*x + D*y + F.
type affine struct{ A, B, C, D, E, F float64 }

func (m affine) apply(x, y float64) (float64, float64) {
	return m.A*x + m.C*y + m.E, m.B*x + m.D*y + m.F
}

// deviceToPage returns the map from the pixels of page i rendered w×h with
// no extra rotation (as RenderPageInDPI does) to PDF user space. PDFium
// applies the page's crop box and /Rotate when rendering, and its
// FPDF_DeviceToPage undoes exactly that; the map is affine, so three
// corners define it.
func deviceToPage(in pdfium.Pdfium, doc references.FPDF_DOCUMENT, i, w, h int) (affine, error) {
	page := requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}}
	at := func(x, y int) (float64, float64, error) {
		r, err := in.FPDF_DeviceToPage(&requests.FPDF_DeviceToPage{Page: page, SizeX: w, SizeY: h, DeviceX: x, DeviceY: y})
		if err != nil {
			return 0, 0, err
		}
		return r.PageX, r.PageY, nil
	}
	x0, y0, err := at(0, 0)
	if err != nil {
		return affine{}, err
	}
	xw, yw, err := at(w, 0)
	if err != nil {
		return affine{}, err
	}
	xh, yh, err := at(0, h)
	if err != nil {
		return affine{}, err
	}
	return affine{
		A: (xw - x0) / float64(w), B: (yw - y0) / float64(w),
		C: (xh - x0) / float64(h), D: (yh - y0) / float64(h),
		E: x0, F: y0,
	}, nil
}

// tsvWord is one word row of Tesseract's TSV output: its box in pixels of
// the page image (origin top left).
type tsvWord struct {
	text                     string
	conf                     float64
	left, top, width, height int
}

// tsvLine is the words of one line, keyed by block, paragraph and line.
type tsvLine struct {
	key   [3]string
	words []tsvWord
	conf  float64 // sum over words
}

// parseTSV reads the word rows of Tesseract's TSV output (level 5; one row
// per block, paragraph, line and word, each word with a confidence and a
// box) grouped into lines.
func parseTSV(tsv string) []tsvLine {
	var lines []tsvLine
	for row := range strings.SplitSeq(tsv, "\n") {
		f := strings.Split(strings.TrimRight(row, "\r"), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		text := strings.TrimSpace(f[11])
		if err != nil || conf < 0 || text == "" {
			continue
		}
		w := tsvWord{text: text, conf: conf}
		w.left, _ = strconv.Atoi(f[6])
		w.top, _ = strconv.Atoi(f[7])
		w.width, _ = strconv.Atoi(f[8])
		w.height, _ = strconv.Atoi(f[9])
		key := [3]string{f[2], f[3], f[4]}
		if len(lines) == 0 || lines[len(lines)-1].key != key {
			lines = append(lines, tsvLine{key: key})
		}
		l := &lines[len(lines)-1]
		l.words = append(l.words, w)
		l.conf += conf
	}
	return lines
}

// readTSV turns Tesseract's TSV output for a page image into the page's
// text (exactly what [fromTSV] and normalisation give) and, when toPage is
// not nil, the layout of its words in PDF user space. A word whose text
// cannot be found where expected in the normalised text is left out of the
// layout rather than given wrong offsets.
func readTSV(tsv string, toPage *affine, width, height float64) (string, *OCRLayout) {
	lines := keptLines(parseTSV(tsv))
	text := normalizePDFText(joinLines(lines))
	if text == "" || toPage == nil {
		return text, nil
	}
	lay := &OCRLayout{Width: width, Height: height}
	runes := []rune(text)
	at := 0 // rune position in text
	for _, l := range lines {
		for _, w := range l.words {
			want := []rune(normalizePDFText(w.text))
			if len(want) == 0 {
				continue
			}
			p := at
			for p < len(runes) && (runes[p] == ' ' || runes[p] == '\n') {
				p++
			}
			if !hasRunes(runes[p:], want) {
				continue
			}
			at = p + len(want)
			// The two opposite pixel corners; the box is their hull, which
			// holds for any rotation by a multiple of 90°.
			ax, ay := toPage.apply(float64(w.left), float64(w.top))
			bx, by := toPage.apply(float64(w.left+w.width), float64(w.top+w.height))
			lay.Words = append(lay.Words, OCRWord{
				X0: round2(min(ax, bx)), Y0: round2(min(ay, by)),
				X1: round2(max(ax, bx)), Y1: round2(max(ay, by)),
				Start: p, End: at,
			})
		}
	}
	if len(lay.Words) == 0 {
		return text, nil
	}
	return text, lay
}

func hasRunes(s, prefix []rune) bool {
	if len(prefix) > len(s) {
		return false
	}
	for i, r := range prefix {
		if s[i] != r {
			return false
		}
	}
	return true
}

// round2 keeps a coordinate to a hundredth of a point, far below a pixel
// at any zoom, so stored boxes stay small.
func round2(v float64) float64 {
	if v < 0 {
		return -float64(int(-v*100+0.5)) / 100
	}
	return float64(int(v*100+0.5)) / 100
}

// keptLines drops the lines that are noise (low mean confidence, or fewer
// than two letters or digits), and all of them when the page has fewer than
// a few confident words: recognising a photo gives scraps.
func keptLines(lines []tsvLine) []tsvLine {
	var kept []tsvLine
	confident := 0
	for _, l := range lines {
		var all strings.Builder
		for _, w := range l.words {
			all.WriteString(w.text)
		}
		if l.conf/float64(len(l.words)) < minLineConfidence || alnum(all.String()) < 2 {
			continue
		}
		kept = append(kept, l)
		for _, w := range l.words {
			if w.conf >= minWordConfidence && letters(w.text) >= 2 {
				confident++
			}
		}
	}
	if confident < minPageWords {
		return nil
	}
	return kept
}

// joinLines writes lines as a page's text: words joined by spaces, lines
// by "\n", paragraphs (a new block or paragraph) by "\n\n".
func joinLines(lines []tsvLine) string {
	var b strings.Builder
	var prev [3]string
	for k, l := range lines {
		if k > 0 {
			if l.key[0] != prev[0] || l.key[1] != prev[1] {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
		}
		prev = l.key
		for j, w := range l.words {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(w.text)
		}
	}
	return b.String()
}

// attachOCRLayouts gives the OCR'd pages their word layouts, once their
// text is final: a page whose text changed after OCR (it should not) gets
// none, since its offsets would point at the wrong words.
func attachOCRLayouts(pages []Page, res *ocrResult) {
	if res == nil {
		return
	}
	for i, l := range res.layouts {
		if i < len(pages) && l.lay != nil && pages[i].Text == l.text && utf8.ValidString(l.text) {
			pages[i].OCR = l.lay
		}
	}
}

// pageLayout is a page's OCR text and the layout whose offsets point into it.
type pageLayout struct {
	text string
	lay  *OCRLayout
}
