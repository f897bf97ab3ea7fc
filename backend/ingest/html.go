package ingest

import (
	"bytes"
	"context"
	"io"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// readHTML reads a web page: the text of its main content (navigation,
// headers, footers, scripts and styles left out), its headings as the
// outline, its title from <title> or the first <h1>.
func readHTML(ctx context.Context, doc *Document, data []byte) error {
	root, err := parseHTML(data, "")
	if err := ctx.Err(); err != nil {
		return err
	}
	w := newBuilder(MaxText)
	var page pageInfo
	if err != nil {
		// Too deeply nested for a tree: read its text token by token.
		page = tokenText(w, data)
		doc.Warnings = append(doc.Warnings, "The page's HTML could not be parsed ("+shortError(err)+"); its text was read without its layout.")
	} else {
		page = extractHTML(w, root)
	}
	if err := w.finish(doc, "no text in the page"); err != nil {
		return err
	}
	doc.Author = cleanLine(page.author)
	doc.Title = chooseTitle(page.title, doc.Pages, doc.Path)
	doc.URL = page.url
	return nil
}

// parseHTML decodes data from its declared or sniffed character set (or
// contentType's) and parses it.
func parseHTML(data []byte, contentType string) (*html.Node, error) {
	r, err := charset.NewReader(bytes.NewReader(data), contentType)
	if err != nil {
		r = bytes.NewReader(data)
	}
	return html.ParseWithOptions(io.LimitReader(r, MaxText), html.ParseOptionEnableScripting(false))
}

// tokenText writes the text of an HTML page that cannot be parsed into a
// tree, scripts and styles left out, a paragraph per block element.
func tokenText(w *builder, data []byte) pageInfo {
	var info pageInfo
	r, err := charset.NewReader(bytes.NewReader(data), "")
	if err != nil {
		r = bytes.NewReader(data)
	}
	z := html.NewTokenizer(io.LimitReader(r, MaxText))
	var buf strings.Builder
	skip, inTitle := 0, false
	for {
		switch z.Next() {
		case html.ErrorToken:
			w.para(buf.String())
			return info
		case html.TextToken:
			switch {
			case inTitle:
				info.title += string(z.Text())
			case skip == 0:
				buf.WriteString(" " + string(z.Text()) + " ")
			}
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			start := z.Token().Type == html.StartTagToken
			switch {
			case a == atom.Script || a == atom.Style || a == atom.Nav || a == atom.Header || a == atom.Footer:
				if start {
					skip++
				} else {
					skip = max(skip-1, 0)
				}
			case a == atom.Title:
				inTitle = start
			case blockAtoms[a] || headingLevel[a] > 0 || a == atom.Li || a == atom.Tr || a == atom.Br:
				if buf.Len() > 0 {
					w.para(buf.String())
					buf.Reset()
				}
			}
		}
	}
}

// pageInfo is what a page says about itself.
type pageInfo struct {
	title, h1, author string
	// url is the page's rel=canonical link, when it is a web address.
	url string
}

// extractHTML writes the main content of the page under root to w.
func extractHTML(w *builder, root *html.Node) pageInfo {
	var info pageInfo
	var body *html.Node
	var mains []*html.Node
	var find func(n *html.Node, depth int)
	find = func(n *html.Node, depth int) {
		if n.Type == html.ElementNode {
			switch n.DataAtom {
			case atom.Title:
				if info.title == "" {
					info.title = textOf(n)
				}
			case atom.Meta:
				if strings.EqualFold(attr(n, "name"), "author") && info.author == "" {
					info.author = attr(n, "content")
				}
			case atom.Link:
				if info.url == "" && hasToken(attr(n, "rel"), "canonical") {
					info.url = webAddress(attr(n, "href"))
				}
			case atom.Body:
				body = n
			case atom.Main, atom.Article:
				mains = append(mains, n)
			case atom.H1:
				if info.h1 == "" && !skipped(n) {
					info.h1 = textOf(n)
				}
			}
			if attr(n, "role") == "main" {
				mains = append(mains, n)
			}
		}
		if depth > 512 {
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			find(c, depth+1)
		}
	}
	find(root, 0)

	// The main content: the first <main>, role="main" or <article> holding
	// a fair share of the body's text, else the whole body.
	content := body
	if content == nil {
		content = root
	}
	if len(mains) > 0 {
		total := len(strings.TrimSpace(textOf(content)))
		for _, m := range mains {
			if n := len(strings.TrimSpace(textOf(m))); n > 0 && n*4 >= total {
				content = m
				break
			}
		}
	}
	x := &htmlWriter{w: w}
	x.walk(content, 0)
	x.flush()

	// "Article name | Site" titles: the page's own <h1> is better.
	if h1 := cleanLine(info.h1); h1 != "" && (info.title == "" || strings.Contains(cleanLine(info.title), h1)) {
		info.title = h1
	}
	return info
}

// htmlWriter turns elements into the builder's headings and paragraphs.
type htmlWriter struct {
	w   *builder
	buf strings.Builder // the paragraph being gathered
}

func (x *htmlWriter) flush() {
	if strings.TrimSpace(x.buf.String()) == "•" {
		return // a list item's bullet waits for its text
	}
	if x.buf.Len() > 0 {
		x.w.para(x.buf.String())
		x.buf.Reset()
	}
}

// block elements end the paragraph before and after them.
var blockAtoms = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Blockquote: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Dt: true, atom.Dd: true,
	atom.Table: true, atom.Tbody: true, atom.Thead: true, atom.Tfoot: true, atom.Caption: true,
	atom.Figure: true, atom.Figcaption: true, atom.Address: true, atom.Hr: true, atom.Details: true,
	atom.Summary: true, atom.Center: true, atom.Body: true, atom.Html: true,
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

func (x *htmlWriter) walk(n *html.Node, depth int) {
	switch n.Type {
	case html.TextNode:
		d := n.Data
		if d == "" {
			return
		}
		if isSpaceByte(d[0]) || d[0] == '\r' {
			x.buf.WriteByte(' ')
		}
		x.buf.WriteString(strings.Join(strings.Fields(d), " "))
		if c := d[len(d)-1]; isSpaceByte(c) || c == '\r' {
			x.buf.WriteByte(' ')
		}
		return
	case html.ElementNode:
		if skipped(n) {
			return
		}
	case html.DocumentNode:
	default:
		return
	}
	if depth > 512 {
		return
	}
	a := n.DataAtom
	if lvl, ok := headingLevel[a]; ok {
		x.flush()
		x.w.heading(lvl, textOf(n))
		return
	}
	switch a {
	case atom.Pre:
		x.flush()
		x.w.pre(textOf(n))
		return
	case atom.Br:
		x.buf.WriteByte('\n')
		return
	case atom.Li:
		x.flush()
		x.buf.WriteString("• ")
	case atom.Tr:
		x.flush()
		var cells []string
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Td || c.DataAtom == atom.Th) {
				if t := cleanLine(textOf(c)); t != "" {
					cells = append(cells, t)
				}
			}
		}
		x.w.para(strings.Join(cells, " | "))
		return
	case atom.Img:
		if alt := cleanLine(attr(n, "alt")); alt != "" && len(alt) > 3 {
			x.buf.WriteString(" " + alt + " ")
		}
		return
	}
	block := blockAtoms[a] || a == atom.Li
	if block && a != atom.Li {
		x.flush()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		x.walk(c, depth+1)
	}
	if block {
		x.flush()
	}
}

// skipAtoms are elements that are never content.
var skipAtoms = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Math: false, atom.Nav: true, atom.Header: true, atom.Footer: true, atom.Aside: true,
	atom.Form: true, atom.Iframe: true, atom.Button: true, atom.Select: true, atom.Input: true,
	atom.Textarea: true, atom.Head: true, atom.Object: true, atom.Embed: true, atom.Canvas: true,
	atom.Dialog: true, atom.Menu: true,
}

// chromeWords in an element's id or class mark site chrome.
var chromeWords = map[string]bool{
	"nav": true, "navbar": true, "navigation": true, "menu": true, "sidebar": true, "breadcrumb": true,
	"breadcrumbs": true, "footer": true, "site-header": true, "site-footer": true, "cookie-banner": true,
	"cookies": true, "skip-link": true, "toc-sidebar": true, "share": true, "social": true, "advert": true, "ads": true,
}

// skipped reports whether element n is navigation, chrome or not text.
func skipped(n *html.Node) bool {
	if skipAtoms[n.DataAtom] {
		return true
	}
	if _, ok := attrOK(n, "hidden"); ok || attr(n, "aria-hidden") == "true" {
		return true
	}
	switch attr(n, "role") {
	case "navigation", "banner", "contentinfo", "search", "complementary", "menu", "menubar":
		return true
	}
	if strings.Contains(strings.ReplaceAll(attr(n, "style"), " ", ""), "display:none") {
		return true
	}
	for _, w := range strings.Fields(strings.ToLower(attr(n, "class") + " " + attr(n, "id"))) {
		if chromeWords[w] {
			return true
		}
	}
	return false
}

func attrOK(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && strings.EqualFold(a.Key, key) {
			return a.Val, true
		}
	}
	return "", false
}

func attr(n *html.Node, key string) string {
	v, _ := attrOK(n, key)
	return v
}

// textOf is the text under n, scripts and styles left out.
func textOf(n *html.Node) string {
	var b strings.Builder
	var rec func(n *html.Node, depth int)
	rec = func(n *html.Node, depth int) {
		if depth > 512 || b.Len() > MaxText {
			return
		}
		switch {
		case n.Type == html.TextNode:
			b.WriteString(n.Data)
		case n.Type == html.ElementNode && (n.DataAtom == atom.Script || n.DataAtom == atom.Style || n.DataAtom == atom.Template):
			return
		case n.Type == html.ElementNode && n.DataAtom == atom.Br:
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c, depth+1)
		}
	}
	rec(n, 0)
	return b.String()
}

// hasToken reports whether the space-separated list s holds tok, in any case.
func hasToken(s, tok string) bool {
	for _, f := range strings.Fields(s) {
		if strings.EqualFold(f, tok) {
			return true
		}
	}
	return false
}

// webAddress is s when it is an absolute http or https URL, else "".
func webAddress(s string) string {
	s = strings.TrimSpace(s)
	if u, err := url.Parse(s); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return u.String()
	}
	return ""
}
