package ingest

import (
	"bytes"
	"context"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// Some PDFs draw the gaps between words with character spacing (the Tc
// operator, set to about a space's width before the last letter of a word
// and back to 0 after it) and cancel their literal spaces with negative
// word spacing (Tw). PDFium's space detection does not expect this: it
// glues words ("Thefunction") and splits others ("firs t"). Such pages
// are found from their content streams, and their text is rebuilt from
// the positions of the characters instead ([geometricText]).

// tcSpacedPages returns the 1-based numbers of the pages whose content
// spaces words with character spacing, or all pages when a quarter of
// them do. It samples a few pages first and scans them all only when a
// sample shows the pattern.
func tcSpacedPages(ctx *model.Context, warn *[]string) (pages []int) {
	defer func() {
		if v := recover(); v != nil {
			pages = nil
			*warn = append(*warn, recovered("character-spacing probe", v))
		}
	}()
	n := ctx.PageCount
	if n == 0 {
		return nil
	}
	sample := map[int]bool{}
	for _, f := range []float64{0.1, 0.35, 0.6, 0.85} {
		sample[1+int(f*float64(n-1))] = true
	}
	found := false
	for p := range sample {
		if tcSpacedPage(ctx, p) {
			found = true
			break
		}
	}
	if !found {
		return nil
	}
	for p := 1; p <= n; p++ {
		if tcSpacedPage(ctx, p) {
			pages = append(pages, p)
		}
	}
	// A producer that spaces words this way does it everywhere, also on
	// pages (contents, index) with too few words to show the pattern.
	if len(pages)*4 >= n {
		pages = pages[:0]
		for p := 1; p <= n; p++ {
			pages = append(pages, p)
		}
	}
	return pages
}

func tcSpacedPage(ctx *model.Context, page int) bool {
	d, _, _, err := ctx.PageDict(page, false)
	if err != nil || d == nil {
		return false
	}
	content, err := ctx.PageContent(d, page)
	if err != nil {
		return false
	}
	return tcSpacedContent(content)
}

// tcSpacedContent reports whether a content stream sets character spacing
// to a sizeable part of the font size (0.15 em or more) at least 10
// times and at least once per 8 text-showing operators. Running text
// spaced with Tc does this about once per word; a heading in letter-spaced
// capitals does it once. Operands and operators are
// told apart by a plain split on white space, which strings containing
// spaces can fool only a little.
func tcSpacedContent(content []byte) bool {
	var size, last float64
	shows, wide := 0, 0
	for _, f := range bytes.Fields(content) {
		switch {
		case string(f) == "Tf":
			size = math.Abs(last)
		case string(f) == "Tc":
			if size > 0 && last >= 0.15*size {
				wide++
			}
		case bytes.HasSuffix(f, []byte("Tj")) || bytes.HasSuffix(f, []byte("TJ")) ||
			string(f) == "'" || string(f) == `"`:
			shows++ // often glued to its operand: "(word)Tj"
		default:
			if v, err := strconv.ParseFloat(string(f), 64); err == nil {
				last = v
			}
			continue
		}
		last = 0
	}
	return wide >= 10 && wide*8 >= shows
}

// respace replaces the text of the given pages (1-based) with the text
// rebuilt from character positions.
func respace(ctx context.Context, eng *engine, data []byte, password string, texts []string, pages []int) error {
	in, err := eng.acquire(ctx)
	if err != nil {
		return err
	}
	healthy := false
	defer func() {
		if healthy {
			eng.release(in)
		} else {
			eng.discard(in)
		}
	}()
	d, err := openDoc(in, data, password)
	if err != nil {
		return err
	}
	for _, p := range pages {
		if ctx.Err() != nil || p > len(texts) || p > d.count {
			break
		}
		if t, err := geometricPageText(in, d.doc, p-1); err == nil {
			texts[p-1] = t
		} else {
			return err // keep PDFium's own text for the rest
		}
	}
	if _, err := in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: d.doc}); err != nil {
		return err
	}
	healthy = true
	return ctx.Err()
}

// geometricPageText is [pageText] with the text rebuilt from positions.
func geometricPageText(in pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (s string, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError("PDFium", v)
		}
	}()
	return readPage(in, doc, i, func(tp references.FPDF_TEXTPAGE, count int) (string, error) {
		return geometricText(in, tp, count)
	})
}

// glyph is one character of a text page as placed on the page.
type glyph struct {
	left, right, bottom, top float64
	size                     float64
}

// geometricText rebuilds the text of a text page from the advance-based
// boxes of its characters. Literal and generated spaces are ignored; a
// space goes wherever two neighbouring characters are more than 0.12 em
// apart, and a line break where PDFium broke the line or the baseline
// jumps. It costs several calls per character (about 1.3 times PDFium's
// own extraction) and splits kerned display type ("Err ata"), so it is
// kept for pages where PDFium's spacing is known to fail.
func geometricText(in pdfium.Pdfium, tp references.FPDF_TEXTPAGE, count int) (string, error) {
	var b strings.Builder
	var prev glyph
	havePrev, newline, hyphen := false, false, false
	for i := range count {
		u, err := in.FPDFText_GetUnicode(&requests.FPDFText_GetUnicode{TextPage: tp, Index: i})
		if err != nil {
			return "", err
		}
		r := rune(u.Unicode)
		g, err := in.FPDFText_IsGenerated(&requests.FPDFText_IsGenerated{TextPage: tp, Index: i})
		if err != nil {
			return "", err
		}
		switch {
		case r == 2 || r == lineEndHyphen: // PDFium's mark for a hyphen ending a line
			hyphen = true
			continue
		case g.IsGenerated:
			if r == '\n' || r == '\r' {
				newline = true
			}
			continue
		case r == 0 || unicode.IsSpace(r):
			continue
		}
		box, err := in.FPDFText_GetLooseCharBox(&requests.FPDFText_GetLooseCharBox{TextPage: tp, Index: i})
		if err != nil {
			return "", err
		}
		fs, err := in.FPDFText_GetFontSize(&requests.FPDFText_GetFontSize{TextPage: tp, Index: i})
		if err != nil {
			return "", err
		}
		c := glyph{left: float64(box.Rect.Left), right: float64(box.Rect.Right),
			bottom: float64(box.Rect.Bottom), top: float64(box.Rect.Top), size: math.Abs(fs.FontSize)}
		if c.size == 0 { // a degenerate text matrix
			c.size = c.top - c.bottom
		}
		if havePrev {
			h := max(prev.top-prev.bottom, c.top-c.bottom)
			dy := (c.top+c.bottom)/2 - (prev.top+prev.bottom)/2
			jump := dy < -h/2 || dy > h/2
			em := max(c.size, prev.size)
			switch {
			case hyphen && (newline || jump):
				b.WriteRune(lineEndHyphen) // the word goes on after the mark
			case hyphen:
				b.WriteByte('-')
			case newline || jump:
				b.WriteByte('\n')
			case c.left-prev.right > 0.12*em || c.left < prev.left-0.5*em:
				b.WriteByte(' ')
			}
		}
		newline, hyphen = false, false
		b.WriteRune(r)
		prev, havePrev = c, true
	}
	return b.String(), nil
}
