package ingest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// emptyPagesPDF writes a PDF with n pages and no content at all.
func emptyPagesPDF(n int) []byte {
	var b bytes.Buffer
	offs := make([]int, n+3)
	b.WriteString("%PDF-1.4\n")
	offs[1] = b.Len()
	b.WriteString("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n")
	offs[2] = b.Len()
	b.WriteString("2 0 obj\n<< /Type /Pages /Count " + fmt.Sprint(n) + " /Kids [")
	for i := range n {
		fmt.Fprintf(&b, "%d 0 R ", i+3)
	}
	b.WriteString("] >>\nendobj\n")
	for i := range n {
		offs[i+3] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << >> >>\nendobj\n", i+3)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", n+3)
	for i := 1; i < n+3; i++ {
		fmt.Fprintf(&b, "%010d 00000 n \n", offs[i])
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", n+3, xref)
	return b.Bytes()
}

// bombEntry writes a zip entry of n bytes of 'a' after prefix, deflated,
// declaring declared as its uncompressed size (a zip bomb may lie).
func bombEntry(tb testing.TB, zw *zip.Writer, name, prefix string, n int, declared uint64) {
	tb.Helper()
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestSpeed)
	crc := crc32.NewIEEE()
	chunk := bytes.Repeat([]byte{'a'}, 1<<20)
	fw.Write([]byte(prefix))
	crc.Write([]byte(prefix))
	for left := n; left > 0; left -= len(chunk) {
		c := chunk[:min(left, len(chunk))]
		fw.Write(c)
		crc.Write(c)
	}
	fw.Close()
	w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate, CRC32: crc.Sum32(),
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: declared})
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(comp.Bytes())
}

func docxBomb(tb testing.TB, lie bool) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	n := MaxUnpacked + 1<<20
	declared := uint64(n + 40)
	if lie {
		declared = 4096
	}
	bombEntry(tb, zw, "word/document.xml", `<w:document `+wNS+`><w:body><w:p><w:r><w:t>`, n, declared)
	zw.Close()
	return buf.Bytes()
}

func manyEntries(tb testing.TB, n int) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte(`<w:document ` + wNS + `><w:body>` + wPara("", "hello") + `</w:body></w:document>`))
	for i := range n {
		zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("junk/%d", i), Method: zip.Store})
	}
	zw.Close()
	return buf.Bytes()
}

func nested(open, close string, n int, inner string) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// sparse creates a file of size bytes that costs no disk.
func sparse(tb testing.TB, name string, size int64) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		tb.Fatal(err)
	}
	return p
}

// verifies that every bad or hostile input ends as a clear one-line error
// about that file only (or, where the input is odd but readable, a sane
// document), and that reading it allocates a bounded amount of memory.
func TestHostileInputs(t *testing.T) {
	walden, err := os.ReadFile(corpusFile(t, "Walden.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	mail := "From: a@example.org\r\nTo: b@example.org\r\nSubject: Hi\r\n"
	epubNoSpine := epubOf(t, "")
	epubMissing := epubOf(t, `<spine><itemref idref="nope"/><itemref idref="css"/></spine>`)
	epubNoOPF := zipOf(t, "mimetype", "application/epub+zip", "chapter.xhtml", "<p>text</p>")

	type hostile struct {
		name string
		file string
		data []byte
		path func(t *testing.T) string // instead of file+data
		kind error                     // nil: a sane document is expected
		text string                    // the message, or the document's text, contains it
		// maxAlloc bounds the bytes allocated while reading, if not 0.
		maxAlloc uint64
	}
	cases := []hostile{
		// PDF
		{name: "header only", file: "a.pdf", data: []byte("%PDF-1.7\n"), kind: ErrCorrupt, text: "damaged"},
		{name: "truncated at 10%", file: "a.pdf", data: walden[:len(walden)/10], kind: ErrCorrupt, text: "truncated"},
		{name: "xref offset past the end", file: "a.pdf", data: []byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\nstartxref\n999999999\n%%EOF\n"), kind: ErrCorrupt, text: "damaged"},
		{name: "garbage after header", file: "a.pdf", data: append([]byte("%PDF-1.5\n"), bytes.Repeat([]byte{0xff, 0x00, '<', '<', '['}, 50000)...), kind: ErrCorrupt, text: "damaged"},
		{name: "10000 empty pages", file: "blank.pdf", data: emptyPagesPDF(10000), kind: ErrNoText, text: "no text layer"},
		{name: "1 GB sparse pdf", path: func(t *testing.T) string { return sparse(t, "huge.pdf", 1<<30) }, kind: ErrTooLarge, text: "1 GB", maxAlloc: 1 << 20},
		{name: "folder named pdf", path: func(t *testing.T) string { d := filepath.Join(t.TempDir(), "dir.pdf"); os.Mkdir(d, 0o755); return d }, kind: ErrUnsupported, text: "folder"},
		// Text
		{name: "latin-1 text", file: "a.txt", data: []byte("Caf\xe9 cr\xe8me \x93quoted\x94\n"), text: "Café crème “quoted”"},
		{name: "utf-16 text", file: "a.txt", data: []byte("\xff\xfeh\x00i\x00 \x00\xe9\x00"), text: "hi é"},
		{name: "invalid utf-8 markdown heading", file: "a.md", data: []byte("# Ti\xfftle\n\nbody \xc3\x28 text\n"), text: "body"},
		{name: "NULs in text", file: "a.txt", data: []byte("abc\x00\x00\x00def"), kind: ErrUnsupported, text: "not text"},
		{name: "only control characters", file: "a.txt", data: []byte("\x1b\x1b\x1b\n\n"), kind: ErrEmpty, text: "empty"},
		{name: "50 MB single line", file: "line.txt", data: bytes.Repeat([]byte("word "), 10<<20), text: "word word", maxAlloc: 1 << 30},
		{name: "50 MB without spaces", file: "blob.md", data: bytes.Repeat([]byte("x"), 50<<20), text: "xxxx", maxAlloc: 1 << 30},
		{name: "1 GB sparse text", path: func(t *testing.T) string { return sparse(t, "huge.txt", 1<<30) }, kind: ErrTooLarge, text: "64 MB", maxAlloc: 1 << 20},
		{name: "vanished file", path: func(t *testing.T) string { p := writeFile(t, "gone.txt", []byte("x")); os.Remove(p); return p }, kind: fs.ErrNotExist, text: "moved or deleted"},
		// Word
		{name: "docx zip bomb", file: "bomb.docx", data: docxBomb(t, false), kind: ErrTooLarge, text: "zip bomb", maxAlloc: 64 << 20},
		{name: "docx zip bomb that lies about its size", file: "liar.docx", data: docxBomb(t, true), kind: ErrCorrupt, text: "zip container is broken", maxAlloc: 64 << 20},
		{name: "docx with 30000 entries", file: "many.docx", data: manyEntries(t, 30000), kind: ErrTooLarge, text: "30001 files"},
		{name: "docx without document.xml", file: "a.docx", data: zipOf(t, "word/other.xml", "<x/>"), kind: ErrCorrupt, text: "without word/document.xml"},
		{name: "docx truncated xml", file: "a.docx", data: zipOf(t, "word/document.xml", `<w:document `+wNS+`><w:body>`+wPara("", "Kept paragraph.")+`<w:p><w:r><w:t>cut`), text: "Kept paragraph."},
		{name: "docx with broken xml", file: "a.docx", data: zipOf(t, "word/document.xml", "<<<>>>&&&"), kind: ErrCorrupt, text: "damaged"},
		{name: "docx truncated zip", file: "a.docx", data: docxOf(t, wPara("", "x"))[:200], kind: ErrCorrupt, text: "zip container"},
		{name: "password-protected docx", file: "locked.docx", data: append([]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), make([]byte, 600)...), kind: ErrEncrypted, text: "password-protected"},
		{name: "docx nested 100000 deep", file: "deep.docx", data: zipOf(t, "word/document.xml", `<w:document `+wNS+`><w:body>`+nested("<w:sdt>", "</w:sdt>", 100000, wPara("", "deep text"))+`</w:body></w:document>`), text: "deep text"},
		{name: "old .doc", file: "a.doc", data: append([]byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"), make([]byte, 600)...), kind: ErrUnsupported, text: ".docx or PDF"},
		// Mail
		{name: "mail without headers", file: "a.eml", data: []byte("just some words\nand more\n"), kind: ErrCorrupt, text: "mail headers"},
		{name: "binary named eml", file: "a.eml", data: []byte("\x00\x01\x02\x03binary"), kind: ErrUnsupported, text: "not text"},
		{name: "mail with unterminated multipart", file: "a.eml", data: []byte(mail + "Content-Type: multipart/mixed; boundary=zz\r\n\r\n--zz\r\nContent-Type: text/plain\r\n\r\nBody before the end\r\n"), text: "Body before the end"},
		{name: "mail with bad base64", file: "a.eml", data: []byte(mail + "Content-Type: text/plain\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!not base64***\r\n"), text: "Subject: Hi"},
		{name: "mail with unknown charset", file: "a.eml", data: []byte(mail + "Content-Type: text/plain; charset=x-klingon\r\n\r\nqapla text\r\n"), text: "qapla text"},
		{name: "mail with 5000 parts", file: "a.eml", data: []byte(mail + "Content-Type: multipart/mixed; boundary=b\r\n\r\n" + strings.Repeat("--b\r\nContent-Type: text/plain\r\n\r\npart\r\n", 5000) + "--b--\r\n"), text: "part"},
		{name: "mail nested 100 deep", file: "a.eml", data: []byte(mail + nestedMail(100)), text: "Subject: Hi"},
		{name: "mail with missing boundary", file: "a.eml", data: []byte(mail + "Content-Type: multipart/mixed\r\n\r\nno boundary\r\n"), text: "Subject: Hi"},
		// EPUB
		{name: "epub without a spine", file: "a.epub", data: epubNoSpine, kind: ErrCorrupt, text: "no spine"},
		{name: "epub whose chapters are missing", file: "a.epub", data: epubMissing, kind: ErrCorrupt, text: "none of the chapters"},
		{name: "epub without a package document", file: "a.epub", data: epubNoOPF, kind: ErrCorrupt, text: "no package document"},
		{name: "epub that is a word document", file: "a.epub", data: docxOf(t, wPara("", "x")), kind: ErrCorrupt, text: "rename it to .docx"},
		{name: "epub with a broken package document", file: "a.epub", data: zipOf(t, "META-INF/container.xml", epubContainer, "OEBPS/content.opf", "<package><spine"), kind: ErrCorrupt, text: "package document"},
		// HTML
		{name: "html nested 100000 deep", file: "deep.html", data: []byte(nested("<div>", "</div>", 100000, "deep text") + "<p>shallow text</p>"), text: "shallow text"},
		{name: "html with only scripts", file: "a.html", data: []byte("<html><head><script>x()</script></head><body><nav>menu</nav></body></html>"), kind: ErrEmpty, text: "no text in the page"},
		{name: "png named html", file: "a.html", data: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), kind: ErrUnsupported, text: "PNG image"},
		{name: "mhtml without html", file: "a.mhtml", data: []byte(mail + "Content-Type: image/png\r\n\r\nxx\r\n"), kind: ErrCorrupt, text: "no HTML page"},
		// Code
		{name: "binary named go", file: "a.go", data: []byte("\x7fELF\x02\x01\x01\x00\x00\x00"), kind: ErrUnsupported, text: "ELF"},
		{name: "empty source file", file: "a.go", data: []byte("\n\n   \n"), kind: ErrEmpty, text: "empty"},
	}
	if len(cases) < 30 {
		t.Fatalf("only %d hostile inputs", len(cases))
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var path string
			if c.path != nil {
				path = c.path(t)
			} else {
				path = writeFile(t, c.file, c.data)
			}
			c.data = nil
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			doc, err := File(context.Background(), path, nil)
			runtime.ReadMemStats(&after)
			if alloc := after.TotalAlloc - before.TotalAlloc; c.maxAlloc > 0 && alloc > c.maxAlloc {
				t.Errorf("allocated %s, over %s", humanBytes(int64(alloc)), humanBytes(int64(c.maxAlloc)))
			}
			if c.kind == nil {
				if err != nil {
					t.Fatalf("want a document, got %v", err)
				}
				checkSane(t, doc)
				if !strings.Contains(allText(doc), c.text) {
					t.Errorf("text lacks %q: %.300q", c.text, allText(doc))
				}
				return
			}
			if !errors.Is(err, c.kind) {
				t.Fatalf("got (%v, %v), want kind %v", doc != nil, err, c.kind)
			}
			checkMessage(t, err, filepath.Base(path), c.text)
			if errors.Is(err, ErrNoText) {
				if doc == nil || len(doc.Pages) != 10000 {
					t.Errorf("ErrNoText without its document")
				}
			} else if doc != nil {
				t.Errorf("a document came with %v", err)
			}
		})
	}
}

// nestedMail is a body of n message/rfc822 parts inside each other.
func nestedMail(n int) string {
	inner := "Content-Type: text/plain\r\n\r\ninnermost\r\n"
	for i := range n {
		b := fmt.Sprintf("b%d", i)
		inner = "Content-Type: multipart/mixed; boundary=" + b + "\r\n\r\n--" + b + "\r\n" + inner + "--" + b + "--\r\n"
	}
	return inner
}

// checkSane asserts the invariants of any Document File returns.
func checkSane(t testing.TB, doc *Document) {
	t.Helper()
	if doc == nil || len(doc.Pages) == 0 {
		t.Fatalf("no pages")
	}
	for i, p := range doc.Pages {
		if p.Number != i+1 {
			t.Fatalf("page %d numbered %d", i+1, p.Number)
		}
		if !utf8.ValidString(p.Text) {
			t.Fatalf("page %d is not UTF-8", i+1)
		}
		if strings.TrimSpace(p.Text) != p.Text {
			t.Fatalf("page %d has white space at its ends", i+1)
		}
	}
	for _, h := range doc.Outline {
		if h.Page < 1 || h.Page > len(doc.Pages) || h.Title == "" || h.Level < 1 {
			t.Fatalf("bad heading %+v of %d pages", h, len(doc.Pages))
		}
	}
	if doc.Title == "" || !utf8.ValidString(doc.Title) || strings.ContainsAny(doc.Title, "\n\r") {
		t.Fatalf("bad title %q", doc.Title)
	}
}
