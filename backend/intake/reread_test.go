package intake_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/intake"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testengine"
)

// verifies a scanned document whose word boxes were lost (as one OCR'd before boxes
// were kept) is listed as missing them, regains them by a re-read with real Tesseract
// (same boxes, same page texts, same passages), and is re-read automatically only once.
func TestRereadRestoresOCRWords(t *testing.T) {
	ctx := context.Background()
	eng, res := ingestScan(t)
	if len(res.OCRPages) == 0 {
		t.Fatalf("ingest: no OCR pages: %+v", res)
	}
	id, page := res.DocID, res.OCRPages[0]
	before, err := eng.Library().PageWords(ctx, id, page)
	if err != nil || len(before.Words) < 10 {
		t.Fatalf("words of page %d after ingest: %d, %v", page, len(before.Words), err)
	}
	texts := func() []string {
		var out []string
		for p := 1; p <= res.Pages; p++ {
			s, err := eng.Library().PageText(ctx, id, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	textsBefore := texts()
	if got := eng.Intake().OCRPageCount(id); got != len(res.OCRPages) {
		t.Errorf("OCRPageCount = %d, want %d", got, len(res.OCRPages))
	}

	// The library of an older Carrel: OCR'd text, no boxes.
	if err := eng.Library().ReplacePageWords(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	if pw, _ := eng.Library().PageWords(ctx, id, page); len(pw.Words) != 0 {
		t.Fatal("words left after deleting them")
	}
	missing, err := eng.Intake().MissingWords(ctx)
	if err != nil || len(missing) != 1 || missing[0].ID != id {
		t.Fatalf("MissingWords = %v, %v", missing, err)
	}

	var states []library.DocStatus
	ids, err := eng.Intake().RereadMissingWords(ctx, func(d library.Document) {
		if len(states) == 0 || states[len(states)-1] != d.Status {
			states = append(states, d.Status)
		}
	})
	if err != nil || !slices.Equal(ids, []string{id}) {
		t.Fatalf("RereadMissingWords = %v, %v", ids, err)
	}
	if states[len(states)-1] != library.StatusReady {
		t.Errorf("states while re-reading: %v", states)
	}
	after, err := eng.Library().PageWords(ctx, id, page)
	if err != nil || fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("words after re-read differ: %d words, %v", len(after.Words), err)
	}
	if got := texts(); !slices.Equal(got, textsBefore) {
		t.Errorf("page texts changed by the re-read")
	}
	d, err := eng.Library().Document(ctx, id)
	if err != nil || d.Status != library.StatusReady || d.Chunks != res.Chunks {
		t.Errorf("document after re-read: %+v (%d passages before), %v", d, res.Chunks, err)
	}
	hits, err := eng.Intake().Lexical().Search("Gallagher", 5, nil)
	if err != nil || len(hits) == 0 {
		t.Errorf("no lexical hit after the re-read: %v %v", hits, err)
	}
	if missing, _ := eng.Intake().MissingWords(ctx); len(missing) != 0 {
		t.Errorf("still missing words: %v", missing)
	}

	// A document that gives no boxes however often it is read is not read at every start.
	if err := eng.Library().ReplacePageWords(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	if ids, err := eng.Intake().RereadMissingWords(ctx, nil); err != nil || len(ids) != 0 {
		t.Errorf("second automatic re-read: %v, %v", ids, err)
	}
}

// verifies Reread reads a text document again, and refuses with a clear reason (leaving
// the document ready) when its file changed or is gone.
func TestRereadRefusals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng := testengine.Open(t, engine.Config{Dir: filepath.Join(dir, "lib")})
	path := filepath.Join(dir, "notes.md")
	if err := os.WriteFile(path, []byte("# Notes\n\nThe mitochondrion is the powerhouse of the cell.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Intake().IngestFile(ctx, path, nil)
	if err != nil || res.Status != intake.Inserted {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	again, err := eng.Intake().Reread(ctx, res.DocID, nil)
	if err != nil || again.Status != intake.Inserted || again.Chunks != res.Chunks {
		t.Fatalf("Reread = %+v, %v", again, err)
	}
	if _, err := eng.Intake().Reread(ctx, "nosuchdoc", nil); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("unknown document: %v", err)
	}
	if err := os.WriteFile(path, []byte("# Notes\n\nChanged.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Intake().Reread(ctx, res.DocID, nil); err == nil || !strings.Contains(err.Error(), "has changed since it was added") {
		t.Errorf("changed file: %v", err)
	}
	os.Remove(path)
	if _, err := eng.Intake().Reread(ctx, res.DocID, nil); err == nil || !strings.Contains(err.Error(), "add it again from where it is now") {
		t.Errorf("missing file: %v", err)
	}
	if d, err := eng.Library().Document(ctx, res.DocID); err != nil || d.Status != library.StatusReady {
		t.Errorf("document after refusals: %+v, %v", d, err)
	}
}
