package app

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/pdfcpu/pdfcpu/pkg/api"
)

// verifies PageWords over a real scanned page ingested with Tesseract: the page is
// flagged OCR, each word's text is the page text at its offsets, its box lies on the
// page (the title near the top), text-less calls get clear errors, and the words go
// with the document.
func TestPageWords(t *testing.T) {
	// Page 1 of a scanned song sheet, alone: one page to OCR.
	scan := filepath.Join(t.TempDir(), "wonderwall-1.pdf")
	if err := api.TrimFile(testcorpus.File(t, "Wonderwall.pdf"), scan, []string{"1"}, nil); err != nil {
		t.Fatal(err)
	}
	eng := testengine.Open(t, engine.Config{})
	a := New(eng, &recorder{})
	a.start(context.Background())
	defer a.stop()

	res, err := eng.Intake().IngestFile(a.ctx(), scan, nil)
	if err != nil || res.Status != engine.Inserted || len(res.OCRPages) != 1 {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	pw, err := a.PageWords(res.DocID, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !pw.OCR || len(pw.Words) < 20 || pw.Width < 100 || pw.Height < 100 {
		t.Fatalf("PageWords = ocr %v, %d words, %gx%g", pw.OCR, len(pw.Words), pw.Width, pw.Height)
	}
	text, err := eng.Library().PageText(a.ctx(), res.DocID, 1)
	if err != nil {
		t.Fatal(err)
	}
	runes := []rune(text)
	var title bool
	for _, w := range pw.Words {
		if w.Text == "" || w.Text != string(runes[w.Start:w.End]) {
			t.Fatalf("word %q at [%d,%d) is %q in the page text", w.Text, w.Start, w.End, string(runes[w.Start:w.End]))
		}
		if w.X0 < -1 || w.Y0 < -1 || w.X1 > pw.Width+1 || w.Y1 > pw.Height+1 || w.X0 >= w.X1 || w.Y0 >= w.Y1 {
			t.Errorf("word %q box (%g %g %g %g) is not on the %gx%g page", w.Text, w.X0, w.Y0, w.X1, w.Y1, pw.Width, pw.Height)
		}
		if strings.Contains(w.Text, "Wonderwall") {
			title = true
			if w.Y0 < pw.Height/2 {
				t.Errorf("the title is in the lower half of the page: y0 = %g of %g", w.Y0, pw.Height)
			}
		}
	}
	if !title {
		t.Errorf("no word reads Wonderwall in %.200q", text)
	}
	b, _ := json.Marshal(pw)
	for _, field := range []string{`"ocr":true`, `"width":`, `"words":[{"text":`, `"x0":`, `"y1":`, `"start":`, `"end":`} {
		if !strings.Contains(string(b), field) {
			t.Errorf("JSON lacks %s: %.200s", field, b)
		}
	}

	for _, c := range []struct {
		doc  string
		page int
		want string
	}{
		{res.DocID, 0, "numbered from 1"},
		{res.DocID, 2, "past the last page (1)"},
		{"nope", 1, "not found"},
	} {
		if _, err := a.PageWords(c.doc, c.page); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PageWords(%s, %d) = %v, want %q", c.doc, c.page, err, c.want)
		}
	}
	if err := a.RemoveDocument(res.DocID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.PageWords(res.DocID, 1); err == nil {
		t.Error("words of a removed document")
	}
}
