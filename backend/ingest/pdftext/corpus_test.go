package pdftext

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

func init() { api.DisableConfigDir() }

// read parses a PDF with pdfcpu as the ingest package does.
func read(tb testing.TB, data []byte) *model.Context {
	tb.Helper()
	conf := model.NewDefaultConfiguration()
	conf.ValidationMode = model.ValidationRelaxed
	ctx, err := pdfcpu.ReadWithContext(context.Background(), bytes.NewReader(data), conf)
	if err != nil {
		tb.Fatalf("pdfcpu: %v", err)
	}
	if err := ctx.EnsurePageCount(); err != nil {
		tb.Fatalf("page count: %v", err)
	}
	return ctx
}

func extractAll(tb testing.TB, data []byte) []Page {
	tb.Helper()
	d, err := Open(read(tb, data))
	if err != nil {
		tb.Fatal(err)
	}
	pages, err := d.Extract(context.Background(), 1, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return pages
}

func corpusFiles(tb testing.TB) (string, []string) {
	tb.Helper()
	return testcorpus.Dir(tb), testcorpus.PDFs(tb)
}

func tokens(s string) []string {
	s = strings.ReplaceAll(s, string(LineEndHyphen), "-\n")
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

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
	p, r := float64(common)/float64(len(got)), float64(common)/float64(len(want))
	return 2 * p * r / (p + r)
}

// TestCorpusConfidentPages compares, on every page the extractor is
// confident about, its text with poppler's pdftotext: the confident pages
// of a document together must reach a token F1 of 0.95. The ingest
// package's corpus test checks the whole documents, fallback included.
func TestCorpusConfidentPages(t *testing.T) {
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Fatalf("pdftotext (poppler-utils) is needed: %v", err)
	}
	dir, files := corpusFiles(t)
	total, confident := 0, 0
	for _, path := range files {
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		conf := model.NewDefaultConfiguration()
		conf.ValidationMode = model.ValidationRelaxed
		ctx, err := pdfcpu.ReadWithContext(context.Background(), bytes.NewReader(data), conf)
		if err != nil {
			t.Logf("%s: pdfcpu cannot read it: %v", rel, err)
			continue
		}
		if ctx.EnsurePageCount() != nil {
			continue
		}
		d, err := Open(ctx)
		if err != nil {
			t.Logf("%s: %v", rel, err)
			continue
		}
		pages, _ := d.Extract(context.Background(), 1, nil)
		var got, want []string
		nconf := 0
		for i, p := range pages {
			total++
			if !p.Confident() {
				continue
			}
			nconf++
			confident++
			got = append(got, tokens(p.Text)...)
			out, _ := exec.Command("pdftotext", "-q", "-enc", "UTF-8", "-f", itoa(i+1), "-l", itoa(i+1), path, "-").Output()
			want = append(want, tokens(string(out))...)
		}
		f1 := tokenF1(got, want)
		t.Logf("%-45s pages %4d confident %4d F1 %.3f", rel, len(pages), nconf, f1)
		if f1 < 0.95 && len(want) > 20 && lowF1[rel] == "" {
			t.Errorf("%s: token F1 %.3f < 0.95 on its confident pages", rel, f1)
		}
	}
	t.Logf("%d of %d pages confident", confident, total)
	if confident*10 < total*8 {
		t.Errorf("only %d of %d pages confident", confident, total)
	}
}

// lowF1 are documents whose difference from pdftotext is understood.
var lowF1 = map[string]string{
	"grid_example.pdf": "axis labels of a grid, ordered and dropped differently",
}

func itoa(i int) string { return strings.TrimSpace(strings.Repeat(" ", 0) + fmtInt(i)) }

func fmtInt(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}
