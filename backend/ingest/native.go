package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/carrel-app/carrel/backend/ingest/pdftext"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// nativeResult is what our own extractor read of a document.
type nativeResult struct {
	texts    []string // normalised text per page; "" for fallback pages
	fallback []int    // 0-based pages to read with PDFium instead
	images   []bool   // per page: it paints an image or a form (maybe a scan)
}

// nativeText extracts every page's text with [pdftext] from pdfcpu's
// reading, and lists the pages it is not confident about (undecodable
// fonts, unreadable content) for PDFium. It returns nil when the page tree
// it walks disagrees with pdfcpu's page count: PDFium then reads it all.
func nativeText(ctx context.Context, mctx *model.Context, progress Progress) (res *nativeResult) {
	defer func() {
		if v := recover(); v != nil {
			// A panic in our own extractor is our bug: logged with its stack, though
			// the document is still read (by PDFium).
			slog.Warn("ingest: the text extractor panicked; PDFium reads the document", "panic", v, "stack", stack())
			res = nil
		}
	}()
	d, err := pdftext.Open(mctx)
	if err != nil || d.NumPages() != mctx.PageCount {
		return nil
	}
	n := d.NumPages()
	var mu sync.Mutex
	done := 0
	pages, err := d.Extract(ctx, 0, func() {
		if progress == nil {
			return
		}
		mu.Lock()
		done++
		progress(done, n)
		mu.Unlock()
	})
	if err != nil {
		return nil
	}
	res = &nativeResult{texts: make([]string, n), images: make([]bool, n)}
	for i, p := range pages {
		res.images[i] = p.Images
		if !p.Confident() {
			res.fallback = append(res.fallback, i)
			continue
		}
		res.texts[i] = normalizePDFText(p.Text)
	}
	return res
}

// respaceFallback rebuilds from positions the text of those pages read by
// PDFium whose words are spaced with character spacing (see respace.go).
func respaceFallback(ctx context.Context, mctx *model.Context, data []byte, password string, texts []string, fallback []int, st *structure) {
	spaced := tcSpacedPages(mctx, &st.warnings)
	if len(spaced) == 0 {
		return
	}
	in := map[int]bool{}
	for _, i := range fallback {
		in[i+1] = true
	}
	var pages []int
	for _, p := range spaced {
		if in[p] {
			pages = append(pages, p)
		}
	}
	if len(pages) == 0 {
		return
	}
	eng, done, err := useEngine()
	if err == nil {
		err = respace(ctx, eng, data, password, texts, pages)
		done()
	}
	if err != nil && ctx.Err() == nil {
		st.warnings = append(st.warnings, "Some pages' word spacing could not be repaired ("+shortError(err)+").")
	}
}

// noImage stands, in the page texts handed to [ocrScanned], for an empty
// page known to paint no image: OCR looks only at empty pages, and this
// spares starting PDFium to look at pages that cannot be scans.
const noImage = "\x00"

// ocrCandidates runs [ocrScanned] on the empty pages that may be scans.
func ocrCandidates(ctx context.Context, data []byte, password string, texts []string, mayHaveImage func(int) bool, o OCROptions) (*ocrResult, error) {
	view := make([]string, len(texts))
	var candidates []int
	for i, t := range texts {
		view[i] = t
		if t == "" {
			if mayHaveImage(i) {
				candidates = append(candidates, i)
			} else {
				view[i] = noImage
			}
		}
	}
	if len(candidates) == 0 {
		return &ocrResult{}, nil
	}
	if ow := o.withDefaults(); ow.Off || ow.tesseractPath() == "" {
		// Without Tesseract, PDFium would only confirm what the extractor
		// saw (these pages paint an image) for ocrScanned's warning.
		res := &ocrResult{scanned: len(candidates), missing: !ow.Off, off: ow.Off}
		what := "OCR is switched off (CARREL_OCR=off)"
		if !ow.Off {
			what = "install tesseract-ocr to read them"
		}
		res.warnings = append(res.warnings, fmt.Sprintf("%s are scanned and have no text: %s.", pageList(candidates), what))
		return res, nil
	}
	eng, done, err := useEngine()
	if err != nil {
		return nil, err
	}
	defer done()
	res, err := ocrScanned(ctx, eng, data, password, view, o)
	for i, t := range view {
		if t != noImage {
			texts[i] = t
		}
	}
	return res, err
}
