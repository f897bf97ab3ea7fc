package ingest

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// corpusFile returns the path of one corpus PDF.
func corpusFile(tb testing.TB, name string) string {
	tb.Helper()
	return filepath.Join(corpusDir(tb), name)
}

func writeFile(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// encrypt writes a copy of the PDF at src encrypted with AES-256.
func encrypt(tb testing.TB, src, userPW, ownerPW string) string {
	tb.Helper()
	in, err := os.ReadFile(src)
	if err != nil {
		tb.Fatal(err)
	}
	pdfcpuConfig("") // the config dir is off
	conf := model.NewAESConfiguration(userPW, ownerPW, 256)
	var out bytes.Buffer
	if err := api.Encrypt(bytes.NewReader(in), &out, conf); err != nil {
		tb.Fatalf("encrypt: %v", err)
	}
	return writeFile(tb, "locked.pdf", out.Bytes())
}

func TestBadInputs(t *testing.T) {
	walden, err := os.ReadFile(corpusFile(t, "Walden.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00")
	garbage := bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef, '(', ']', '<'}, 2000)
	corrupt := append(append([]byte("%PDF-1.7\n"), garbage...), "\nstartxref\n12\n%%EOF\n"...)
	// A real PDF whose xref table, trailer and page tree are overwritten.
	overwritten := bytes.Clone(walden)
	copy(overwritten[len(overwritten)/3:], bytes.Repeat([]byte{'x'}, len(overwritten)*2/3-10))

	cases := []struct {
		name   string
		file   string
		data   []byte
		kind   error
		inText string // the message must contain it
	}{
		{"empty file", "empty.pdf", nil, ErrEmpty, "0 bytes"},
		{"empty text file", "notes.txt", nil, ErrEmpty, "0 bytes"},
		{"blank text file", "notes.md", []byte("\n \t\n\r\n"), ErrEmpty, "no text"},
		{"png named pdf", "scan.pdf", png, ErrNotPDF, "PNG image"},
		{"text named pdf", "paper.pdf", []byte("Dear reviewer,\nthis is not a PDF.\n"), ErrNotPDF, "plain text"},
		{"html named pdf", "page.pdf", []byte("<!DOCTYPE html><html><body>hi</body></html>"), ErrNotPDF, "web page"},
		{"zip named pdf", "thesis.pdf", []byte("PK\x03\x04\x14\x00\x06\x00rest"), ErrNotPDF, "ZIP"},
		{"corrupt bytes", "broken.pdf", corrupt, ErrCorrupt, "damaged"},
		{"overwritten pdf", "overwritten.pdf", overwritten, ErrCorrupt, "damaged"},
		{"truncated pdf", "partial.pdf", walden[:len(walden)*6/10], ErrCorrupt, "truncated"},
		{"word document", "thesis.docx", []byte("PK\x03\x04rest"), ErrCorrupt, "zip container is broken"},
		{"no extension", "scan0001", []byte("hello"), ErrUnsupported, "without an extension"},
		{"binary named txt", "photo.txt", png, ErrUnsupported, "PNG image"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, c.file, c.data)
			doc, err := File(context.Background(), path, nil)
			if !errors.Is(err, c.kind) {
				t.Fatalf("got (%v, %v), want kind %v", doc, err, c.kind)
			}
			if doc != nil {
				t.Errorf("got a document with error %v", err)
			}
			checkMessage(t, err, c.file, c.inText)
			var ie *Error
			if !errors.As(err, &ie) || ie.Path != path {
				t.Errorf("not an *Error for %s: %#v", path, err)
			}
		})
	}
}

// checkMessage asserts the user-facing message is one line naming the file.
func checkMessage(t *testing.T, err error, file, want string) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Errorf("message has several lines: %q", msg)
	}
	if !strings.HasPrefix(msg, file) {
		t.Errorf("message does not start with the file name %q: %q", file, msg)
	}
	if !strings.Contains(msg, want) {
		t.Errorf("message %q does not contain %q", msg, want)
	}
	t.Logf("%s", msg)
}

func TestEncrypted(t *testing.T) {
	src := corpusFile(t, "Walden.pdf")
	plain, err := File(context.Background(), src, nil)
	if err != nil {
		t.Fatal(err)
	}

	locked := encrypt(t, src, "secret", "owner")
	doc, err := File(context.Background(), locked, nil)
	if !errors.Is(err, ErrEncrypted) || doc != nil {
		t.Fatalf("got (%v, %v), want ErrEncrypted", doc, err)
	}
	checkMessage(t, err, "locked.pdf", "password-protected")

	_, err = FileWithOptions(context.Background(), locked, Options{Password: "wrong"})
	if !errors.Is(err, ErrEncrypted) {
		t.Fatalf("wrong password: got %v, want ErrEncrypted", err)
	}

	doc, err = FileWithOptions(context.Background(), locked, Options{Password: "secret"})
	if err != nil {
		t.Fatalf("with the password: %v", err)
	}
	if docText(doc) != docText(plain) {
		t.Errorf("decrypted text differs from the original")
	}

	// A permissions-only password (empty user password) opens without asking.
	ownerOnly := encrypt(t, src, "", "owner")
	doc, err = File(context.Background(), ownerOnly, nil)
	if err != nil {
		t.Fatalf("owner-password-only PDF: %v", err)
	}
	if docText(doc) != docText(plain) {
		t.Errorf("owner-only text differs from the original")
	}
}

func TestNoText(t *testing.T) {
	path := corpusFile(t, "blank-scan.pdf")
	doc, err := File(context.Background(), path, nil)
	if !errors.Is(err, ErrNoText) {
		t.Fatalf("got %v, want ErrNoText", err)
	}
	checkMessage(t, err, "blank-scan.pdf", "OCR")
	if doc == nil || len(doc.Pages) != 1 || doc.SHA256 == "" || doc.Kind != document.KindPDF {
		t.Fatalf("ErrNoText must come with the document's metadata, got %+v", doc)
	}
}

func TestMissingFile(t *testing.T) {
	_, err := File(context.Background(), filepath.Join(t.TempDir(), "gone.pdf"), nil)
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("got %v, want fs.ErrNotExist", err)
	}
}

func TestProgressAndCancel(t *testing.T) {
	path := corpusFile(t, "WaldenFull.pdf")
	var calls [][2]int
	doc, err := File(context.Background(), path, func(done, total int) {
		calls = append(calls, [2]int{done, total})
	})
	if err != nil {
		t.Fatal(err)
	}
	n := len(doc.Pages)
	if len(calls) != n {
		t.Errorf("%d progress calls for %d pages", len(calls), n)
	}
	for i, c := range calls {
		if c[0] != i+1 || c[1] != n {
			t.Fatalf("call %d: progress(%d, %d)", i, c[0], c[1])
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := File(ctx, path, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: got %v", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	seen := 0
	_, err = File(ctx, path, func(done, total int) {
		seen = done
		if done == 20 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during: got %v", err)
	}
	if seen >= n {
		t.Errorf("extraction ran to the end (%d pages) after cancel", seen)
	}

	// The engine is still usable after a cancelled run.
	again, err := File(context.Background(), path, nil)
	if err != nil || docText(again) != docText(doc) {
		t.Fatalf("after cancel: %v", err)
	}
}

// TestConcurrent ingests documents at the same time: the instances are
// shared between them and results must equal sequential ones.
func TestConcurrent(t *testing.T) {
	names := []string{"WaldenFull.pdf", "gobook.0.pdf", "T4.pdf", "go.pdf", "Walden.pdf"}
	want := map[string]string{}
	for _, n := range names {
		d, err := File(context.Background(), corpusFile(t, n), nil)
		if err != nil {
			t.Fatal(err)
		}
		want[n] = docText(d)
	}
	var wg sync.WaitGroup
	for round := range 2 {
		for _, n := range names {
			wg.Go(func() {
				d, err := File(context.Background(), corpusFile(t, n), nil)
				if err != nil {
					t.Errorf("%s round %d: %v", n, round, err)
					return
				}
				if docText(d) != want[n] {
					t.Errorf("%s round %d: text differs from the sequential run", n, round)
				}
			})
		}
	}
	wg.Wait()
}

func TestPDFMetadata(t *testing.T) {
	doc, err := File(context.Background(), corpusFile(t, "WaldenFull.pdf"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != "Walden" || doc.Kind != document.KindPDF {
		t.Errorf("title %q kind %q", doc.Title, doc.Kind)
	}
	if len(doc.Outline) == 0 || doc.Outline[0].Level != 1 {
		t.Fatalf("outline %+v", doc.Outline)
	}
	found := false
	for _, h := range doc.Outline {
		if strings.EqualFold(h.Title, "Economy") {
			found = true
			if !strings.Contains(doc.Pages[h.Page-1].Text, "ECONOMY") {
				t.Errorf("heading Economy points to page %d, which lacks it", h.Page)
			}
		}
	}
	if !found {
		t.Errorf("no Economy heading in %+v", doc.Outline)
	}
	// No control characters or runs of spaces survive normalisation.
	for _, p := range doc.Pages {
		if strings.Contains(p.Text, "  ") || strings.ContainsAny(p.Text, "\r\x00\t\uFFFE") || strings.Contains(p.Text, "\n\n\n") {
			t.Fatalf("page %d not normalised: %q", p.Number, p.Text)
		}
	}
}

func TestTextAndMarkdown(t *testing.T) {
	md := "---\ntitle: \"Study notes\"\nauthor: Ada\n---\n\n# Cells\n\nCells are small.\r\n\r\n\r\n## Membranes\n\n" +
		strings.Repeat("Lipids form a bilayer around the cell. ", 120) +
		"\n\n```\n# not a heading\n```\n\nSetext heading\n--------------\n\nEnd.\n"
	path := writeFile(t, "notes.md", []byte(md))
	doc, err := File(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Kind != document.KindText || doc.Title != "Study notes" || doc.Author != "Ada" {
		t.Errorf("kind %q title %q author %q", doc.Kind, doc.Title, doc.Author)
	}
	if len(doc.Pages) < 2 {
		t.Fatalf("want several pages, got %d", len(doc.Pages))
	}
	var titles []string
	for _, h := range doc.Outline {
		titles = append(titles, h.Title)
		if !strings.Contains(doc.Pages[h.Page-1].Text, h.Title) {
			t.Errorf("heading %q not on its page %d", h.Title, h.Page)
		}
	}
	if got := strings.Join(titles, "|"); got != "Cells|Membranes|Setext heading" {
		t.Errorf("headings %q", got)
	}
	for _, p := range doc.Pages {
		if len([]rune(p.Text)) > TextPageSize || strings.TrimSpace(p.Text) != p.Text || strings.Contains(p.Text, "\r") {
			t.Errorf("page %d: %d chars, untrimmed or CR", p.Number, len([]rune(p.Text)))
		}
	}

	// UTF-16 with BOM, and Windows-1252.
	u := utf16.Encode([]rune("Größe und Café\n"))
	b := []byte{0xFF, 0xFE}
	for _, c := range u {
		b = append(b, byte(c), byte(c>>8))
	}
	doc, err = File(context.Background(), writeFile(t, "utf16.txt", b), nil)
	if err != nil || doc.Pages[0].Text != "Größe und Café" {
		t.Errorf("UTF-16: %v %+v", err, doc)
	}
	doc, err = File(context.Background(), writeFile(t, "cp1252.txt", []byte("caf\xe9 \x93quoted\x94")), nil)
	if err != nil || doc.Pages[0].Text != "café “quoted”" {
		t.Errorf("cp1252: %v %+v", err, doc)
	}
	// A PDF is a PDF whatever its name.
	data, _ := os.ReadFile(corpusFile(t, "Walden.pdf"))
	doc, err = File(context.Background(), writeFile(t, "walden.txt", data), nil)
	if err != nil || doc.Kind != document.KindPDF {
		t.Errorf("PDF named .txt: %v", err)
	}
}

func TestNormalizePDFText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a\r\nb\rc\nd", "a\nb\nc\nd"},
		{"  lots   of \t spaces  \r\n", "lots of spaces"},
		{"NUL\x00 and \x07bell", "NUL and bell"},
		{"line \r\n \r\n\r\n\r\n next", "line\n\nnext"},
		{"\uFB01rst e\uFB00ort", "first effort"},
		{"soft\u00ADhyphen zero\u200Bwidth", "softhyphen zerowidth"},
		{"nbsp\u00A0here\u2003em", "nbsp here em"},
		{"bad \uFFFD glyph", "bad glyph"},
	}
	for _, c := range cases {
		if got := normalizePDFText(c.in); got != c.want {
			t.Errorf("normalizePDFText(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestDehyphenate(t *testing.T) {
	pages := []Page{
		{Text: "information is here. night and clothes."},
		{Text: "infor\uFFFEmation and night\uFFFEclothes and Anglo\uFFFESaxon and compu\uFFFEter 1990\uFFFE2000"},
	}
	dehyphenate(pages)
	want := "information and night-clothes and Anglo-Saxon and computer 1990-2000"
	if pages[1].Text != want {
		t.Errorf("got %q\nwant %q", pages[1].Text, want)
	}
}

func TestChooseTitle(t *testing.T) {
	pages := []Page{{Text: ""}, {Text: "12\nThe Real Title\nby someone"}}
	cases := []struct{ meta, want string }{
		{"A Good Title", "A Good Title"},
		{"Microsoft Word - Thesis Final.docx", "The Real Title"},
		{"Microsoft Word - Thesis Final", "Thesis Final"},
		{"untitled", "The Real Title"},
		{"  ", "The Real Title"},
	}
	for _, c := range cases {
		if got := chooseTitle(c.meta, pages, "/x/file.pdf"); got != c.want {
			t.Errorf("chooseTitle(%q) = %q, want %q", c.meta, got, c.want)
		}
	}
	if got := chooseTitle("", []Page{{Text: "1"}}, "/x/my-notes.pdf"); got != "my-notes" {
		t.Errorf("file-name fallback = %q", got)
	}
}

func TestWarmupShutdownRestart(t *testing.T) {
	took, err := Warmup(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("warmup took %v", took)
	if err := Shutdown(); err != nil {
		t.Fatal(err)
	}
	// The next PDF starts a fresh engine, from the compilation cache.
	doc, err := File(context.Background(), corpusFile(t, "Walden.pdf"), nil)
	if err != nil || len(doc.Pages) != 2 {
		t.Fatalf("after shutdown: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	cases := map[string]string{
		"BMW annual report\n":                "plain text",
		"BM\x00\x00\x00\x00\x00\x00\x00\x00": "a BMP image",
		"\xff\xd8\xff\xe0\x00\x10JFIF":       "a JPEG image",
		"%!PS-Adobe-3.0\n":                   "a PostScript file",
		"\x00\x01\x02\x03":                   "binary data of an unknown kind",
	}
	for in, want := range cases {
		if got := describe([]byte(in)); got != want {
			t.Errorf("describe(%q) = %q, want %q", in, got, want)
		}
	}
}
