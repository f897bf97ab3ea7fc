package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
)

// OCROptions tune optical character recognition of scanned PDF pages: pages
// with no text layer that show an image. Each is rendered by PDFium and
// read by Tesseract (`tesseract`, Debian package tesseract-ocr), run as a
// separate process, one page at a time per core. The zero value is on,
// with the defaults below.
type OCROptions struct {
	// Off disables OCR; scanned pages are then reported in a warning. The
	// environment variable CARREL_OCR=off has the same effect.
	Off bool
	// Tesseract is the program to run; "" finds "tesseract" on PATH
	// (or $CARREL_TESSERACT).
	Tesseract string
	// Languages is Tesseract's -l argument ("eng", "eng+deu"); "" is "eng".
	Languages string
	// DPI is the resolution pages are rendered at; 0 is [DefaultOCRDPI].
	// Large pages are rendered at less, to at most [maxOCRPixels].
	DPI int
	// PageTimeout bounds the recognition of one page; 0 is
	// [DefaultOCRPageTimeout]. A page over it is skipped with a warning.
	PageTimeout time.Duration
	// MaxPages bounds how many pages of one document are recognised; 0 is
	// [DefaultOCRMaxPages]. The pages after it are left without text, with
	// a warning.
	MaxPages int
}

const (
	// DefaultOCRDPI is what Tesseract's documentation recommends: its
	// models are trained on text of 20 to 30 pixels per capital height,
	// which a 10-point font reaches at about 300 DPI.
	DefaultOCRDPI = 300
	// DefaultOCRPageTimeout is several times what a dense page takes on
	// one slow core (3 to 10 s).
	DefaultOCRPageTimeout = 90 * time.Second
	// DefaultOCRMaxPages keeps a scanned book within about half an hour of
	// one core.
	DefaultOCRMaxPages = 500
	// maxOCRPixels bounds the rendered image (a poster-sized page is
	// rendered at a lower resolution): 40 megapixels, a 1-byte-per-pixel
	// A3 page at 300 DPI.
	maxOCRPixels = 40_000_000
)

// ErrOCRMissing is the cause given with [ErrNoText] (and the warning on a
// partly scanned document) when the document has scanned pages and
// Tesseract is not installed.
var ErrOCRMissing = errors.New("scanned pages need OCR: install tesseract-ocr")

func (o OCROptions) withDefaults() OCROptions {
	if envconfig.OCROff() {
		o.Off = true
	}
	if o.Tesseract == "" {
		o.Tesseract = envconfig.Tesseract()
	}
	if o.Languages == "" {
		o.Languages = "eng"
	}
	if o.DPI <= 0 {
		o.DPI = DefaultOCRDPI
	}
	if o.PageTimeout <= 0 {
		o.PageTimeout = DefaultOCRPageTimeout
	}
	if o.MaxPages <= 0 {
		o.MaxPages = DefaultOCRMaxPages
	}
	return o
}

// tesseractPath returns the Tesseract program to run, or "" if there is none.
func (o OCROptions) tesseractPath() string {
	name := o.Tesseract
	if name == "" {
		name = "tesseract"
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return ""
	}
	return p
}

// OCRAvailable reports whether Tesseract can be run, for a settings view.
func OCRAvailable() bool {
	o := OCROptions{}.withDefaults()
	return !o.Off && o.tesseractPath() != ""
}

// ocrResult is what OCR did to a document.
type ocrResult struct {
	scanned  int   // pages with an image and no text
	pages    []int // 0-based pages whose text now comes from OCR
	warnings []string
	missing  bool // scanned pages were found but Tesseract is not installed
	off      bool // scanned pages were found but OCR is switched off
	// layouts holds, by 0-based page, where OCR found each word; see
	// [attachOCRLayouts].
	layouts map[int]pageLayout
}

// ocrScanned finds, among the pages of data whose text is empty, those that
// show an image (scans, photographed pages) and, when Tesseract is
// available, fills their text in texts with what it reads.
func ocrScanned(ctx context.Context, eng *engine, data []byte, password string, texts []string, o OCROptions) (*ocrResult, error) {
	o = o.withDefaults()
	var empty []int
	for i, t := range texts {
		if t == "" {
			empty = append(empty, i)
		}
	}
	res := &ocrResult{layouts: map[int]pageLayout{}}
	if len(empty) == 0 {
		return res, nil
	}
	in, err := eng.acquire(ctx)
	if err != nil {
		return nil, err
	}
	healthy := true
	defer func() {
		if healthy && len(data) < bigFile {
			eng.release(in)
		} else {
			eng.discard(in)
		}
	}()
	d, err := openDoc(in, data, password)
	if err != nil {
		healthy = false
		return nil, err
	}
	defer func() {
		if healthy {
			if _, err := in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: d.doc}); err != nil {
				healthy = false
			}
		}
	}()
	scanned, err := scannedPages(ctx, in, d.doc, d.count, empty)
	if err != nil {
		return nil, err
	}
	res.scanned = len(scanned)
	if len(scanned) == 0 {
		return res, nil
	}
	tess, scanned := res.plan(o, scanned)
	if tess == "" {
		return res, nil
	}
	p := &ocrPages{ctx: ctx, tess: tess, o: o, texts: texts, res: res}
	renderErr := p.run(in, d.doc, scanned)
	if renderErr != nil {
		healthy = false // PDFium panicked: the instance is not reused
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if renderErr != nil {
		res.warnings = append(res.warnings, "Rendering scanned pages for OCR crashed PDFium ("+shortError(renderErr)+"); some pages have no text.")
	}
	if len(p.failed) > 0 {
		sort.Strings(p.failed)
		res.warnings = append(res.warnings, "OCR could not read "+strings.Join(p.failed[:min(len(p.failed), 5)], ", ")+".")
	}
	sort.Ints(res.pages)
	return res, nil
}

// scannedPages picks, among the empty pages of a document of count pages, those that
// show an image.
func scannedPages(ctx context.Context, in pdfium.Pdfium, doc references.FPDF_DOCUMENT, count int, empty []int) ([]int, error) {
	var scanned []int
	for _, i := range empty {
		if i >= count {
			break
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if hasImage(in, doc, i) {
			scanned = append(scanned, i)
		}
	}
	return scanned, nil
}

// plan returns Tesseract's path and the scanned pages it is to read (at most
// o.MaxPages), or "" when OCR is off or Tesseract missing; each case is recorded in res.
func (res *ocrResult) plan(o OCROptions, scanned []int) (string, []int) {
	tess := ""
	if !o.Off {
		tess = o.tesseractPath()
	}
	if tess == "" {
		res.missing, res.off = !o.Off, o.Off
		what := "OCR is switched off (CARREL_OCR=off)"
		if !o.Off {
			what = "install tesseract-ocr to read them"
		}
		res.warnings = append(res.warnings, fmt.Sprintf("%s are scanned and have no text: %s.", pageList(scanned), what))
		return "", nil
	}
	if len(scanned) > o.MaxPages {
		res.warnings = append(res.warnings, fmt.Sprintf("Only the first %d of %d scanned pages were read by OCR; the rest have no text.", o.MaxPages, len(scanned)))
		scanned = scanned[:o.MaxPages]
	}
	return tess, scanned
}

// ocrPages reads scanned pages: one goroutine renders them with the PDFium instance;
// Tesseract runs on as many pages at once as there are cores. What it reads goes into
// texts and res; the pages it could not read into failed.
type ocrPages struct {
	ctx   context.Context
	tess  string
	o     OCROptions
	texts []string
	res   *ocrResult

	mu     sync.Mutex // guards texts, res's pages and layouts, failed
	failed []string
}

// ocrJob is one rendered page waiting for Tesseract.
type ocrJob struct {
	page int
	img  *scanImage
}

// run reads the scanned pages and returns PDFium's panic while rendering, if any.
func (p *ocrPages) run(in pdfium.Pdfium, doc references.FPDF_DOCUMENT, scanned []int) error {
	jobs := make(chan ocrJob, 1)
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), len(scanned)) {
		wg.Go(func() { p.recognise(jobs) })
	}
	renderErr := p.render(in, doc, scanned, jobs)
	wg.Wait()
	return renderErr
}

func (p *ocrPages) fail(page int, why string) {
	p.mu.Lock()
	p.failed = append(p.failed, fmt.Sprintf("page %d (%s)", page+1, why))
	p.mu.Unlock()
}

// recognise runs Tesseract on the pages from jobs until it is closed.
func (p *ocrPages) recognise(jobs <-chan ocrJob) {
	for j := range jobs {
		if p.ctx.Err() != nil {
			continue
		}
		tsv, err := runTesseract(p.ctx, p.tess, p.o, j.img)
		if err != nil {
			if p.ctx.Err() == nil {
				p.fail(j.page, shortError(err))
			}
			continue
		}
		text, lay := readTSV(tsv, j.img.toPage, j.img.width, j.img.height)
		p.mu.Lock()
		p.texts[j.page] = text
		if text != "" {
			p.res.pages = append(p.res.pages, j.page)
			p.res.layouts[j.page] = pageLayout{text, lay}
		}
		p.mu.Unlock()
	}
}

// render renders the scanned pages into jobs, closing it when done; a PDFium panic
// stops it and is returned.
func (p *ocrPages) render(in pdfium.Pdfium, doc references.FPDF_DOCUMENT, scanned []int, jobs chan<- ocrJob) (renderErr error) {
	defer close(jobs)
	defer func() {
		if v := recover(); v != nil {
			renderErr = panicError("PDFium", v)
		}
	}()
	for _, i := range scanned {
		if p.ctx.Err() != nil {
			return nil
		}
		img, err := renderGray(in, doc, i, p.o.DPI)
		if err != nil {
			p.fail(i, "it could not be rendered: "+shortError(err))
			continue
		}
		select {
		case jobs <- ocrJob{i, img}:
		case <-p.ctx.Done():
			return nil
		}
	}
	return nil
}

// hasImage reports whether page i shows an image (or a form XObject, which
// scanners' PDFs often wrap their page image in).
func hasImage(in pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) bool {
	page, err := in.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
	if err != nil {
		return false
	}
	defer in.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	ref := requests.Page{ByReference: &page.Page}
	n, err := in.FPDFPage_CountObjects(&requests.FPDFPage_CountObjects{Page: ref})
	if err != nil {
		return false
	}
	for k := range min(n.Count, 10_000) {
		o, err := in.FPDFPage_GetObject(&requests.FPDFPage_GetObject{Page: ref, Index: k})
		if err != nil {
			continue
		}
		t, err := in.FPDFPageObj_GetType(&requests.FPDFPageObj_GetType{PageObject: o.PageObject})
		if err == nil && (t.Type == enums.FPDF_PAGEOBJ_IMAGE || t.Type == enums.FPDF_PAGEOBJ_FORM) {
			return true
		}
	}
	return false
}

// scanImage is a page rendered for OCR.
type scanImage struct {
	pgm []byte
	dpi int // the resolution it was rendered at
	// toPage maps its pixels to PDF user space; nil if PDFium could not
	// say (the page is then read without word boxes).
	toPage *affine
	// width and height are the page's displayed size in points.
	width, height float64
}

// renderGray renders page i in 8-bit grey at dpi (less for a page too large
// for [maxOCRPixels]) as a binary PGM image, which Tesseract reads without
// decompressing anything, with the map from its pixels to the page.
func renderGray(in pdfium.Pdfium, doc references.FPDF_DOCUMENT, i, dpi int) (*scanImage, error) {
	size, err := in.FPDF_GetPageSizeByIndex(&requests.FPDF_GetPageSizeByIndex{Document: doc, Index: i})
	if err != nil {
		return nil, err
	}
	if size.Width > 0 && size.Height > 0 {
		px := size.Width * size.Height * float64(dpi*dpi) / (72 * 72)
		for px > maxOCRPixels && dpi > 50 {
			dpi = dpi * 3 / 4
			px = size.Width * size.Height * float64(dpi*dpi) / (72 * 72)
		}
	}
	r, err := in.RenderPageInDPI(&requests.RenderPageInDPI{
		Page:        requests.Page{ByIndex: &requests.PageByIndex{Document: doc, Index: i}},
		DPI:         dpi,
		ImageFormat: requests.RenderImageFormatGrayscale,
	})
	if err != nil {
		return nil, err
	}
	defer r.Cleanup()
	g, ok := r.Result.RenderedImage.(*image.Gray)
	if !ok || g == nil {
		return nil, errors.New("PDFium returned no grey image")
	}
	b := g.Bounds()
	w, h := b.Dx(), b.Dy()
	var buf bytes.Buffer
	buf.Grow(w*h + 32)
	fmt.Fprintf(&buf, "P5\n%d %d\n255\n", w, h)
	for y := range h {
		off := y * g.Stride
		buf.Write(g.Pix[off : off+w])
	}
	img := &scanImage{pgm: buf.Bytes(), dpi: dpi, width: size.Width, height: size.Height}
	if w > 0 && h > 0 {
		if m, err := deviceToPage(in, doc, i, w, h); err == nil {
			img.toPage = &m
		}
	}
	return img, nil
}

// runTesseract reads one page image with Tesseract, within the page
// timeout, and returns its TSV output (words with boxes, see [readTSV]).
// Tesseract is held to one thread: pages run in parallel instead, which
// uses the cores better than its own threads do.
func runTesseract(ctx context.Context, tess string, o OCROptions, img *scanImage) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, o.PageTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, tess, "stdin", "stdout", "-l", o.Languages, "--dpi", strconv.Itoa(img.dpi), "tsv")
	cmd.Stdin = bytes.NewReader(img.pgm)
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return "", fmt.Errorf("took over %s", o.PageTimeout)
		}
		msg := strings.TrimSpace(errb.String())
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		if msg != "" {
			return "", fmt.Errorf("tesseract: %s", msg)
		}
		return "", fmt.Errorf("tesseract: %w", err)
	}
	return out.String(), nil
}

// Thresholds of Tesseract's word confidence (0 to 100) below which what it
// read is noise: the lines of a photo, a drawing or music notation.
const (
	minLineConfidence = 45 // mean over a line's words
	minPageWords      = 3  // confident words (two letters or more) a page needs
	minWordConfidence = 60
)

// fromTSV rebuilds a page's text from Tesseract's TSV output (one row per
// block, paragraph, line and word, each word with a confidence): words
// joined by spaces, lines by "\n", paragraphs by "\n\n". Lines whose mean
// confidence is low are left out, and so is the whole page when it has
// fewer than a few confident words: recognising a photo gives scraps.
func fromTSV(tsv string) string {
	return joinLines(keptLines(parseTSV(tsv)))
}

func alnum(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// pageList names 0-based pages for a message: "Page 3", "Pages 1–18",
// "Pages 2, 5 and 9", "Pages 1, 2, 3 and 12 more".
func pageList(pages []int) string {
	if len(pages) == 1 {
		return fmt.Sprintf("Page %d", pages[0]+1)
	}
	contiguous := true
	for k := 1; k < len(pages); k++ {
		if pages[k] != pages[k-1]+1 {
			contiguous = false
			break
		}
	}
	if contiguous {
		return fmt.Sprintf("Pages %d–%d", pages[0]+1, pages[len(pages)-1]+1)
	}
	var s []string
	for _, p := range pages[:min(len(pages), 3)] {
		s = append(s, strconv.Itoa(p+1))
	}
	if len(pages) > 4 {
		return fmt.Sprintf("Pages %s and %d more", strings.Join(s, ", "), len(pages)-3)
	}
	if len(pages) == 4 {
		s = append(s, strconv.Itoa(pages[3]+1))
	}
	return fmt.Sprintf("Pages %s and %s", strings.Join(s[:len(s)-1], ", "), s[len(s)-1])
}
