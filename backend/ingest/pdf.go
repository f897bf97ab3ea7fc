package ingest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// structure is what pdfcpu tells about a PDF.
type structure struct {
	pages         int
	title, author string
	outline       []Heading
	warnings      []string
	ctx           *model.Context // pdfcpu's reading, for the text extractor
}

var pdfcpuOnce sync.Once

// pdfcpuConfig returns a relaxed configuration. pdfcpu's config directory
// is switched off once per process: it would write a config.yml under the
// user's config directory, and only stamping needs the user fonts it holds.
// (What api.DisableConfigDir does; importing pdfcpu's api package would link its form
// filling and a 2.2 MB East Asian width table that reading never uses.)
func pdfcpuConfig(password string) *model.Configuration {
	pdfcpuOnce.Do(func() { model.ConfigPath = "disable" })
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	conf.UserPW = password
	conf.OwnerPW = password
	conf.Cmd = model.VALIDATE
	return conf
}

// readStructure reads data with pdfcpu; a failure to read is returned.
//
// pdfcpu's validation is not run. Even relaxed, it walked every annotation and
// structure element (decoding the object streams that hold them, which the text
// never needs): a seventh of the CPU of ingesting the pdfcpu corpus, for a
// warning that the text was read anyway. What ingest needs of a sound
// structure, a page tree that can be counted, is still an error when missing.
func readStructure(c context.Context, data []byte, password string) (st structure, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = panicError("pdfcpu", v)
		}
	}()
	ctx, err := pdfcpu.ReadWithContext(c, bytes.NewReader(data), pdfcpuConfig(password))
	if err != nil {
		return st, err
	}
	if err := ctx.EnsurePageCount(); err != nil {
		return st, fmt.Errorf("page tree: %w", err)
	}
	st.title, st.author = infoDict(ctx, &st.warnings)
	// What validation would have filled in and ingest reads: the catalog's XMP
	// title and author (PDF 2.0 keeps them there) override the info dictionary,
	// and the outline root is where pdfcpu.Bookmarks starts.
	if root, err := ctx.Catalog(); err == nil {
		if t, a := xmpTitle(ctx, root, &st.warnings); t != "" || a != "" {
			st.title, st.author = cmp.Or(t, st.title), cmp.Or(a, st.author)
		}
		if ir := root.IndirectRefEntry("Outlines"); ir != nil {
			if d, err := ctx.DereferenceDict(*ir); err == nil && d != nil {
				ctx.Outlines = d
				ctx.Dests = namedDests(ctx, root, &st.warnings)
			}
		}
	}
	st.pages = ctx.PageCount
	st.outline = bookmarks(ctx, &st.warnings)
	st.ctx = ctx
	return st, nil
}

// namedDests gathers the document's named destinations, which outline items
// may point to by name: the catalog's Dests dictionary (PDF 1.1) and the Dests
// name tree, flattened into one dictionary where pdfcpu looks a name up when
// it has no validated name tree.
func namedDests(ctx *model.Context, root types.Dict, warn *[]string) (out types.Dict) {
	out = types.Dict{}
	defer func() {
		if v := recover(); v != nil {
			*warn = append(*warn, recovered("outline's link targets", v))
		}
	}()
	if d, err := ctx.DereferenceDict(root["Dests"]); err == nil {
		for k, v := range d {
			out[k] = v
		}
	}
	names, err := ctx.DereferenceDict(root["Names"])
	if err != nil || names == nil {
		return out
	}
	seen := map[types.Object]bool{}
	var walk func(o types.Object, depth int)
	walk = func(o types.Object, depth int) {
		if ir, ok := o.(types.IndirectRef); ok {
			if seen[ir] || depth > 32 {
				return // a cycle, or deeper than any real tree
			}
			seen[ir] = true
		}
		node, err := ctx.DereferenceDict(o)
		if err != nil || node == nil {
			return
		}
		if kv, err := ctx.DereferenceArray(node["Names"]); err == nil {
			for i := 0; i+1 < len(kv); i += 2 {
				var key string
				switch k := kv[i].(type) {
				case types.StringLiteral:
					key, _ = types.StringLiteralToString(k)
				case types.HexLiteral:
					key, _ = types.HexLiteralToString(k)
				}
				if key != "" {
					out[key] = kv[i+1]
				}
			}
		}
		if kids, err := ctx.DereferenceArray(node["Kids"]); err == nil {
			for _, k := range kids {
				walk(k, depth+1)
			}
		}
	}
	walk(names["Dests"], 0)
	return out
}

// xmpTitle reads the title and author of the catalog's XMP metadata, if any.
func xmpTitle(ctx *model.Context, root types.Dict, warn *[]string) (title, author string) {
	defer func() {
		if v := recover(); v != nil {
			*warn = append(*warn, recovered("XMP title and author", v))
		}
	}()
	o, ok := root.Find("Metadata")
	if !ok {
		return "", ""
	}
	sd, _, err := ctx.DereferenceStreamDict(o)
	if err != nil || sd == nil || sd.Decode() != nil {
		return "", ""
	}
	var x model.XMPMeta
	if xml.Unmarshal(sd.Content, &x) != nil {
		return "", ""
	}
	d := x.RDF.Description
	return strings.Join(d.Title.Alt.Entries, ", "), strings.Join(d.Author.Seq.Entries, ", ")
}

// infoDict reads Title and Author straight from the info dictionary (pdfcpu
// fills Context.Title and Author only when it validates).
func infoDict(ctx *model.Context, warn *[]string) (title, author string) {
	defer func() {
		if v := recover(); v != nil {
			*warn = append(*warn, recovered("title and author", v))
		}
	}()
	if ctx.Info == nil {
		return "", ""
	}
	d, err := ctx.DereferenceDict(*ctx.Info)
	if err != nil || d == nil {
		return "", ""
	}
	get := func(k string) string {
		o, ok := d.Find(k)
		if !ok {
			return ""
		}
		o, err := ctx.Dereference(o)
		if err != nil || o == nil {
			return ""
		}
		s, err := model.Text(o)
		if err != nil {
			return ""
		}
		return s
	}
	return get("Title"), get("Author")
}

// bookmarks flattens pdfcpu's bookmark tree into outline order. A broken
// outline is ignored: it is a convenience, not the document.
func bookmarks(ctx *model.Context, warn *[]string) (out []Heading) {
	defer func() {
		if v := recover(); v != nil {
			out = nil
			*warn = append(*warn, recovered("outline", v))
		}
	}()
	bms, err := pdfcpu.Bookmarks(ctx)
	if err != nil {
		return nil
	}
	var walk func(bms []pdfcpu.Bookmark, level int)
	walk = func(bms []pdfcpu.Bookmark, level int) {
		for _, bm := range bms {
			title := cleanLine(bm.Title)
			if title != "" {
				out = append(out, Heading{Title: title, Page: bm.PageFrom, Level: level})
			}
			if level < 64 {
				walk(bm.Kids, level+1)
			}
		}
	}
	walk(bms, 1)
	return out
}

// fixOutline drops headings whose page is unknown or out of range, giving a
// heading without a page the page of the entry after it when that entry is
// its descendant (a part title that only groups chapters).
func fixOutline(hs []Heading, pages int) []Heading {
	out := hs[:0]
	for i, h := range hs {
		if h.Page < 1 || h.Page > pages {
			if i+1 < len(hs) && hs[i+1].Level > h.Level && hs[i+1].Page >= 1 && hs[i+1].Page <= pages {
				h.Page = hs[i+1].Page
			} else {
				continue
			}
		}
		out = append(out, h)
	}
	return out
}

func readPDF(ctx context.Context, doc *Document, data []byte, opts Options) error {
	path := doc.Path
	// pdfcpu reads the structure; the text of the pages comes from our
	// own extractor on pdfcpu's objects ([nativeText]), and PDFium reads
	// only the pages it is not sure of, or all of them when pdfcpu cannot
	// read the file (PDFium repairs more, as viewers do).
	st, perr := readStructure(ctx, data, opts.Password)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var native *nativeResult
	if perr == nil {
		native = nativeText(ctx, st.ctx, opts.Progress)
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	var res *extraction
	var xerr error
	if native == nil || len(native.fallback) > 0 {
		eng, done, err := useEngine()
		if err != nil {
			return err
		}
		defer done()
		var only []int
		if native != nil {
			only = native.fallback
		}
		res, xerr = extractPDF(ctx, eng, data, opts.Password, only, opts.Progress)
	}

	res, err := readFailure(ctx, path, data, &st, native, res, perr, xerr)
	if err != nil {
		return err
	}

	texts, mayHaveImage := pageTexts(ctx, data, opts.Password, native, res, perr, &st)
	texts = texts[:min(len(texts), st.pages)]
	ocr, err := ocrCandidates(ctx, data, opts.Password, texts, mayHaveImage, opts.OCR)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ocr = &ocrResult{warnings: []string{"Scanned pages could not be looked for (" + shortError(err) + ")."}}
	}

	fillPDF(doc, &st, texts, ocr)
	return noTextError(doc, ocr)
}

// readFailure decides from both readings' errors (pdfcpu's perr, PDFium's xerr) whether
// the file cannot be read, and why. When PDFium failed on pages our own reading has, the
// file is read without them: a warning goes to st and the PDFium reading returned is nil.
func readFailure(ctx context.Context, path string, data []byte, st *structure, native *nativeResult, res *extraction, perr, xerr error) (*extraction, error) {
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(perr, pdfcpu.ErrWrongPassword) || errors.Is(xerr, errPDFiumPassword):
		return nil, newError(ErrEncrypted, path, "", errors.Join(perr, xerr))
	case perr != nil && !hasEOF(data):
		return nil, newError(ErrCorrupt, path, "the file is truncated, perhaps an incomplete download", perr)
	case errors.Is(xerr, errPDFiumOpen) && native == nil:
		detail := corruptDetail(perr)
		if perr == nil {
			detail = "PDFium cannot parse it"
		}
		return nil, newError(ErrCorrupt, path, detail, errors.Join(perr, xerr))
	case errors.Is(xerr, errEngine):
		return nil, xerr
	case xerr != nil && native == nil:
		// Not a clean refusal: PDFium trapped or panicked on this file.
		return nil, newError(ErrCorrupt, path, "reading it crashed the PDF engine", errors.Join(perr, xerr))
	case xerr != nil:
		// Our own reading stands for the pages PDFium was to read again.
		st.warnings = append(st.warnings, "Some pages could not be read by PDFium ("+shortError(xerr)+"); their text may be incomplete.")
		return nil, nil
	case native == nil && perr == nil && st.pages > 0 && len(res.pages) == 0:
		return nil, newError(ErrCorrupt, path, "its page tree is broken", nil)
	}
	return res, nil
}

// fillPDF sets doc's pages (texts, OCR candidates and their layouts), warnings, outline,
// author and title from the readings.
func fillPDF(doc *Document, st *structure, texts []string, ocr *ocrResult) {
	doc.Pages = make([]Page, st.pages)
	for i := range doc.Pages {
		doc.Pages[i].Number = i + 1
		if i < len(texts) {
			doc.Pages[i].Text = texts[i]
		}
	}
	for _, i := range ocr.pages {
		doc.OCRPages = append(doc.OCRPages, i+1)
	}
	dehyphenate(doc.Pages)
	attachOCRLayouts(doc.Pages, ocr)
	doc.Warnings = append(st.warnings, ocr.warnings...)
	doc.Outline = fixOutline(st.outline, st.pages)
	doc.Author = cleanLine(st.author)
	doc.Title = chooseTitle(st.title, doc.Pages, doc.Path)
}

// pageTexts is the text of each page: our own reading with PDFium's for the pages it
// read again, or PDFium's alone when pdfcpu could not read the file (st then describes
// what PDFium saw); mayHaveImage says which pages may hold an image to OCR. Warnings
// go to st.
func pageTexts(ctx context.Context, data []byte, password string, native *nativeResult, res *extraction, perr error, st *structure) (texts []string, mayHaveImage func(int) bool) {
	mayHaveImage = func(int) bool { return true }
	if native != nil {
		texts = native.texts
		if res != nil {
			for _, i := range native.fallback {
				if i < len(res.pages) {
					texts[i] = res.pages[i]
				}
			}
			st.warnings = append(st.warnings, res.warnings...)
			respaceFallback(ctx, st.ctx, data, password, texts, native.fallback, st)
		}
		mayHaveImage = func(i int) bool { return native.images[i] }
	} else {
		texts = res.pages
		if perr != nil {
			// pdfcpu is stricter than viewers; PDFium repairs what it can, as
			// viewers do, so its reading stands, with a warning.
			*st = structure{
				pages:   len(res.pages),
				title:   res.title,
				author:  res.author,
				outline: res.outline,
				warnings: []string{"The PDF's structure is damaged (" + corruptDetail(perr) +
					"); its text was recovered, but some pages may be missing."},
			}
		} else if len(res.pages) != st.pages {
			st.warnings = append(st.warnings, fmt.Sprintf("PDFium sees %d pages where pdfcpu sees %d; page numbers follow pdfcpu.", len(res.pages), st.pages))
		}
		st.warnings = append(st.warnings, res.warnings...)
	}

	return texts, mayHaveImage
}

// noTextError is nil when a page of doc has text, else why none has.
func noTextError(doc *Document, ocr *ocrResult) error {
	for _, p := range doc.Pages {
		if p.Text != "" {
			return nil
		}
	}
	switch {
	case ocr.missing:
		return newError(ErrNoText, doc.Path, "", ErrOCRMissing)
	case ocr.off:
		return newError(ErrNoText, doc.Path, "OCR is switched off", nil)
	case ocr.scanned > 0:
		return newError(ErrNoText, doc.Path, "OCR found no text on its scanned pages", nil)
	}
	return newError(ErrNoText, doc.Path, "", nil)
}

// hasEOF reports whether the last KiB of data holds the %%EOF marker that
// every complete PDF ends with; its absence means a truncated file.
func hasEOF(data []byte) bool {
	tail := data[max(0, len(data)-1024):]
	return bytes.Contains(tail, []byte("%%EOF"))
}

// corruptDetail turns a pdfcpu read error into a short phrase naming what
// is broken, for ErrCorrupt's message.
func corruptDetail(err error) string {
	if err == nil {
		return ""
	}
	msg := strings.ToLower(err.Error())
	switch {
	case errors.Is(err, pdfcpu.ErrCorruptHeader) || strings.Contains(msg, "header"):
		return "its header is broken"
	case strings.Contains(msg, "root"):
		return "its document catalog is missing"
	case strings.Contains(msg, "xref") || strings.Contains(msg, "startxref") || strings.Contains(msg, "trailer"):
		return "its cross-reference table is broken"
	case strings.Contains(msg, "page"):
		return "its page tree is broken"
	case strings.Contains(msg, "stream") || strings.Contains(msg, "filter") || strings.Contains(msg, "flate"):
		return "a compressed stream is broken"
	case strings.Contains(msg, "encrypt"):
		return "its encryption dictionary is broken"
	case errors.Is(err, errPanic):
		return "reading it crashed the PDF parser"
	}
	return shortError(err)
}

// shortError keeps the innermost, most specific part of a wrapped error
// message and caps its length.
func shortError(err error) string {
	s := err.Error()
	if i := strings.LastIndex(s, ": "); i >= 0 && len(s)-i > 12 {
		s = s[i+2:]
	}
	s = cleanLine(s)
	if len(s) > 120 {
		s = s[:120] + "…"
	}
	return s
}
