package ingest

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// builder assembles the text of a structured document (Word, EPUB, HTML,
// mail) from headings and paragraphs, then cuts it into pages like a text
// file, each chapter starting a new page.
type builder struct {
	b      strings.Builder
	heads  []mdHeading
	breaks []int // offsets where a chapter starts a new page
	limit  int   // the text stops growing past this many bytes
	full   bool
}

// newBuilder returns a builder that keeps at most limit bytes of text.
func newBuilder(limit int) *builder { return &builder{limit: limit} }

// sep ends the current block with a paragraph break.
func (w *builder) sep() {
	if w.b.Len() > 0 {
		w.b.WriteString("\n\n")
	}
}

func (w *builder) room(n int) bool {
	if w.b.Len()+n > w.limit {
		w.full = true
		return false
	}
	return true
}

// heading adds a heading of the given level (1 = top) as its own line.
func (w *builder) heading(level int, title string) {
	title = cleanLine(title)
	if title == "" || !w.room(len(title)+2) {
		return
	}
	w.sep()
	w.heads = append(w.heads, mdHeading{title: title, level: min(max(level, 1), 9), offset: w.b.Len()})
	w.b.WriteString(title)
}

// para adds a paragraph; its white space is collapsed to single spaces
// except line breaks, which stay.
func (w *builder) para(text string) {
	var lines []string
	for l := range strings.SplitSeq(text, "\n") {
		if l = cleanLine(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return
	}
	t := strings.Join(lines, "\n")
	if !w.room(len(t) + 2) {
		return
	}
	w.sep()
	w.b.WriteString(t)
}

// pre adds preformatted text (code), keeping its indentation.
func (w *builder) pre(text string) {
	t := strings.Trim(normalizePlainText(text), "\n")
	if strings.TrimSpace(t) == "" || !w.room(len(t)+2) {
		return
	}
	w.sep()
	w.b.WriteString(t)
}

// chapter makes the next text start a new page.
func (w *builder) chapter() {
	if n := w.b.Len(); n > 0 && (len(w.breaks) == 0 || w.breaks[len(w.breaks)-1] != n) {
		w.breaks = append(w.breaks, n)
	}
}

// finish sets doc's pages and outline from the text built. It returns
// ErrEmpty when there is no text.
func (w *builder) finish(doc *Document, what string) error {
	text := w.b.String()
	if strings.TrimSpace(text) == "" {
		return newError(ErrEmpty, doc.Path, what, nil)
	}
	doc.Pages, doc.Outline = pagesOf(text, w.heads, w.breaks)
	if w.full {
		doc.Warnings = append(doc.Warnings, "The document is very long; only its first "+humanBytes(int64(w.limit))+" of text were read.")
	}
	return nil
}

// pagesOf cuts text into pages of about TextPageSize characters (see
// paginate), starting a new page at every offset in breaks, and places each
// heading on its page.
func pagesOf(text string, heads []mdHeading, breaks []int) ([]Page, []Heading) {
	var pages []Page
	var outline []Heading
	cuts := append(append([]int{0}, breaks...), len(text))
	h := 0
	for i := 0; i+1 < len(cuts); i++ {
		lo, hi := cuts[i], cuts[i+1]
		if lo >= hi {
			continue
		}
		var local []mdHeading
		for j := h; j < len(heads) && heads[j].offset < hi; j++ {
			if heads[j].offset >= lo {
				hh := heads[j]
				hh.offset -= lo
				local = append(local, hh)
			}
		}
		seg := text[lo:hi]
		bounds := paginate(seg, local)
		if len(bounds) == 1 && bounds[0].start == bounds[0].end {
			h += len(local)
			continue // a chapter of white space
		}
		first := len(pages)
		for _, b := range bounds {
			pages = append(pages, Page{Number: len(pages) + 1, Text: seg[b.start:b.end]})
		}
		for _, hd := range local {
			page := first + 1
			for k, b := range bounds {
				if hd.offset >= b.start {
					page = first + k + 1
				}
			}
			outline = append(outline, Heading{Title: hd.title, Page: page, Level: hd.level})
		}
		h += len(local)
	}
	if len(pages) == 0 {
		pages = []Page{{Number: 1}}
	}
	return pages, outline
}

// collapse replaces runs of white space (including line breaks) in s by
// one space.
func collapse(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) && r != ' ' }) && !strings.Contains(s, "  ") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// validUTF8 replaces invalid bytes of s.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
