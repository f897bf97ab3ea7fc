package ingest

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// readDOCX reads a Word document: its paragraphs and tables in order, its
// headings (Heading 1–9 and Title styles, or an outline level) as the
// outline, its title and author from the document properties.
func readDOCX(ctx context.Context, doc *Document, data []byte) error {
	a, err := openArchive(doc.Path, data, "Word")
	if err != nil {
		return err
	}
	if a.lookup("word/document.xml") == nil {
		return newError(ErrCorrupt, doc.Path, "it is a zip file without word/document.xml, so not a Word document", nil)
	}
	styles := docxStyles(a)
	var title, author string
	if core, err := a.read("docProps/core.xml"); err == nil && core != nil {
		title, author = coreProps(core)
	} else if err != nil {
		return err
	}
	rc, err := a.open("word/document.xml")
	if err != nil {
		return err
	}
	defer rc.Close()
	w := newBuilder(MaxText)
	styleTitle, err := docxBody(ctx, rc, styles, w)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return a.wrap(err)
	}
	if err := w.finish(doc, "the document has no text"); err != nil {
		return err
	}
	if title == "" {
		title = styleTitle
	}
	doc.Author = cleanLine(author)
	doc.Title = chooseTitle(title, doc.Pages, doc.Path)
	return nil
}

// docxStyle is what a paragraph style says about headings.
type docxStyle struct {
	name    string
	outline int // 1-based heading level, 0 if none
	basedOn string
}

var headingName = regexp.MustCompile(`(?i)^heading\s*([1-9])$`)

// docxStyles maps style ids to heading levels (0 for body text; -1 for
// the Title style).
func docxStyles(a *archive) map[string]int {
	levels := map[string]int{}
	data, err := a.read("word/styles.xml")
	if err != nil || data == nil {
		return levels
	}
	styles := map[string]*docxStyle{}
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	dec.Strict = false
	var cur *docxStyle
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "style":
				id := xmlAttr(t, "styleId")
				cur = &docxStyle{}
				styles[id] = cur
			case "name":
				if cur != nil {
					cur.name = xmlAttr(t, "val")
				}
			case "basedOn":
				if cur != nil {
					cur.basedOn = xmlAttr(t, "val")
				}
			case "outlineLvl":
				if cur != nil {
					if n, err := strconv.Atoi(xmlAttr(t, "val")); err == nil && n >= 0 && n < 9 {
						cur.outline = n + 1
					}
				}
			}
		case xml.EndElement:
			if t.Name.Local == "style" {
				cur = nil
			}
		}
	}
	for id := range styles {
		s, lvl := styles[id], 0
		for range 10 {
			if s == nil {
				break
			}
			if m := headingName.FindStringSubmatch(s.name); m != nil {
				lvl = int(m[1][0] - '0')
				break
			}
			if strings.EqualFold(s.name, "title") {
				lvl = -1
				break
			}
			if s.outline > 0 {
				lvl = s.outline
				break
			}
			s = styles[s.basedOn]
		}
		levels[id] = lvl
	}
	return levels
}

// styleLevel is the heading level of a paragraph style id, also for files
// without styles.xml, whose ids are the English names ("Heading1").
func styleLevel(styles map[string]int, id string) int {
	if lvl, ok := styles[id]; ok {
		return lvl
	}
	if m := headingName.FindStringSubmatch(id); m != nil {
		return int(m[1][0] - '0')
	}
	if strings.EqualFold(id, "title") {
		return -1
	}
	return 0
}

// docxPara is a paragraph being read.
type docxPara struct {
	text    strings.Builder
	style   string
	outline int // from the paragraph's own outlineLvl, 1-based
	list    bool
}

// docxBody reads word/document.xml into w and returns the text of the
// first Title-styled paragraph.
func docxBody(ctx context.Context, r io.Reader, styles map[string]int, w *builder) (string, error) {
	dec := xml.NewDecoder(r)
	dec.Strict = false
	d := &docxDoc{styles: styles, w: w}
	tokens := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) && w.b.Len() > 0 {
				// A truncated or damaged end: keep what was read.
				break
			}
			return d.title, err
		}
		if tokens++; tokens%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return d.title, err
			}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			d.start(t)
		case xml.CharData:
			if d.inText && len(d.paras) > 0 {
				d.paras[len(d.paras)-1].text.Write(t)
			}
		case xml.EndElement:
			d.end(t)
		}
		if w.full {
			break
		}
	}
	return d.title, nil
}

// docxDoc is where docxBody stands in word/document.xml.
type docxDoc struct {
	styles   map[string]int
	w        *builder
	paras    []*docxPara // nested paragraphs (text boxes) stack up
	inText   bool
	run      int
	cells    []string // the table row being read
	cellText strings.Builder
	tables   int
	inCell   int
	title    string
}

// para is the paragraph being read, or nil outside one.
func (d *docxDoc) para() *docxPara {
	if len(d.paras) == 0 {
		return nil
	}
	return d.paras[len(d.paras)-1]
}

func (d *docxDoc) start(t xml.StartElement) {
	p := d.para()
	switch t.Name.Local {
	case "p":
		d.paras = append(d.paras, &docxPara{})
	case "pStyle":
		if p != nil {
			p.style = xmlAttr(t, "val")
		}
	case "outlineLvl":
		if p != nil {
			if n, err := strconv.Atoi(xmlAttr(t, "val")); err == nil && n >= 0 && n < 9 {
				p.outline = n + 1
			}
		}
	case "numPr":
		if p != nil {
			p.list = true
		}
	case "r":
		d.run++
	case "t":
		d.inText = d.run > 0 || p != nil
	case "tab":
		if d.run > 0 && p != nil {
			p.text.WriteByte('\t')
		}
	case "br", "cr":
		if d.run > 0 && p != nil {
			p.text.WriteByte('\n')
		}
	case "tbl":
		d.tables++
	case "tr":
		d.cells = d.cells[:0]
	case "tc":
		d.inCell++
		d.cellText.Reset()
	}
}

func (d *docxDoc) end(t xml.EndElement) {
	switch t.Name.Local {
	case "t":
		d.inText = false
	case "r":
		d.run = max(d.run-1, 0)
	case "p":
		d.endPara()
	case "tc":
		d.inCell = max(d.inCell-1, 0)
		if t := cleanLine(d.cellText.String()); t != "" {
			d.cells = append(d.cells, t)
		}
		d.cellText.Reset()
	case "tr":
		if d.tables > 0 && len(d.cells) > 0 {
			d.w.para(strings.Join(d.cells, " | "))
		}
		d.cells = d.cells[:0]
	case "tbl":
		d.tables = max(d.tables-1, 0)
	}
}

// endPara ends a paragraph: a text box's joins the paragraph around it, a table
// cell's joins the cell, any other is written as a heading, list item or paragraph.
func (d *docxDoc) endPara() {
	p := d.para()
	if p == nil {
		return
	}
	d.paras = d.paras[:len(d.paras)-1]
	text := p.text.String()
	switch {
	case len(d.paras) > 0:
		// A text box inside a paragraph: its text joins it.
		d.paras[len(d.paras)-1].text.WriteString(" " + text + " ")
	case d.inCell > 0:
		if d.cellText.Len() > 0 {
			d.cellText.WriteByte(' ')
		}
		d.cellText.WriteString(text)
	default:
		lvl := p.outline
		if lvl == 0 {
			lvl = styleLevel(d.styles, p.style)
		}
		switch {
		case lvl == -1:
			if d.title == "" {
				d.title = cleanLine(text)
			}
			d.w.heading(1, text)
		case lvl > 0:
			d.w.heading(lvl, text)
		case p.list:
			d.w.para("• " + text)
		default:
			d.w.para(text)
		}
	}
}

// coreProps reads dc:title and dc:creator from docProps/core.xml.
func coreProps(data []byte) (title, author string) {
	dec := xml.NewDecoder(strings.NewReader(string(data)))
	dec.Strict = false
	var cur string
	for {
		tok, err := dec.Token()
		if err != nil {
			return title, author
		}
		switch t := tok.(type) {
		case xml.StartElement:
			cur = t.Name.Local
		case xml.CharData:
			switch cur {
			case "title":
				title += string(t)
			case "creator":
				author += string(t)
			}
		case xml.EndElement:
			cur = ""
		}
	}
}

func xmlAttr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
