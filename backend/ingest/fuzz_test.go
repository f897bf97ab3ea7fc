package ingest

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Fuzz targets for every parser. `go test` runs their seeds; fuzz one with
// `go test -fuzz FuzzDOCX ./backend/ingest`. Each checks that a reader
// never panics, returns either a catalogued error or a sane document, and
// keeps its invariants.

type reader func(ctx context.Context, doc *Document, data []byte) error

func fuzzReader(f *testing.F, name string, read reader, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc := &Document{Path: "/fuzz/" + name, Bytes: int64(len(data))}
		err := read(context.Background(), doc, data)
		if err != nil {
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("error outside the catalogue: %v", err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, name) || strings.ContainsAny(msg, "\n\r") {
				t.Fatalf("bad message %q", msg)
			}
			return
		}
		checkSane(t, doc)
	})
}

func FuzzDOCX(f *testing.F) {
	fuzzReader(f, "f.docx", readDOCX,
		docxOf(f, wPara("Heading1", "Title")+wPara("", "Body text.")),
		zipOf(f, "word/document.xml", `<w:document `+wNS+`><w:body><w:tbl><w:tr><w:tc>`+wPara("", "cell")+`</w:tc></w:tr></w:tbl></w:body></w:document>`),
		[]byte("PK\x03\x04"))
}

func FuzzEPUB(f *testing.F) {
	fuzzReader(f, "f.epub", readEPUB,
		epubOf(f, `<spine><itemref idref="c1"/><itemref idref="c2"/></spine>`),
		epubOf(f, ""),
		zipOf(f, "content.opf", `<package><manifest><item id="a" href="a.html"/></manifest><spine><itemref idref="a"/></spine></package>`, "a.html", "<p>x</p>"))
}

func FuzzEML(f *testing.F) {
	fuzzReader(f, "f.eml", readEML,
		mailOf([3]string{"a.txt", "text/plain", "attached"}),
		[]byte("From: a@b\nSubject: s\nContent-Type: text/html; charset=iso-8859-1\n\n<p>caf\xe9</p>\n"),
		[]byte("Subject: =?utf-8?q?broken"))
}

func FuzzMHTML(f *testing.F) {
	fuzzReader(f, "f.mhtml", readMHTML,
		[]byte("Subject: p\nContent-Type: multipart/related; boundary=x\n\n--x\nContent-Type: text/html\n\n<h1>T</h1><p>body</p>\n--x--\n"))
}

func FuzzHTML(f *testing.F) {
	fuzzReader(f, "f.html", readHTML,
		[]byte(htmlPage),
		[]byte("<p>unclosed <b>bold <i>italic"),
		[]byte("<table><tr><td>a<td>b</table><pre>\tx\n  y</pre><ul><li><p>item</ul>"),
		[]byte(nested("<div>", "</div>", 600, "deep")))
}

func FuzzText(f *testing.F) {
	md := func(ctx context.Context, doc *Document, data []byte) error {
		return readText(ctx, doc, data, ".md", nil)
	}
	fuzzReader(f, "f.md", md,
		[]byte("---\ntitle: T\n---\n# Head\n\ntext\n\nSub\n---\n```\n# not a heading\n```\n"),
		[]byte("\xff\xfeh\x00i\x00"),
		[]byte("caf\xe9\r\n\r\n\f"))
}

func FuzzCode(f *testing.F) {
	fuzzReader(f, "f.go", readCode,
		[]byte("package main\n\nfunc main() {\n\tprintln(1)\n}\n\ntype T struct{}\n"),
		[]byte("def f():\n    pass\nclass C:\n    pass\n"))
}

func FuzzGitignore(f *testing.F) {
	for _, s := range []string{"*.log", "/build/", "!keep", "a/**/b", "[a-", `\`, "**", "[!x]?"} {
		f.Add(s, "a/b/c.log")
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		r, ok := parseIgnore(pattern)
		if !ok {
			return
		}
		ignored([]*ignoreFile{{dir: "/r", rules: []ignoreRule{r}}}, "/r/"+path, false)
	})
}

func FuzzPDF(f *testing.F) {
	pdf := func(ctx context.Context, doc *Document, data []byte) error {
		if !isPDF(data) {
			return nil
		}
		err := readPDF(ctx, doc, data, Options{})
		if errors.Is(err, ErrNoText) {
			return nil
		}
		return err
	}
	f.Add(emptyPagesPDF(2))
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc := &Document{Path: "/fuzz/f.pdf"}
		err := pdf(context.Background(), doc, data)
		var ie *Error
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("error outside the catalogue: %v", err)
		}
	})
}
