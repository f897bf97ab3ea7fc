package app

import (
	"fmt"
	"slices"

	"github.com/carrel-app/carrel/backend/library"
)

// PageWords is what the viewer needs to highlight on one page of a PDF that has no text
// layer there: whether the page was read by OCR, and where its words are.
type PageWords struct {
	// OCR is true when the page's text was read by OCR from a scanned image.
	OCR bool `json:"ocr"`
	// Width and Height are the page's displayed size in points (0 without words).
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
	// Words are the page's words in text order with their boxes in PDF user space;
	// empty when the page has none (a text page, or OCR'd before boxes were kept).
	Words []library.Word `json:"words"`
}

// PageWords returns the OCR word boxes of page (1-based) of a document.
func (a *App) PageWords(docID string, page int) (PageWords, error) {
	defer a.ws.Enter()()
	if page < 1 {
		return PageWords{}, fmt.Errorf("page %d: pages are numbered from 1", page)
	}
	d, err := a.eng().Library().Document(a.ctx(), docID)
	if err != nil {
		return PageWords{}, err
	}
	if page > d.Pages {
		return PageWords{}, fmt.Errorf("page %d is past the last page (%d) of %s", page, d.Pages, d.Title)
	}
	pw, err := a.eng().Library().PageWords(a.ctx(), docID, page)
	if err != nil {
		return PageWords{}, err
	}
	out := PageWords{OCR: len(pw.Words) > 0, Width: pw.Width, Height: pw.Height, Words: pw.Words}
	if out.Words == nil {
		out.Words = []library.Word{}
	}
	if !out.OCR {
		// Documents ingested before boxes were kept still know their OCR pages.
		if info, err := a.eng().Intake().DocumentInfo(docID); err == nil {
			out.OCR = slices.Contains(info.OCRPages, page)
		}
	}
	return out, nil
}
