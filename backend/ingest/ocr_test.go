package ingest

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium/requests"
	"github.com/pdfcpu/pdfcpu/pkg/api"
)

// noOCR reads PDFs without OCR: the corpus tests compare text layers with
// pdftotext, and the benchmark compares with extractors that do not OCR.
var noOCR = Options{OCR: OCROptions{Off: true}}

// needTesseract skips a test when Tesseract is not installed (task test
// installs tesseract-ocr).
func needTesseract(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Fatal("tesseract is not installed: run `go tool task setup:test` (apt install tesseract-ocr)")
	}
}

// missingTesseract is a Tesseract that is not there.
var missingTesseract = OCROptions{Tesseract: "/nonexistent/tesseract"}

// verifies that the corpus's scans are read by OCR and flagged page by page.
func TestOCRCorpusScans(t *testing.T) {
	needTesseract(t)
	doc, err := FileWithOptions(context.Background(), corpusFile(t, "Wonderwall.pdf"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.OCRPages) < 4 || doc.OCRPages[0] != 1 {
		t.Errorf("OCRPages = %v, want most of the 6 pages from page 1", doc.OCRPages)
	}
	first := doc.Pages[0].Text
	for _, w := range []string{"Wonderwall", "Noel Gallagher", "Copyright 1995"} {
		if !strings.Contains(first, w) {
			t.Errorf("page 1 lacks %q:\n%s", w, first)
		}
	}

	// The page cap: only the first 3 of 18 pages, and a warning says so.
	doc, err = FileWithOptions(context.Background(), corpusFile(t, "HL1396.pdf"), Options{OCR: OCROptions{MaxPages: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 2, 3}; !equalInts(doc.OCRPages, want) {
		t.Errorf("OCRPages = %v, want %v", doc.OCRPages, want)
	}
	if !strings.Contains(doc.Pages[0].Text, "discrete infinity") || doc.Pages[3].Text != "" {
		t.Errorf("page 1 %.200q, page 4 %.100q", doc.Pages[0].Text, doc.Pages[3].Text)
	}
	if !containsAny(doc.Warnings, "first 3 of 18 scanned pages") {
		t.Errorf("no cap warning in %q", doc.Warnings)
	}

	// A photo gives no text, not scraps.
	_, err = FileWithOptions(context.Background(), corpusFile(t, "mountain.pdf"), Options{})
	if !errors.Is(err, ErrNoText) || !strings.Contains(err.Error(), "OCR found no text") {
		t.Errorf("mountain.pdf: %v", err)
	}
}

// verifies OCR on a PDF made here: a text page rendered to an image and
// put into a new PDF reads back close to the original text, and in a PDF
// mixing text pages and the scan only the scan is OCR'd.
func TestOCRGeneratedScan(t *testing.T) {
	needTesseract(t)
	src := corpusFile(t, "Walden.pdf")
	orig, err := FileWithOptions(context.Background(), src, noOCR)
	if err != nil {
		t.Fatal(err)
	}
	pageIdx := 0
	for i, p := range orig.Pages {
		if len(p.Text) > len(orig.Pages[pageIdx].Text) {
			pageIdx = i
		}
	}
	scan := scannedPDF(t, src, pageIdx, nil)
	doc, err := FileWithOptions(context.Background(), scan, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !equalInts(doc.OCRPages, []int{1}) {
		t.Fatalf("OCRPages = %v", doc.OCRPages)
	}
	if f1 := tokenF1(tokens(doc.Pages[0].Text), tokens(orig.Pages[pageIdx].Text)); f1 < 0.9 {
		t.Errorf("token F1 against the text layer = %.3f, want ≥ 0.9\nOCR:\n%s", f1, doc.Pages[0].Text)
	}
	if doc.Pages[0].OCR == nil || len(doc.Pages[0].OCR.Words) < 100 {
		t.Fatalf("the scan has no word layout: %+v", doc.Pages[0].OCR)
	}
	checkOffsets(t, doc.Pages[0].Text, doc.Pages[0].OCR.Words)

	// The scan appended to the original: its pages keep their text layer.
	base, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	mixed := scannedPDF(t, src, pageIdx, base)
	doc, err = FileWithOptions(context.Background(), mixed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(orig.Pages)
	if len(doc.Pages) != n+1 || !equalInts(doc.OCRPages, []int{n + 1}) {
		t.Fatalf("%d pages, OCRPages %v; want %d, [%d]", len(doc.Pages), doc.OCRPages, n+1, n+1)
	}
	if doc.Pages[0].Text != orig.Pages[0].Text || doc.Pages[n].Text == "" {
		t.Errorf("text pages changed or the scan is empty")
	}

	// Without Tesseract: the text pages are ingested, the scan is named.
	doc, err = FileWithOptions(context.Background(), mixed, Options{OCR: missingTesseract})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.OCRPages) != 0 || doc.Pages[n].Text != "" || doc.Pages[0].Text != orig.Pages[0].Text {
		t.Errorf("without Tesseract: OCRPages %v, scan text %.50q", doc.OCRPages, doc.Pages[n].Text)
	}
	if !containsAny(doc.Warnings, "install tesseract-ocr") {
		t.Errorf("no 'install tesseract-ocr' warning in %q", doc.Warnings)
	}
	_, err = FileWithOptions(context.Background(), scan, Options{OCR: missingTesseract})
	if !errors.Is(err, ErrNoText) || !errors.Is(err, ErrOCRMissing) || !strings.Contains(err.Error(), "scanned pages need OCR: install tesseract-ocr") {
		t.Errorf("scan without Tesseract: %v", err)
	}
}

// verifies that OCR stops when the context is cancelled, and that a page
// over the timeout is skipped with a warning.
func TestOCRCancelAndTimeout(t *testing.T) {
	needTesseract(t)
	path := corpusFile(t, "HL1396.pdf")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	start := time.Now()
	_, err := FileWithOptions(ctx, path, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if el := time.Since(start); el > 8*time.Second {
		t.Errorf("cancel took %v", el)
	}

	doc, err := FileWithOptions(context.Background(), path, Options{OCR: OCROptions{MaxPages: 2, PageTimeout: time.Millisecond}})
	if !errors.Is(err, ErrNoText) || doc == nil {
		t.Fatalf("got %v, want ErrNoText with the document", err)
	}
	if !containsAny(doc.Warnings, "OCR could not read page 1 (took over 1ms)") {
		t.Errorf("no timeout warning in %q", doc.Warnings)
	}
}

func TestFromTSV(t *testing.T) {
	row := func(block, par, line, word string, conf, text string) string {
		return strings.Join([]string{"5", "1", block, par, line, word, "0", "0", "1", "1", conf, text}, "\t")
	}
	tsv := strings.Join([]string{
		"level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext",
		"1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t",
		row("1", "1", "1", "1", "96", "Call"), row("1", "1", "1", "2", "95", "me"), row("1", "1", "1", "3", "91", "Ishmael."),
		row("1", "1", "2", "1", "90", "Some"), row("1", "1", "2", "2", "88", "years"),
		row("1", "1", "3", "1", "12", "~<"), row("1", "1", "3", "2", "20", "Fo"), // noise
		row("2", "1", "1", "1", "93", "ago."),
	}, "\n")
	if got, want := fromTSV(tsv), "Call me Ishmael.\nSome years\n\nago."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := fromTSV(row("1", "1", "1", "1", "95", "ab") + "\n" + row("1", "1", "1", "2", "30", "xy")); got != "" {
		t.Errorf("scraps kept: %q", got)
	}
}

func TestPageList(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{[]int{2}, "Page 3"},
		{[]int{0, 1, 2}, "Pages 1–3"},
		{[]int{1, 4}, "Pages 2 and 5"},
		{[]int{1, 4, 8, 9}, "Pages 2, 5, 9 and 10"},
		{[]int{1, 4, 8, 9, 12}, "Pages 2, 5, 9 and 2 more"},
	} {
		if got := pageList(c.in); got != c.want {
			t.Errorf("pageList(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// scannedPDF renders page pageIdx of the PDF at src to a PNG at 200 DPI
// and writes a PDF holding that image as a page: a new one if base is
// nil, else base with the page appended.
func scannedPDF(t *testing.T, src string, pageIdx int, base []byte) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := sharedEngine()
	if err != nil {
		t.Fatal(err)
	}
	in, err := eng.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	d, err := openDoc(in, data, "")
	if err != nil {
		t.Fatal(err)
	}
	r, err := in.RenderPageInDPI(&requests.RenderPageInDPI{
		Page: requests.Page{ByIndex: &requests.PageByIndex{Document: d.doc, Index: pageIdx}},
		DPI:  200,
	})
	if err != nil {
		t.Fatal(err)
	}
	var img bytes.Buffer
	rgba := r.Result.RenderedImage
	flat := image.NewRGBA(rgba.Bounds()) // a copy: the render is freed below
	copy(flat.Pix, rgba.(*image.RGBA).Pix)
	r.Cleanup()
	in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: d.doc})
	eng.release(in)
	if err := png.Encode(&img, flat); err != nil {
		t.Fatal(err)
	}
	var rs io.ReadSeeker
	if base != nil {
		rs = bytes.NewReader(base)
	}
	var out bytes.Buffer
	if err := api.ImportImages(rs, &out, []io.Reader{&img}, nil, pdfcpuConfig("")); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, "scan.pdf", out.Bytes())
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func containsAny(ss []string, sub string) bool {
	for _, s := range ss {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
