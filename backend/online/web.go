package online

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"net/url"
	"path"
	"strings"

	readability "codeberg.org/readeck/go-readability/v2"
	xhtml "golang.org/x/net/html"
	"golang.org/x/net/html/atom"
	"golang.org/x/net/html/charset"
)

// acceptDocs is what a page fetch accepts: pages first, then the documents ingest reads.
const acceptDocs = "text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.9,application/epub+zip;q=0.8," +
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document;q=0.8,text/plain;q=0.7,text/markdown;q=0.7,*/*;q=0.1"

// minArticleText is the least text (characters) a page's main content must have not to
// be taken for a sign-in form when the page asks for a password.
const minArticleText = 400

// page reads a web page's main content into a snapshot, or takes a document served at
// the URL as it is.
func (c *Client) page(ctx context.Context, u *url.URL) (*Source, error) {
	r, err := c.fetch(ctx, u, acceptDocs, c.opts.Limits.MaxBytes)
	if err != nil {
		return nil, err
	}
	kind, what := sniff(r.Body, r.Header.Get("Content-Type"))
	final := r.URL.String()
	if kind == "" {
		return nil, newError(ErrContentType, final, what, nil)
	}
	if kind != typeHTML {
		if len(bytes.TrimSpace(r.Body)) == 0 {
			return nil, newError(ErrNoContent, final, "an empty answer", nil)
		}
		return &Source{URL: final, Kind: KindFile, Title: fileTitle(r.URL), Data: r.Body, Ext: extOf[kind]}, nil
	}
	if lim := c.opts.Limits.MaxPageBytes; int64(len(r.Body)) > lim {
		return nil, newError(ErrTooLarge, final, "a page over "+humanBytes(lim), nil)
	}
	return snapshotPage(r.URL, r.Body, r.Header.Get("Content-Type"))
}

var extOf = map[string]string{typePDF: ".pdf", typeEPUB: ".epub", typeDOCX: ".docx", typeText: ".txt", typeMD: ".md"}

// fileTitle names a document served at u by the last part of its path.
func fileTitle(u *url.URL) string {
	if b := path.Base(u.Path); b != "/" && b != "." {
		if s, err := url.PathUnescape(b); err == nil {
			return s
		}
		return b
	}
	return u.Host
}

// snapshotPage keeps the main content of the page at final (readability's choice:
// navigation, ads and comments left out) as a small, self-contained HTML file: the
// title, byline and text, with no scripts, styles, images or embeds, so that opening it
// later reaches nothing online. It carries the page's canonical URL as
// <link rel="canonical">, where ingest reads it back.
func snapshotPage(final *url.URL, body []byte, contentType string) (*Source, error) {
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		r = bytes.NewReader(body)
	}
	doc, err := xhtml.ParseWithOptions(r, xhtml.ParseOptionEnableScripting(false))
	if err != nil {
		return nil, newError(ErrNoContent, final.String(), "the HTML cannot be parsed", err)
	}
	canonical := canonicalURL(doc, final)
	password := hasPassword(doc)
	art, err := readability.FromDocument(doc, final)
	text := ""
	if err == nil && art.Node != nil {
		var b strings.Builder
		_ = art.RenderText(&b)
		text = strings.TrimSpace(b.String())
	}
	if password && len(text) < minArticleText {
		return nil, newError(ErrLogin, final.String(), "the page is a sign-in form", nil)
	}
	if text == "" {
		return nil, newError(ErrNoContent, final.String(), "", err)
	}
	clean(art.Node)
	var content bytes.Buffer
	if err := xhtml.Render(&content, art.Node); err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", final, err)
	}
	title := strings.TrimSpace(art.Title())
	if title == "" {
		title = final.Host + final.Path
	}
	var out bytes.Buffer
	esc := html.EscapeString
	fmt.Fprintf(&out, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">\n<title>%s</title>\n", esc(art.Language()), esc(title))
	fmt.Fprintf(&out, "<link rel=\"canonical\" href=\"%s\">\n", esc(canonical))
	// No fetch time or anything else that changes from one fetch to the next: the
	// snapshot's bytes are the document's identity, so the same page must give the same.
	out.WriteString("<meta name=\"generator\" content=\"Carrel snapshot\">\n")
	if by := strings.TrimSpace(art.Byline()); by != "" {
		fmt.Fprintf(&out, "<meta name=\"author\" content=\"%s\">\n", esc(by))
	}
	fmt.Fprintf(&out, "</head><body><article>\n<h1>%s</h1>\n", esc(title))
	if site := strings.TrimSpace(art.SiteName()); site != "" {
		fmt.Fprintf(&out, "<p class=\"carrel-site\">%s</p>\n", esc(site))
	}
	out.Write(content.Bytes())
	out.WriteString("\n</article></body></html>\n")
	return &Source{URL: canonical, Kind: KindWeb, Title: title, Data: out.Bytes(), Ext: ".html"}, nil
}

// canonicalURL is the page's rel=canonical link when it is an http(s) URL on the same
// site (a page cannot claim another site's identity), else the URL after redirects.
func canonicalURL(doc *xhtml.Node, final *url.URL) string {
	var href string
	walk(doc, func(n *xhtml.Node) bool {
		if n.DataAtom == atom.Link && href == "" {
			for _, rel := range strings.Fields(strings.ToLower(attr(n, "rel"))) {
				if rel == "canonical" {
					href = attr(n, "href")
				}
			}
		}
		return n.DataAtom != atom.Body
	})
	if href != "" {
		if c, err := final.Parse(strings.TrimSpace(href)); err == nil && (c.Scheme == "http" || c.Scheme == "https") &&
			site(c.Hostname()) == site(final.Hostname()) {
			c.Fragment = ""
			return c.String()
		}
	}
	f := *final
	f.Fragment = ""
	return f.String()
}

func site(host string) string { return strings.TrimPrefix(strings.ToLower(host), "www.") }

// hasPassword reports whether the page has a password field.
func hasPassword(doc *xhtml.Node) bool {
	found := false
	walk(doc, func(n *xhtml.Node) bool {
		if n.DataAtom == atom.Input && strings.EqualFold(attr(n, "type"), "password") {
			found = true
		}
		return !found
	})
	return found
}

// dropped are the elements a snapshot leaves out: what runs, what loads something from
// the network when shown, and what is a control rather than text.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Img: true, atom.Picture: true, atom.Source: true,
	atom.Video: true, atom.Audio: true, atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Svg: true,
	atom.Form: true, atom.Input: true, atom.Button: true, atom.Select: true, atom.Textarea: true,
	atom.Link: true, atom.Meta: true, atom.Canvas: true, atom.Template: true, atom.Track: true,
}

// kept are the attributes a snapshot keeps; href only when it is a web address.
var kept = map[string]bool{"href": true, "colspan": true, "rowspan": true, "lang": true, "dir": true}

// clean strips n's tree down to text and structure (see dropped and kept).
func clean(n *xhtml.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		switch {
		case c.Type == xhtml.CommentNode:
			n.RemoveChild(c)
		case c.Type == xhtml.ElementNode && dropped[c.DataAtom]:
			n.RemoveChild(c)
		default:
			if c.Type == xhtml.ElementNode {
				attrs := c.Attr[:0]
				for _, a := range c.Attr {
					if !kept[a.Key] || a.Key == "href" && !webLink(a.Val) {
						continue
					}
					attrs = append(attrs, a)
				}
				c.Attr = attrs
			}
			clean(c)
		}
		c = next
	}
}

func webLink(s string) bool {
	u, err := url.Parse(strings.TrimSpace(s))
	return err == nil && (u.Scheme == "http" || u.Scheme == "https")
}

// walk visits n's tree in document order while f returns true for the node visited.
func walk(n *xhtml.Node, f func(*xhtml.Node) bool) bool {
	if n.Type == xhtml.ElementNode && !f(n) {
		return false
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if !walk(c, f) {
			return false
		}
	}
	return true
}

func attr(n *xhtml.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}
