package ingest

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// opfPackage is the part of an EPUB's package document Carrel reads.
type opfPackage struct {
	Metadata struct {
		Title   []string `xml:"title"`
		Creator []string `xml:"creator"`
	} `xml:"metadata"`
	Manifest struct {
		Items []struct {
			ID         string `xml:"id,attr"`
			Href       string `xml:"href,attr"`
			MediaType  string `xml:"media-type,attr"`
			Properties string `xml:"properties,attr"`
		} `xml:"item"`
	} `xml:"manifest"`
	Spine *struct {
		Toc   string `xml:"toc,attr"`
		Items []struct {
			IDRef string `xml:"idref,attr"`
		} `xml:"itemref"`
	} `xml:"spine"`
}

// readEPUB reads an EPUB book: its chapters in spine (reading) order, each
// starting a new page, their headings (or, for chapters without any, their
// table-of-contents labels) as the outline, title and author from its
// metadata.
func readEPUB(ctx context.Context, doc *Document, data []byte) error {
	a, err := openArchive(doc.Path, data, "EPUB")
	if err != nil {
		return err
	}
	opfPath, pkg, err := epubPackage(a, doc.Path)
	if err != nil {
		return err
	}
	base := path.Dir(opfPath)
	items := map[string]epubItem{}
	for _, it := range pkg.Manifest.Items {
		items[it.ID] = epubItem{resolveHref(base, it.Href), it.MediaType, it.Properties}
	}
	labels := epubLabels(a, items, pkg.Spine.Toc)

	w := newBuilder(MaxText)
	read, err := epubChapters(ctx, doc, a, pkg, items, labels, w)
	if err != nil {
		return err
	}
	if read == 0 {
		return newError(ErrCorrupt, doc.Path, "none of the chapters its spine lists can be found", nil)
	}
	if err := w.finish(doc, "the book has no text"); err != nil {
		return err
	}
	var title, author string
	if len(pkg.Metadata.Title) > 0 {
		title = pkg.Metadata.Title[0]
	}
	if len(pkg.Metadata.Creator) > 0 {
		author = strings.Join(pkg.Metadata.Creator, ", ")
	}
	doc.Author = cleanLine(author)
	doc.Title = chooseTitle(title, doc.Pages, doc.Path)
	return nil
}

// epubItem is a manifest entry: a file of the book, its path resolved in the archive.
type epubItem struct{ href, mediaType, props string }

// epubPackage finds and parses the book's package document, which must list a spine.
func epubPackage(a *archive, docPath string) (string, opfPackage, error) {
	var pkg opfPackage
	opfPath, err := epubRootfile(a)
	if err != nil {
		return "", pkg, err
	}
	raw, err := a.read(opfPath)
	if err != nil {
		return "", pkg, err
	}
	if raw == nil {
		return "", pkg, newError(ErrCorrupt, docPath, "its package document "+opfPath+" is missing", nil)
	}
	dec := xml.NewDecoder(bytes.NewReader(raw))
	dec.Strict = false
	if err := dec.Decode(&pkg); err != nil {
		return "", pkg, newError(ErrCorrupt, docPath, "its package document cannot be parsed", err)
	}
	if pkg.Spine == nil || len(pkg.Spine.Items) == 0 {
		return "", pkg, newError(ErrCorrupt, docPath, "it has no spine, the list of its chapters in reading order", nil)
	}
	return opfPath, pkg, nil
}

// epubLabels gives the table-of-contents labels by chapter file: from the EPUB 3
// navigation documents, else from the EPUB 2 NCX file the spine names (tocID).
func epubLabels(a *archive, items map[string]epubItem, tocID string) map[string]string {
	labels := map[string]string{}
	for _, it := range items {
		if strings.Contains(" "+it.props+" ", " nav ") {
			navLabels(a, it.href, labels)
		}
	}
	if toc, ok := items[tocID]; ok && len(labels) == 0 {
		ncxLabels(a, toc.href, labels)
	}
	return labels
}

// epubChapters writes the spine's chapters to w in reading order, each as a new page,
// and returns how many it read.
func epubChapters(ctx context.Context, doc *Document, a *archive, pkg opfPackage, items map[string]epubItem, labels map[string]string, w *builder) (int, error) {
	read := 0
	for i, ref := range pkg.Spine.Items {
		if err := ctx.Err(); err != nil {
			return read, err
		}
		it, ok := items[ref.IDRef]
		if !ok || (it.mediaType != "" && !strings.Contains(it.mediaType, "html") && !strings.Contains(it.mediaType, "xml")) {
			continue
		}
		page, err := a.read(it.href)
		if err != nil {
			return read, err
		}
		if page == nil {
			doc.Warnings = append(doc.Warnings, fmt.Sprintf("Chapter %d (%s) is missing from the book.", i+1, it.href))
			continue
		}
		root, err := parseHTML(page, "text/html; charset=utf-8")
		if err != nil {
			continue
		}
		read++
		w.chapter()
		if label := labels[it.href]; label != "" && !hasHeading(root, 0) {
			w.heading(1, label)
		}
		extractHTML(w, root)
		if w.full {
			break
		}
	}
	return read, nil
}

// epubRootfile finds the package document through META-INF/container.xml,
// else the first .opf file in the archive.
func epubRootfile(a *archive) (string, error) {
	data, err := a.read("META-INF/container.xml")
	if err != nil {
		return "", err
	}
	if data != nil {
		var c struct {
			Rootfiles []struct {
				FullPath  string `xml:"full-path,attr"`
				MediaType string `xml:"media-type,attr"`
			} `xml:"rootfiles>rootfile"`
		}
		dec := xml.NewDecoder(bytes.NewReader(data))
		dec.Strict = false
		if dec.Decode(&c) == nil {
			for _, r := range c.Rootfiles {
				if r.FullPath != "" && (r.MediaType == "" || strings.Contains(r.MediaType, "oebps")) {
					return strings.TrimPrefix(path.Clean("/"+r.FullPath), "/"), nil
				}
			}
		}
	}
	for name := range a.files {
		if strings.HasSuffix(strings.ToLower(name), ".opf") {
			return name, nil
		}
	}
	if a.lookup("word/document.xml") != nil {
		return "", newError(ErrCorrupt, a.path, "it is a Word document named .epub; rename it to .docx", nil)
	}
	return "", newError(ErrCorrupt, a.path, "it has no package document (content.opf), so it is not an EPUB book", nil)
}

// resolveHref resolves a manifest or TOC reference against the folder of
// the file that makes it, without its #fragment.
func resolveHref(base, href string) string {
	href, _, _ = strings.Cut(href, "#")
	if u, err := url.PathUnescape(href); err == nil {
		href = u
	}
	return strings.TrimPrefix(path.Clean("/"+path.Join(base, href)), "/")
}

// ncxLabels reads an EPUB 2 toc.ncx: the first label naming each file.
func ncxLabels(a *archive, name string, labels map[string]string) {
	data, err := a.read(name)
	if err != nil || data == nil {
		return
	}
	base := path.Dir(name)
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	var text strings.Builder
	inText := false
	label := ""
	for {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "navPoint":
				label = ""
			case "text":
				inText = true
				text.Reset()
			case "content":
				if src := xmlAttr(t, "src"); src != "" && label != "" {
					if f := resolveHref(base, src); labels[f] == "" {
						labels[f] = label
					}
				}
			}
		case xml.CharData:
			if inText {
				text.Write(t)
			}
		case xml.EndElement:
			if t.Name.Local == "text" {
				inText = false
				label = cleanLine(text.String())
			}
		}
	}
}

// navLabels reads an EPUB 3 navigation document's table of contents.
func navLabels(a *archive, name string, labels map[string]string) {
	data, err := a.read(name)
	if err != nil || data == nil {
		return
	}
	root, err := parseHTML(data, "text/html; charset=utf-8")
	if err != nil {
		return
	}
	base := path.Dir(name)
	var rec func(n *html.Node, inTOC bool, depth int)
	rec = func(n *html.Node, inTOC bool, depth int) {
		if depth > 256 {
			return
		}
		if n.Type == html.ElementNode {
			if n.DataAtom == atom.Nav && attr(n, "epub:type") != "" {
				inTOC = strings.Contains(attr(n, "epub:type"), "toc")
			}
			if inTOC && n.DataAtom == atom.A {
				if href := attr(n, "href"); href != "" {
					if f := resolveHref(base, href); labels[f] == "" {
						labels[f] = cleanLine(textOf(n))
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c, inTOC, depth+1)
		}
	}
	rec(root, false, 0)
}

// hasHeading reports whether the page under n has an <h1>…<h6>.
func hasHeading(n *html.Node, depth int) bool {
	if n.Type == html.ElementNode {
		if _, ok := headingLevel[n.DataAtom]; ok && strings.TrimSpace(textOf(n)) != "" {
			return true
		}
	}
	if depth > 256 {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if hasHeading(c, depth+1) {
			return true
		}
	}
	return false
}
