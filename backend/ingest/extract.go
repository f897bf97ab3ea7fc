package ingest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/enums"
	pdfiumerrors "github.com/klippa-app/go-pdfium/errors"
	"github.com/klippa-app/go-pdfium/references"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/responses"
)

var (
	errPDFiumPassword = errors.New("PDFium: a password is required")
	errPDFiumOpen     = errors.New("PDFium cannot open the file")
)

const (
	// pagesPerWorker is how many pages justify one more PDFium instance
	// for a document: opening the document again costs about one page.
	pagesPerWorker = 8
	// bigFile is the size above which a document is read by one instance
	// only, and that instance is replaced afterwards: WebAssembly memory
	// never shrinks, and each instance holds its own copy of the file.
	bigFile = 64 << 20
)

// extraction is what PDFium read from a document.
type extraction struct {
	pages    []string // normalised text per page
	warnings []string
	// For when pdfcpu cannot read the file:
	title, author string
	outline       []Heading
}

// extractPDF reads the text of the pages of data with PDFium, spreading
// the pages over as many free instances as the document is worth, and its
// title, author and outline. only lists the 0-based pages to read, in
// order; nil reads them all. progress counts the pages read of total.
func extractPDF(ctx context.Context, eng *engine, data []byte, password string, only []int, progress Progress) (*extraction, error) {
	first, err := eng.acquire(ctx)
	if err != nil {
		return nil, err
	}
	d, err := openDoc(first, data, password)
	if err != nil {
		if errors.Is(err, errPDFiumOpen) || errors.Is(err, errPDFiumPassword) {
			eng.release(first)
		} else {
			eng.discard(first)
		}
		return nil, err
	}
	n := d.count
	res := &extraction{pages: make([]string, n)}
	var metaWarn []string
	res.title, res.author, res.outline = pdfiumMeta(first, d.doc, &metaWarn)
	work := n
	if only != nil {
		kept := only[:0:0]
		for _, i := range only {
			if i >= 0 && i < n {
				kept = append(kept, i)
			}
		}
		only, work = kept, len(kept)
	}

	x := &extractor{
		ctx: ctx, eng: eng, data: data, password: password,
		pages: res.pages, order: only, work: work, total: work, progress: progress,
	}
	// The first worker keeps the instance and document opened above.
	x.wg.Add(1)
	go x.run(first, d)
	extra := 0
	if len(data) < bigFile {
		extra = min(eng.size-1, (work-1)/pagesPerWorker)
	}
	for range extra {
		in, ok := eng.tryAcquire(ctx)
		if !ok {
			break
		}
		x.wg.Add(1)
		go x.run(in, nil)
	}
	x.wg.Wait()
	// A worker that failed leaves its remaining pages to the others; if
	// all failed, start over with fresh instances on the pages left.
	for restarts := 0; x.next.Load() < int64(work) && ctx.Err() == nil; restarts++ {
		if restarts == 3 {
			left := work - int(x.next.Load())
			x.warnings = append(x.warnings, fmt.Sprintf("The text of the last %d pages could not be read; they were skipped.", left))
			break
		}
		in, err := eng.acquire(ctx)
		if err != nil {
			return nil, err
		}
		x.wg.Add(1)
		go x.run(in, nil)
		x.wg.Wait()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.warnings = append(metaWarn, x.warnings...)
	return res, nil
}

type extractor struct {
	ctx      context.Context
	eng      *engine
	data     []byte
	password string
	pages    []string
	order    []int // the pages to extract, or nil for all
	work     int   // order[0..work-1] (or pages 0..work-1) are extracted
	total    int   // for progress
	progress Progress
	next     atomic.Int64
	wg       sync.WaitGroup

	mu       sync.Mutex // guards what follows, and serialises progress
	done     int
	warnings []string
}

type openedDoc struct {
	doc   references.FPDF_DOCUMENT
	count int
}

// run extracts pages from the shared queue with one instance until the
// queue is empty, ctx is done or the instance fails. d is the document
// already opened in the instance, or nil.
func (x *extractor) run(in pdfium.Pdfium, d *openedDoc) {
	defer x.wg.Done()
	healthy := true
	defer func() {
		if v := recover(); v != nil {
			x.fail(fmt.Sprintf("Reading a page crashed PDFium (%v); the page was skipped.", v))
			healthy = false
		}
		if d != nil && healthy {
			if _, err := in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: d.doc}); err != nil {
				healthy = false
			}
		}
		if healthy && len(x.data) < bigFile {
			x.eng.release(in)
		} else {
			x.eng.discard(in)
		}
	}()
	if d == nil {
		var err error
		if d, err = openDoc(in, x.data, x.password); err != nil {
			// It opened in the first instance, so this one is suspect.
			healthy = false
			d = nil
			return
		}
	}
	for x.ctx.Err() == nil {
		i := int(x.next.Add(1) - 1)
		if i >= x.work {
			return
		}
		if x.order != nil {
			i = x.order[i]
		}
		text, err := pageText(in, d.doc, i)
		if err != nil {
			x.fail(fmt.Sprintf("The text of page %d could not be read (%s); the page was skipped.", i+1, shortError(err)))
			healthy = false
			return
		}
		x.pages[i] = text
		x.mu.Lock()
		x.done++
		if x.progress != nil {
			x.progress(x.done, x.total)
		}
		x.mu.Unlock()
	}
}

func (x *extractor) fail(warning string) {
	x.mu.Lock()
	x.warnings = append(x.warnings, warning)
	x.done++
	if x.progress != nil {
		x.progress(x.done, x.total)
	}
	x.mu.Unlock()
}

// openDoc loads data into the instance.
func openDoc(in pdfium.Pdfium, data []byte, password string) (d *openedDoc, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError("PDFium", v)
		}
	}()
	req := &requests.OpenDocument{File: &data}
	if password != "" {
		req.Password = &password
	}
	doc, err := in.OpenDocument(req)
	if err != nil {
		switch {
		case errors.Is(err, pdfiumerrors.ErrPassword), errors.Is(err, pdfiumerrors.ErrSecurity):
			return nil, fmt.Errorf("%w: %v", errPDFiumPassword, err)
		case errors.Is(err, pdfiumerrors.ErrFormat), errors.Is(err, pdfiumerrors.ErrFile),
			errors.Is(err, pdfiumerrors.ErrUnknown), errors.Is(err, pdfiumerrors.ErrPage):
			return nil, fmt.Errorf("%w: %v", errPDFiumOpen, err)
		}
		return nil, err
	}
	pc, err := in.FPDF_GetPageCount(&requests.FPDF_GetPageCount{Document: doc.Document})
	if err != nil {
		_, _ = in.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
		return nil, fmt.Errorf("%w: page count: %v", errPDFiumOpen, err)
	}
	return &openedDoc{doc: doc.Document, count: pc.PageCount}, nil
}

// pageText returns the normalised text of page i (0-based), as PDFium orders it.
func pageText(in pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int) (string, error) {
	return readPage(in, doc, i, func(tp references.FPDF_TEXTPAGE, count int) (string, error) {
		if count == 0 {
			return "", nil
		}
		t, err := in.FPDFText_GetText(&requests.FPDFText_GetText{TextPage: tp, StartIndex: 0, Count: count})
		if err != nil {
			return "", err
		}
		return t.Text, nil
	})
}

// readPage loads page i and its text page, turns its count characters into text with
// chars, appends the page's annotation text and normalises the result.
func readPage(in pdfium.Pdfium, doc references.FPDF_DOCUMENT, i int, chars func(references.FPDF_TEXTPAGE, int) (string, error)) (string, error) {
	page, err := in.FPDF_LoadPage(&requests.FPDF_LoadPage{Document: doc, Index: i})
	if err != nil {
		return "", err
	}
	defer in.FPDF_ClosePage(&requests.FPDF_ClosePage{Page: page.Page})
	tp, err := in.FPDFText_LoadPage(&requests.FPDFText_LoadPage{Page: requests.Page{ByReference: &page.Page}})
	if err != nil {
		return "", err
	}
	defer in.FPDFText_ClosePage(&requests.FPDFText_ClosePage{TextPage: tp.TextPage})
	n, err := in.FPDFText_CountChars(&requests.FPDFText_CountChars{TextPage: tp.TextPage})
	if err != nil {
		return "", err
	}
	text, err := chars(tp.TextPage, n.Count)
	if err != nil {
		return "", err
	}
	notes, err := annotationText(in, page.Page)
	if err != nil {
		return "", err
	}
	if notes != "" {
		text += "\n\n" + notes
	}
	return normalizePDFText(text), nil
}

// annotationText returns the text of the page's annotations that show
// text on the page but are not part of its content: free-text comments
// and filled-in form fields. They follow the page text, one per paragraph.
func annotationText(in pdfium.Pdfium, page references.FPDF_PAGE) (string, error) {
	ref := requests.Page{ByReference: &page}
	count, err := in.FPDFPage_GetAnnotCount(&requests.FPDFPage_GetAnnotCount{Page: ref})
	if err != nil || count.Count == 0 {
		return "", err
	}
	var notes []string
	for i := range count.Count {
		a, err := in.FPDFPage_GetAnnot(&requests.FPDFPage_GetAnnot{Page: ref, Index: i})
		if err != nil {
			continue
		}
		key := ""
		if st, err := in.FPDFAnnot_GetSubtype(&requests.FPDFAnnot_GetSubtype{Annotation: a.Annotation}); err == nil {
			switch st.Subtype {
			case enums.FPDF_ANNOT_SUBTYPE_FREETEXT:
				key = "Contents"
			case enums.FPDF_ANNOT_SUBTYPE_WIDGET:
				key = "V"
			}
		}
		if key != "" {
			if v, err := in.FPDFAnnot_GetStringValue(&requests.FPDFAnnot_GetStringValue{Annotation: a.Annotation, Key: key}); err == nil {
				if t := strings.TrimSpace(v.Value); t != "" {
					notes = append(notes, t)
				}
			}
		}
		if _, err := in.FPDFPage_CloseAnnot(&requests.FPDFPage_CloseAnnot{Annotation: a.Annotation}); err != nil {
			return "", err
		}
	}
	return strings.Join(notes, "\n\n"), nil
}

// pdfiumMeta reads title, author and outline with PDFium, for documents
// pdfcpu could not read.
func pdfiumMeta(in pdfium.Pdfium, doc references.FPDF_DOCUMENT, warn *[]string) (title, author string, outline []Heading) {
	defer func() {
		if v := recover(); v != nil {
			*warn = append(*warn, recovered("title and outline (PDFium)", v))
		}
	}()
	if r, err := in.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc, Tag: "Title"}); err == nil {
		title = r.Value
	}
	if r, err := in.FPDF_GetMetaText(&requests.FPDF_GetMetaText{Document: doc, Tag: "Author"}); err == nil {
		author = r.Value
	}
	bms, err := in.GetBookmarks(&requests.GetBookmarks{Document: doc})
	if err != nil {
		return title, author, nil
	}
	var walk func(bs []responses.GetBookmarksBookmark, level int)
	walk = func(bs []responses.GetBookmarksBookmark, level int) {
		for _, b := range bs {
			page := 0
			switch {
			case b.DestInfo != nil:
				page = b.DestInfo.PageIndex + 1
			case b.ActionInfo != nil && b.ActionInfo.DestInfo != nil:
				page = b.ActionInfo.DestInfo.PageIndex + 1
			}
			if t := cleanLine(b.Title); t != "" {
				outline = append(outline, Heading{Title: t, Page: page, Level: level})
			}
			if level < 64 {
				walk(b.Children, level+1)
			}
		}
	}
	walk(bms.Bookmarks, 1)
	return title, author, outline
}
