package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/pdfcpu/pdfcpu/pkg/api"
)

func TestMain(m *testing.M) {
	// Keep the compiled PDFium out of the user's cache dir, but share it
	// between test runs so that only the first run pays for compiling.
	if os.Getenv("CARREL_CACHE_DIR") == "" {
		os.Setenv("CARREL_CACHE_DIR", filepath.Join(os.TempDir(), "carrel-test-cache"))
	}
	code := m.Run()
	_ = Shutdown()
	os.Exit(code)
}

// corpusDir is pdfcpu's testdata: real PDFs of many kinds (books, papers,
// standards, slides, scans, forms).
func corpusDir(tb testing.TB) string {
	tb.Helper()
	return testcorpus.Dir(tb)
}

// corpusFiles lists every PDF under the corpus, sorted.
func corpusFiles(tb testing.TB) []string {
	tb.Helper()
	return testcorpus.PDFs(tb)
}

// expectedFailures are the corpus files that must not ingest, with why.
// Each was checked by hand: poppler's pdftotext finds no text in them
// either, and pdfimages/pdffonts show images or vector art and no fonts.
var expectedFailures = map[string]error{
	"HL1396.pdf":                        ErrNoText, // 18 scanned page images
	"VectorApple.pdf":                   ErrNoText, // vector drawing
	"Wonderwall.pdf":                    ErrNoText, // 6 page images
	"blank-scan.pdf":                    ErrNoText, // one blank scanned page
	"empty.pdf":                         ErrNoText, // one empty page
	"mountain.pdf":                      ErrNoText, // one photo
	"testImage.pdf":                     ErrNoText, // two images
	"test.pdf":                          ErrNoText, // graphics only
	"testRot.pdf":                       ErrNoText, // graphics only
	"pdf20/i277.pdf":                    ErrNoText, // graphics only
	"pdf20/utf8stringAndAnnotation.pdf": ErrNoText, // a sticky note, no page text
}

// minF1 is the token F1 against pdftotext every document must reach,
// except the few below where the difference is understood.
const minF1 = 0.95

var lowF1 = map[string]string{
	// Axis labels of a grid; the two tools order them differently and
	// pdftotext drops some.
	"grid_example.pdf": "layout of grid labels",
	// All its text is in annotations: pdftotext prints what their
	// appearance streams draw (icons labelled "Text"), we the contents of
	// free-text annotations.
	"annotTest.pdf": "annotation text only",
	// pdftotext glues "Hello" and "World" (positioned separately);
	// we give "Hello World".
	"pdf20/SimplePDF2.0.pdf": "pdftotext misses a word gap",
}

// pdftotext returns poppler's text of the pages first..last of a PDF.
func pdftotext(tb testing.TB, path string, first, last int) string {
	tb.Helper()
	args := []string{"-q", "-enc", "UTF-8"}
	if first > 0 {
		args = append(args, "-f", fmt.Sprint(first), "-l", fmt.Sprint(last))
	}
	out, err := exec.Command("pdftotext", append(args, path, "-")...).Output()
	if err != nil {
		// A reference that cannot be read would pass any text: fail instead.
		tb.Fatalf("pdftotext %s: %v", filepath.Base(path), err)
	}
	return string(out)
}

// tokens splits text into lowercased runs of letters and digits.
func tokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// tokenF1 is the F1 of the token multisets of got against want.
func tokenF1(got, want []string) float64 {
	if len(got) == 0 && len(want) == 0 {
		return 1
	}
	count := map[string]int{}
	for _, t := range want {
		count[t]++
	}
	common := 0
	for _, t := range got {
		if count[t] > 0 {
			count[t]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	p := float64(common) / float64(len(got))
	r := float64(common) / float64(len(want))
	return 2 * p * r / (p + r)
}

func docText(d *Document) string {
	var b strings.Builder
	for _, p := range d.Pages {
		b.WriteString(p.Text)
		b.WriteString("\n")
	}
	return b.String()
}

func TestCorpus(t *testing.T) {
	files := corpusFiles(t)
	// The F1 check below is the test's point: poppler-utils is in the Taskfile's TEST_PKGS.
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatalf("pdftotext (poppler-utils) is needed as the reference text: %v", err)
	}
	ctx := context.Background()
	var f1s []float64
	pages := 0
	start := time.Now()
	for _, path := range files {
		name, _ := filepath.Rel(corpusDir(t), path)
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := FileWithOptions(ctx, path, noOCR)
			if want, ok := expectedFailures[name]; ok {
				if !errors.Is(err, want) {
					t.Fatalf("got error %v, want kind %v", err, want)
				}
				t.Logf("fails as expected: %v", err)
				return
			}
			if err != nil {
				t.Fatalf("ingest: %v", err)
			}
			pages += len(doc.Pages)
			n, err := api.PageCount(bytes.NewReader(data), pdfcpuConfig(""))
			if err != nil {
				t.Fatalf("pdfcpu page count: %v", err)
			}
			if len(doc.Pages) != n {
				t.Errorf("got %d pages, pdfcpu says %d", len(doc.Pages), n)
			}
			for i, p := range doc.Pages {
				if p.Number != i+1 {
					t.Fatalf("page %d numbered %d", i+1, p.Number)
				}
			}
			if doc.Kind != document.KindPDF || doc.Bytes != int64(len(data)) || len(doc.SHA256) != 64 || doc.Title == "" {
				t.Errorf("bad metadata: kind %q bytes %d sha %q title %q", doc.Kind, doc.Bytes, doc.SHA256, doc.Title)
			}
			for _, h := range doc.Outline {
				if h.Page < 1 || h.Page > len(doc.Pages) || h.Level < 1 || h.Title == "" {
					t.Errorf("bad heading %+v", h)
				}
			}
			want := tokens(pdftotext(t, path, 0, 0))
			f1 := tokenF1(tokens(docText(doc)), want)
			f1s = append(f1s, f1)
			if why, ok := lowF1[name]; ok {
				t.Logf("low F1 expected: %s", why)
			} else if f1 < minF1 {
				t.Errorf("token F1 vs pdftotext %.3f < %.2f", f1, minF1)
			}
			t.Logf("%-40s pages %3d  outline %3d  F1 %.3f  title %q  warnings %d", name, len(doc.Pages), len(doc.Outline), f1, doc.Title, len(doc.Warnings))
			for _, w := range doc.Warnings {
				t.Logf("warning: %s", w)
			}
			if _, ok := lowF1[name]; !ok {
				checkTerms(t, path, doc)
			}
		})
	}
	t.Logf("%d files, %d pages in %v", len(files), pages, time.Since(start))
	if len(f1s) < len(files)-len(expectedFailures) && !t.Failed() {
		t.Errorf("F1 was measured on %d documents of %d", len(f1s), len(files)-len(expectedFailures))
	}
	if len(f1s) > 0 {
		sum := 0.0
		for _, f := range f1s {
			sum += f
		}
		t.Logf("mean token F1 vs pdftotext: %.4f over %d documents", sum/float64(len(f1s)), len(f1s))
	}
}

// checkTerms takes a distinctive word from poppler's text of a few pages
// and looks for it in our text of the same page.
func checkTerms(t *testing.T, path string, doc *Document) {
	t.Helper()
	n := len(doc.Pages)
	for _, num := range []int{1, (n + 1) / 2, n} {
		want := tokens(pdftotext(t, path, num, num))
		term := ""
		for _, w := range want {
			if len([]rune(w)) >= 6 && len(w) > len(term) && !strings.ContainsFunc(w, unicode.IsDigit) {
				term = w
			}
		}
		if term == "" {
			continue
		}
		got := tokens(doc.Pages[num-1].Text)
		found := false
		for _, g := range got {
			if g == term {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("page %d: %q (from pdftotext) not in our text", num, term)
		}
	}
}
