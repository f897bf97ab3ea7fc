package ingest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/document"
)

// zipOf builds a zip archive of name, content pairs, in order.
func zipOf(tb testing.TB, files ...string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for i := 0; i+1 < len(files); i += 2 {
		method := zip.Deflate
		if files[i] == "mimetype" {
			method = zip.Store
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: files[i], Method: method})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := w.Write([]byte(files[i+1])); err != nil {
			tb.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func ingestBytes(tb testing.TB, name string, data []byte) (*Document, error) {
	tb.Helper()
	return File(context.Background(), writeFile(tb, name, data), nil)
}

func mustIngest(tb testing.TB, name string, data []byte) *Document {
	tb.Helper()
	doc, err := ingestBytes(tb, name, data)
	if err != nil {
		tb.Fatalf("%s: %v", name, err)
	}
	return doc
}

func allText(doc *Document) string {
	var b strings.Builder
	for _, p := range doc.Pages {
		b.WriteString(p.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func outlineTitles(doc *Document) []string {
	var out []string
	for _, h := range doc.Outline {
		out = append(out, h.Title)
	}
	return out
}

const wNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

func wPara(style, text string) string {
	ppr := ""
	if style != "" {
		ppr = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return `<w:p>` + ppr + `<w:r><w:t xml:space="preserve">` + text + `</w:t></w:r></w:p>`
}

// docxOf builds a Word document whose body is the given paragraphs XML.
func docxOf(tb testing.TB, body string) []byte {
	return zipOf(tb,
		"[Content_Types].xml", `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
		"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document `+wNS+`><w:body>`+body+`</w:body></w:document>`,
		"word/styles.xml", `<?xml version="1.0"?><w:styles `+wNS+`>
			<w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>
			<w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style>
			<w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/><w:basedOn w:val="berschrift1"/></w:style>
			<w:style w:type="paragraph" w:styleId="MyChapter"><w:name w:val="My Chapter"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>
		</w:styles>`,
		"docProps/core.xml", `<?xml version="1.0"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Photosynthesis Notes</dc:title><dc:creator>Ada Student</dc:creator></cp:coreProperties>`,
	)
}

// verifies a Word document keeps its text, tables and headings (by style
// name, whatever the style id's language, and by outline level).
func TestDOCX(t *testing.T) {
	body := wPara("Titel", "Photosynthesis") +
		wPara("berschrift1", "Light reactions") +
		wPara("", "Chlorophyll absorbs light.") +
		`<w:p><w:r><w:t>Water is </w:t></w:r><w:r><w:t>split</w:t><w:tab/><w:t>here.</w:t><w:br/><w:t>New line.</w:t></w:r><w:del><w:r><w:delText>deleted words</w:delText></w:r></w:del></w:p>` +
		wPara("berschrift2", "Photosystem II") +
		`<w:tbl><w:tr><w:tc>` + wPara("", "Stage") + `</w:tc><w:tc>` + wPara("", "Product") + `</w:tc></w:tr>` +
		`<w:tr><w:tc>` + wPara("", "Calvin cycle") + `</w:tc><w:tc>` + wPara("", "Glucose") + `</w:tc></w:tr></w:tbl>` +
		wPara("MyChapter", "Dark reactions") +
		wPara("Heading3", "Rubisco") + // no such style id: its English name is used
		`<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/></w:numPr></w:pPr><w:r><w:t>Carbon fixation</w:t></w:r></w:p>`
	doc := mustIngest(t, "notes.docx", docxOf(t, body))
	if doc.Kind != document.KindDOCX || doc.Title != "Photosynthesis Notes" || doc.Author != "Ada Student" {
		t.Errorf("metadata: kind %q title %q author %q", doc.Kind, doc.Title, doc.Author)
	}
	text := allText(doc)
	for _, want := range []string{"Chlorophyll absorbs light.", "Water is split here.\nNew line.", "Stage | Product", "Calvin cycle | Glucose", "• Carbon fixation"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "deleted words") {
		t.Error("deleted text was kept")
	}
	want := []Heading{{"Photosynthesis", 1, 1}, {"Light reactions", 1, 1}, {"Photosystem II", 1, 2}, {"Dark reactions", 1, 1}, {"Rubisco", 1, 3}}
	if !slices.Equal(doc.Outline, want) {
		t.Errorf("outline %+v, want %+v", doc.Outline, want)
	}
}

// verifies a Word document without properties or styles is titled from its
// Title paragraph, and one without a body is named damaged.
func TestDOCXMinimal(t *testing.T) {
	data := zipOf(t, "word/document.xml", `<w:document `+wNS+`><w:body>`+wPara("Title", "Essay on Rivers")+wPara("", "Rivers flow.")+`</w:body></w:document>`)
	doc := mustIngest(t, "essay.docx", data)
	if doc.Title != "Essay on Rivers" {
		t.Errorf("title %q", doc.Title)
	}
	_, err := ingestBytes(t, "empty.docx", zipOf(t, "word/document.xml", `<w:document `+wNS+`><w:body></w:body></w:document>`))
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("no paragraphs: %v", err)
	}
}

const htmlPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Mitosis explained | BioSite</title>
<meta name="author" content="Dr. Cell">
<style>body { color: red }</style><script>var secret = "script text";</script></head>
<body>
<header><a href="/">BioSite home</a></header>
<nav><ul><li><a href="/a">Nav link one</a></li><li>Nav link two</li></ul></nav>
<div class="sidebar">Sidebar junk</div>
<main>
<h1>Mitosis explained</h1>
<p>Mitosis is <b>cell</b> <i>division</i> that yields two identical nuclei.</p>
<h2>Phases</h2>
<ul><li>Prophase</li><li>Metaphase</li></ul>
<table><tr><th>Phase</th><th>Event</th></tr><tr><td>Anaphase</td><td>Chromatids separate</td></tr></table>
<pre>code  keeps
    its indentation</pre>
<p hidden>Hidden paragraph</p>
<div role="navigation">Role nav</div>
<p>Line one<br>Line two</p>
</main>
<aside>Related articles</aside>
<footer>Copyright footer</footer>
</body></html>`

// verifies a web page yields its main content, not its navigation, with
// its headings as the outline and its title from <h1>/<title>.
func TestHTML(t *testing.T) {
	doc := mustIngest(t, "mitosis.html", []byte(htmlPage))
	if doc.Kind != document.KindHTML || doc.Title != "Mitosis explained" || doc.Author != "Dr. Cell" {
		t.Errorf("kind %q title %q author %q", doc.Kind, doc.Title, doc.Author)
	}
	text := allText(doc)
	for _, want := range []string{"Mitosis is cell division that yields two identical nuclei.", "• Prophase", "Phase | Event", "Anaphase | Chromatids separate", "code  keeps\n    its indentation", "Line one\nLine two"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	for _, bad := range []string{"BioSite home", "Nav link", "Sidebar", "script text", "color: red", "Hidden", "Role nav", "Related", "Copyright"} {
		if strings.Contains(text, bad) {
			t.Errorf("text keeps %q:\n%s", bad, text)
		}
	}
	if got := outlineTitles(doc); !slices.Equal(got, []string{"Mitosis explained", "Phases"}) {
		t.Errorf("outline %q", got)
	}
	// No <main>: the body less its chrome; a legacy charset is decoded.
	latin := []byte("<html><head><meta charset=\"iso-8859-1\"><title>Caf\xe9</title></head><body><nav>menu</nav><p>Cr\xe8me br\xfbl\xe9e recipe</p></body></html>")
	doc = mustIngest(t, "cafe.htm", latin)
	if doc.Title != "Café" || !strings.Contains(allText(doc), "Crème brûlée recipe") || strings.Contains(allText(doc), "menu") {
		t.Errorf("latin-1 page: %q %q", doc.Title, allText(doc))
	}
}

// verifies a page saved whole as MHTML is read from its HTML part.
func TestMHTML(t *testing.T) {
	mht := "From: <Saved by Blink>\r\nSubject: Mitosis explained | BioSite\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/related; type=\"text/html\"; boundary=\"----B\"\r\n\r\n" +
		"------B\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\nContent-Location: https://example.org/m\r\n\r\n" +
		strings.ReplaceAll(strings.ReplaceAll(htmlPage, "=", "=3D"), "\n", "=\r\n") + "\r\n" +
		"------B\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n------B--\r\n"
	doc := mustIngest(t, "mitosis.mhtml", []byte(mht))
	text := allText(doc)
	if doc.Title != "Mitosis explained" || !strings.Contains(text, "two identical nuclei") || strings.Contains(text, "Nav link") {
		t.Errorf("mhtml: %q\n%s", doc.Title, text)
	}
}

// mailOf builds a multipart mail with a plain and an HTML alternative and
// the given attachments (name, content type, data).
func mailOf(attachments ...[3]string) []byte {
	var b strings.Builder
	b.WriteString("From: =?UTF-8?Q?J=C3=BCrgen_M=C3=BCller?= <jm@example.org>\r\n" +
		"To: Ada <ada@example.org>\r\nDate: Mon, 2 Jun 2025 10:00:00 +0200\r\n" +
		"Subject: =?UTF-8?B?" + base64.StdEncoding.EncodeToString([]byte("Exam notes — chapter 3")) + "?=\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"mixed\"\r\n\r\n" +
		"--mixed\r\nContent-Type: multipart/alternative; boundary=\"alt\"\r\n\r\n" +
		"--alt\r\nContent-Type: text/plain; charset=iso-8859-1\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
		"Hi Ada,\r\nthe exam covers gr=FCne Chemie and the Krebs cycle.\r\n\r\n" +
		"--alt\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>HTML alternative only</p>\r\n--alt--\r\n")
	for _, a := range attachments {
		b.WriteString("--mixed\r\nContent-Type: " + a[1] + "; name=\"" + a[0] + "\"\r\n" +
			"Content-Disposition: attachment; filename=\"" + a[0] + "\"\r\nContent-Transfer-Encoding: base64\r\n\r\n")
		enc := base64.StdEncoding.EncodeToString([]byte(a[2]))
		for len(enc) > 76 {
			b.WriteString(enc[:76] + "\r\n")
			enc = enc[76:]
		}
		b.WriteString(enc + "\r\n")
	}
	b.WriteString("--mixed--\r\n")
	return []byte(b.String())
}

// verifies a mail yields its headers and plain body, and hands back its
// attachments decoded.
func TestEML(t *testing.T) {
	pdf, err := os.ReadFile(corpusFile(t, "Walden.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	data := mailOf([3]string{"walden.pdf", "application/pdf", string(pdf)}, [3]string{"../../etc/notes.txt", "text/plain", "Attached notes."})
	doc := mustIngest(t, "exam.eml", data)
	if doc.Kind != document.KindEmail || doc.Title != "Exam notes — chapter 3" || doc.Author != "Jürgen Müller" {
		t.Errorf("kind %q title %q author %q", doc.Kind, doc.Title, doc.Author)
	}
	text := allText(doc)
	for _, want := range []string{"From: Jürgen Müller <jm@example.org>", "Subject: Exam notes — chapter 3", "Date: Mon, 2 Jun 2025", "grüne Chemie and the Krebs cycle", "Attachments: walden.pdf, notes.txt"} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "HTML alternative") {
		t.Error("both alternatives were kept")
	}
	if len(doc.Attachments) != 2 || doc.Attachments[0].Name != "walden.pdf" || !bytes.Equal(doc.Attachments[0].Data, pdf) ||
		doc.Attachments[1].Name != "notes.txt" || string(doc.Attachments[1].Data) != "Attached notes." {
		t.Errorf("attachments: %d", len(doc.Attachments))
		for _, a := range doc.Attachments {
			t.Logf("  %q %d bytes", a.Name, len(a.Data))
		}
	}
	// An HTML-only mail is read through the HTML extractor.
	htmlOnly := "From: a@example.org\nSubject: Only HTML\nContent-Type: text/html\n\n<html><body><nav>menu</nav><p>Body of the mail</p></body></html>\n"
	doc = mustIngest(t, "html.eml", []byte(htmlOnly))
	if text := allText(doc); !strings.Contains(text, "Body of the mail") || strings.Contains(text, "menu") {
		t.Errorf("html mail: %q", text)
	}
}

const epubContainer = `<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles></container>`

func epubOf(tb testing.TB, spine string, extra ...string) []byte {
	opf := `<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>A Short Book</dc:title><dc:creator>Jane Author</dc:creator></metadata>
<manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/><item id="c1" href="text/ch%201.xhtml" media-type="application/xhtml+xml"/><item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/><item id="css" href="style.css" media-type="text/css"/></manifest>` + spine + `</package>`
	files := []string{"mimetype", "application/epub+zip", "META-INF/container.xml", epubContainer, "OEBPS/content.opf", opf,
		"OEBPS/nav.xhtml", `<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops"><body><nav epub:type="toc"><ol><li><a href="text/ch%201.xhtml">Chapter One: Beginnings</a></li><li><a href="text/ch2.xhtml#s">Chapter Two</a></li></ol></nav></body></html>`,
		"OEBPS/text/ch 1.xhtml", `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>c1</title></head><body><p>It was a bright cold day in April.</p><p>The clocks were striking thirteen.</p></body></html>`,
		"OEBPS/text/ch2.xhtml", `<html xmlns="http://www.w3.org/1999/xhtml"><body><h1>Second Chapter</h1><p>Everything happened at once.</p><h2>A section</h2><p>Then it stopped.</p></body></html>`,
		"OEBPS/style.css", "p { margin: 0 }"}
	return zipOf(tb, append(files, extra...)...)
}

// verifies an EPUB is read in spine order, each chapter on its own pages,
// chapters as sections (their headings, else their TOC labels).
func TestEPUB(t *testing.T) {
	// Spine order differs from manifest order on purpose.
	doc := mustIngest(t, "book.epub", epubOf(t, `<spine><itemref idref="c2"/><itemref idref="c1"/></spine>`))
	if doc.Kind != document.KindEPUB || doc.Title != "A Short Book" || doc.Author != "Jane Author" {
		t.Errorf("kind %q title %q author %q", doc.Kind, doc.Title, doc.Author)
	}
	if len(doc.Pages) != 2 || !strings.HasPrefix(doc.Pages[0].Text, "Second Chapter") || !strings.Contains(doc.Pages[1].Text, "bright cold day") {
		t.Fatalf("pages: %+v", doc.Pages)
	}
	want := []Heading{{"Second Chapter", 1, 1}, {"A section", 1, 2}, {"Chapter One: Beginnings", 2, 1}}
	if !slices.Equal(doc.Outline, want) {
		t.Errorf("outline %+v, want %+v", doc.Outline, want)
	}
}

// verifies an EPUB 2 book with only an NCX table of contents gets its labels.
func TestEPUBNCX(t *testing.T) {
	opf := `<package xmlns="http://www.idpf.org/2007/opf" version="2.0"><metadata/><manifest><item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/><item id="a" href="a.html" media-type="application/xhtml+xml"/></manifest><spine toc="ncx"><itemref idref="a"/></spine></package>`
	ncx := `<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/"><navMap><navPoint id="p1"><navLabel><text>Prologue</text></navLabel><content src="a.html"/></navPoint></navMap></ncx>`
	data := zipOf(t, "mimetype", "application/epub+zip", "META-INF/container.xml", strings.Replace(epubContainer, "OEBPS/content.opf", "content.opf", 1),
		"content.opf", opf, "toc.ncx", ncx, "a.html", "<html><body><p>Once upon a time.</p></body></html>")
	doc := mustIngest(t, "old.epub", data)
	if got := outlineTitles(doc); !slices.Equal(got, []string{"Prologue"}) || doc.Title != "Prologue" {
		t.Errorf("outline %q title %q", got, doc.Title)
	}
}

// verifies a folder is expanded to its source, Markdown and document files,
// with .gitignore rules (nested, negated, folder-only) respected, hidden,
// generated, oversized and binary files skipped.
func TestExpandRepository(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".git/HEAD":                 "ref: refs/heads/main\n",
		".gitignore":                "# build output\n/build/\n*.log\n!keep.log\nsecret*.txt\ndocs/**/draft.md\n",
		"README.md":                 "# Tool\n\nIt does things.\n",
		"main.go":                   "package main\n\nfunc main() {}\n",
		"build/out.go":              "package build\n",
		"debug.log":                 "noise\n",
		"keep.log":                  "kept log\n",
		"secret-keys.txt":           "hunter2\n",
		"docs/guide.md":             "# Guide\n",
		"docs/a/b/draft.md":         "# Draft\n",
		"docs/paper.pdf":            "%PDF-1.4 placeholder",
		"src/lib.py":                "def f():\n    return 1\n",
		"src/.gitignore":            "generated_*.py\n",
		"src/generated_api.py":      "x = 1\n",
		"src/vendor.min.js":         "var a=1;",
		"node_modules/dep/index.js": "module.exports = 1\n",
		".hidden/notes.md":          "hidden\n",
		"package-lock.json":         "{}\n",
		"image.png":                 "\x89PNG\r\n\x1a\n\x00\x00",
		"tool.sh":                   "#!/bin/sh\necho hi\n",
		"blob.json":                 "\x00\x01\x02binary",
		"big.go":                    "package big\n" + strings.Repeat("// filler line\n", MaxCodeFileSize/15+1),
		"empty.go":                  "",
		"Page.html":                 "<html><body><p>saved page</p></body></html>",
		"Page_files/script.js":      "var tracking = 1;\n",
		"notes/Chapter 1.txt":       "Notes.\n",
		"notes/unknown.xyz":         "what is this\n",
		"notes/report.docx":         "PK placeholder",
		"notes/mail.eml":            "From: a\n\nhi\n",
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	single := filepath.Join(root, "notes", "unknown.xyz")
	got := Expand([]string{root, single})
	var rel []string
	for _, p := range got {
		r, _ := filepath.Rel(root, p)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{"Page.html", "README.md", "docs/guide.md", "docs/paper.pdf", "keep.log", "main.go", "notes/Chapter 1.txt",
		"notes/mail.eml", "notes/report.docx", "src/lib.py", "tool.sh", "notes/unknown.xyz"}
	if !slices.Equal(rel, want) {
		t.Errorf("Expand:\n got %q\nwant %q", rel, want)
	}

	// A source file is titled by its path in the repository, with its
	// top-level declarations as the outline.
	doc, err := File(context.Background(), filepath.Join(root, "src", "lib.py"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Kind != document.KindCode || doc.Title != "src/lib.py" || !strings.Contains(doc.Pages[0].Text, "def f():\n    return 1") {
		t.Errorf("code: kind %q title %q text %q", doc.Kind, doc.Title, doc.Pages[0].Text)
	}
	if got := outlineTitles(doc); !slices.Equal(got, []string{"def f()"}) {
		t.Errorf("code outline %q", got)
	}
	// Outside a repository: folder and name.
	doc = mustIngest(t, "script.sh", []byte("#!/bin/sh\necho hi\n"))
	if want := filepath.Base(filepath.Dir(doc.Path)) + "/script.sh"; doc.Title != want {
		t.Errorf("title %q, want %q", doc.Title, want)
	}
}

// verifies gitignore patterns match as git matches them.
func TestGitignorePatterns(t *testing.T) {
	cases := []struct {
		pattern, path string
		dir, want     bool
	}{
		{"*.log", "a/b/x.log", false, true},
		{"*.log", "x.log.txt", false, false},
		{"/build", "build", true, true},
		{"/build", "src/build", true, false},
		{"build/", "src/build", true, true},
		{"build/", "build", false, false},
		{"doc/*.txt", "doc/a.txt", false, true},
		{"doc/*.txt", "doc/x/a.txt", false, false},
		{"**/foo", "a/b/foo", false, true},
		{"a/**/b", "a/b", false, true},
		{"a/**/b", "a/x/y/b", false, true},
		{"abc/**", "abc/x/y", false, true},
		{"fo?.[ch]", "foo.c", false, true},
		{"fo?.[!ch]", "foo.c", false, false},
		{`\#hash`, "#hash", false, true},
		{"out", "out/file.go", false, true},
	}
	for _, c := range cases {
		r, ok := parseIgnore(c.pattern)
		if !ok {
			t.Errorf("%q: not parsed", c.pattern)
			continue
		}
		got := ignored([]*ignoreFile{{dir: "/r", rules: []ignoreRule{r}}}, "/r/"+c.path, c.dir)
		if got != c.want {
			t.Errorf("%q on %q (dir %v): %v, want %v", c.pattern, c.path, c.dir, got, c.want)
		}
	}
}

// verifies every format's name is Supported, and others are not.
func TestSupported(t *testing.T) {
	for _, name := range []string{"a.pdf", "a.PDF", "a.docx", "a.epub", "a.eml", "a.html", "a.htm", "a.mhtml", "a.txt", "a.md", "a.go", "a.py", "Makefile", "a.tsx"} {
		if !Supported(name) {
			t.Errorf("%s not supported", name)
		}
	}
	for _, name := range []string{"a.png", "a.exe", "a.zip", "a.doc", "a", "a.xyz"} {
		if Supported(name) {
			t.Errorf("%s supported", name)
		}
	}
}
