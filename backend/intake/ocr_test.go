package intake_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/intake"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testengine"
)

// ingestScan opens an engine on a new library with no Ollama and ingests the corpus's
// scanned PDF through real Tesseract.
func ingestScan(t *testing.T) (*engine.Engine, intake.Result) {
	t.Helper()
	if _, err := exec.LookPath("tesseract"); err != nil {
		t.Fatal("tesseract is not installed: run `go tool task setup:test` (apt install tesseract-ocr)")
	}
	eng := testengine.Open(t, engine.Config{OllamaHost: "127.0.0.1:9"})
	res, err := eng.Intake().IngestFile(context.Background(), testcorpus.File(t, "Wonderwall.pdf"), nil)
	if err != nil || res.Status != intake.Inserted {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	return eng, res
}

// verifies a scanned PDF is ingested through OCR, its OCR pages reported in the intake.Result
// and kept in the document's info, searchable by a word only the scan holds; and that
// removing the document removes its info.
func TestIngestScannedPDF(t *testing.T) {
	ctx := context.Background()
	eng, res := ingestScan(t)
	if len(res.OCRPages) < 4 || res.OCRPages[0] != 1 {
		t.Errorf("OCRPages = %v", res.OCRPages)
	}
	info, err := eng.Intake().DocumentInfo(res.DocID)
	if err != nil || len(info.OCRPages) != len(res.OCRPages) {
		t.Errorf("DocumentInfo = %+v, %v", info, err)
	}
	hits, err := eng.Intake().Lexical().Search("Gallagher", 5, nil)
	if err != nil || len(hits) == 0 {
		t.Errorf("no lexical hit for a word of the scan: %v %v", hits, err)
	}
	if err := eng.Intake().Remove(ctx, res.DocID); err != nil {
		t.Fatal(err)
	}
	if info, _ := eng.Intake().DocumentInfo(res.DocID); len(info.OCRPages) != 0 {
		t.Errorf("info left after Remove: %+v", info)
	}
}

// verifies a document's type reaches the intake.Result and its info, and that chunking.json in
// the library folder changes the passage sizes of documents ingested afterwards.
func TestIngestDocTypeAndChunkSizes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng := testengine.Open(t, engine.Config{Dir: dir})
	paper := testcorpus.File(t, "schmager_plateau10.pdf")
	res, err := eng.Intake().IngestFile(ctx, paper, nil)
	if err != nil || res.Status != intake.Inserted || res.DocType != "paper" {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	if info, err := eng.Intake().DocumentInfo(res.DocID); err != nil || info.DocType != "paper" {
		t.Errorf("DocumentInfo = %+v, %v", info, err)
	}
	// The passages (parents) follow target; Result.Chunks counts their children.
	before, err := eng.Library().DocumentParents(ctx, res.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Intake().Remove(ctx, res.DocID); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chunking.json"), []byte(`{"paper": {"target": 600, "min": 150, "max": 800}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	small, err := eng.Intake().IngestFile(ctx, paper, nil)
	if err != nil || small.Status != intake.Inserted {
		t.Fatalf("re-ingest: %+v %v", small, err)
	}
	after, err := eng.Library().DocumentParents(ctx, small.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) <= len(before)*3/2 {
		t.Errorf("%d passages with target 600, %d with the paper default 1200", len(after), len(before))
	}
}
