package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/internal/testpdf"
)

// TestNoOCRSparesPDFium checks that, with OCR off or Tesseract missing,
// the scanned pages found from the extractor's image flags (without
// PDFium) give the result PDFium's look at the pages gives.
func TestNoOCRSparesPDFium(t *testing.T) {
	for _, name := range []string{"HL1396.pdf", "blank-scan.pdf", "WaldenFull.pdf", "testImage.pdf"} {
		for _, o := range []OCROptions{{Off: true}, {Tesseract: "/nonexistent/tesseract"}} {
			data, err := os.ReadFile(filepath.Join(corpusDir(t), name))
			if err != nil {
				t.Fatal(err)
			}
			st, err := readStructure(context.Background(), data, "")
			if err != nil {
				t.Fatal(err)
			}
			native := nativeText(context.Background(), st.ctx, nil)
			if native == nil {
				t.Fatalf("%s: the extractor did not read it", name)
			}
			texts := append([]string(nil), native.texts...)
			got, err := ocrCandidates(context.Background(), data, "", texts, func(i int) bool { return native.images[i] }, o)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := sharedEngine()
			if err != nil {
				t.Fatal(err)
			}
			want, err := ocrScanned(context.Background(), eng, data, "", append([]string(nil), native.texts...), o)
			if err != nil {
				t.Fatal(err)
			}
			if got.scanned != want.scanned || got.missing != want.missing || got.off != want.off || !reflect.DeepEqual(got.warnings, want.warnings) {
				t.Errorf("%s %+v: without PDFium %+v, with PDFium %+v", name, o, got, want)
			}
			if name == "HL1396.pdf" && got.scanned != 18 {
				t.Errorf("%s: %d scanned pages, want 18", name, got.scanned)
			}
		}
	}
}

// twoPagePDF writes a PDF of two pages: the first in Helvetica, the second
// in a composite font with vertical writing, which our extractor leaves to
// PDFium (its ToUnicode map lets PDFium read it).
func twoPagePDF() []byte {
	cmap := `/CIDInit /ProcSet findresource begin 12 dict begin begincmap
1 begincodespacerange <0000> <FFFF> endcodespacerange
1 beginbfrange <0001> <001A> <0061> endbfrange
endcmap end end`
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents 5 0 R >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F2 7 0 R >> >> /Contents 6 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len("BT /F1 12 Tf 72 700 Td (upright words) Tj ET"), "BT /F1 12 Tf 72 700 Td (upright words) Tj ET"),
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len("BT /F2 12 Tf 300 700 Td <000B000900130013> Tj ET"), "BT /F2 12 Tf 300 700 Td <000B000900130013> Tj ET"),
		"<< /Type /Font /Subtype /Type0 /BaseFont /Some /Encoding /Identity-V /ToUnicode 9 0 R /DescendantFonts [8 0 R] >>",
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Some /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 1000 >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap),
	}
	return testpdf.Assemble(objs)
}

// TestFallbackToPDFium checks that a page our extractor is not confident
// about is read by PDFium while the others keep our reading.
func TestFallbackToPDFium(t *testing.T) {
	data := twoPagePDF()
	st, err := readStructure(context.Background(), data, "")
	if err != nil {
		t.Fatal(err)
	}
	native := nativeText(context.Background(), st.ctx, nil)
	if native == nil || !reflect.DeepEqual(native.fallback, []int{1}) {
		t.Fatalf("fallback pages %+v, want [1]", native)
	}
	path := filepath.Join(t.TempDir(), "vertical.pdf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	doc, err := FileWithOptions(context.Background(), path, noOCR)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Pages[0].Text != "upright words" {
		t.Errorf("page 1 %q, want our reading", doc.Pages[0].Text)
	}
	if got := strings.ReplaceAll(doc.Pages[1].Text, "\n", ""); got != "kiss" {
		t.Errorf("page 2 %q, want PDFium's reading %q", doc.Pages[1].Text, "kiss")
	}
}
