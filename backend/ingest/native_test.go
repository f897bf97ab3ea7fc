package ingest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
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
