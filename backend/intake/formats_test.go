package intake_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/intake"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testengine"
)

// verifies a mail is ingested with each supported attachment as a document of its own
// (saved under the library folder so the viewer can open it), and that unsupported
// attachments are left out.
func TestIngestMailAttachments(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	eng := testengine.Open(t, engine.Config{Dir: dir})
	pdf, err := os.ReadFile(testcorpus.File(t, "Walden.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	part := func(name, ctype string, data []byte) string {
		return "--b\r\nContent-Type: " + ctype + "\r\nContent-Disposition: attachment; filename=\"" + name +
			"\"\r\nContent-Transfer-Encoding: base64\r\n\r\n" + base64.StdEncoding.EncodeToString(data) + "\r\n"
	}
	mail := "From: Tutor <t@example.org>\r\nTo: ada@example.org\r\nSubject: Reading for Monday\r\n" +
		"MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n" +
		"--b\r\nContent-Type: text/plain\r\n\r\nPlease read the attached chapter about the pond.\r\n" +
		part("walden.pdf", "application/pdf", pdf) +
		part("questions.md", "text/markdown", []byte("# Questions\n\nWhy did Thoreau go to the woods?\n")) +
		part("photo.png", "image/png", []byte("\x89PNG\r\n\x1a\n")) + "--b--\r\n"
	path := filepath.Join(t.TempDir(), "reading.eml")
	if err := os.WriteFile(path, []byte(mail), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []string
	res, err := eng.Intake().IngestFile(ctx, path, func(d library.Document) {
		if d.Status == library.StatusReady {
			seen = append(seen, d.Title)
		}
	})
	if err != nil || res.Status != intake.Inserted {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	if len(res.Attachments) != 2 {
		t.Fatalf("attachments: %+v", res.Attachments)
	}
	for _, a := range res.Attachments {
		if a.Status != intake.Inserted || !strings.HasPrefix(a.Path, filepath.Join(dir, "attachments")) {
			t.Errorf("attachment %+v", a)
		}
	}
	docs, err := eng.Library().Documents(ctx)
	if err != nil || len(docs) != 3 {
		t.Fatalf("library has %d documents (%v)", len(docs), err)
	}
	kinds := map[document.Kind]bool{}
	for _, d := range docs {
		kinds[d.Kind] = true
	}
	if !kinds["email"] || !kinds["pdf"] || !kinds["text"] {
		t.Errorf("kinds %v", kinds)
	}
	hits, err := eng.Search(ctx, "Thoreau woods", engine.SearchOptions{K: 5})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search: %v %v", hits, err)
	}
	t.Logf("ready: %q", seen)
}

// verifies a file that vanishes after it was picked up fails alone, with a clear message,
// and the files after it are still ingested; a pipe and a huge sparse file are refused
// before a byte of them is read.
func TestIngestHostileFiles(t *testing.T) {
	ctx := context.Background()
	eng := testengine.Open(t, engine.Config{})
	src := t.TempDir()
	gone := filepath.Join(src, "gone.md")
	kept := filepath.Join(src, "kept.md")
	huge := filepath.Join(src, "huge.txt")
	os.WriteFile(gone, []byte("# Gone\n\nThis file is deleted while it is ingested.\n"), 0o644)
	os.WriteFile(kept, []byte("# Kept\n\nThis file stays.\n"), 0o644)
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil { // sparse: costs no disk
		t.Fatal(err)
	}
	f.Close()

	res, err := eng.Intake().IngestFile(ctx, gone, func(d library.Document) {
		if d.Status == library.StatusExtracting {
			os.Remove(gone)
		}
	})
	if err != nil || res.Status != intake.Failed || !strings.Contains(res.Error, "moved or deleted") {
		t.Errorf("vanished file: %+v %v", res, err)
	}
	res, err = eng.Intake().IngestFile(ctx, huge, nil)
	if err != nil || res.Status != intake.Failed || !strings.Contains(res.Error, "too large") || res.DocID != "" {
		t.Errorf("1 GB file: %+v %v", res, err)
	}
	res, err = eng.Intake().IngestFile(ctx, kept, nil)
	if err != nil || res.Status != intake.Inserted {
		t.Errorf("file after them: %+v %v", res, err)
	}
}

// verifies IngestFiles ingests several files at once, returns results in input order, and
// fails a bad file alone.
func TestIngestFilesConcurrently(t *testing.T) {
	ctx := context.Background()
	eng := testengine.Open(t, engine.Config{})
	dir := t.TempDir()
	var paths []string
	for i, body := range []string{"# One\n\nFirst notes about ponds.\n", "not a pdf", "# Three\n\nThird notes about woods.\n"} {
		name := []string{"one.md", "two.pdf", "three.md"}[i]
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		paths = append(paths, p)
	}
	paths = append(paths, testcorpus.File(t, "Walden.pdf"))
	calls := 0
	res, err := eng.Intake().IngestFiles(ctx, paths, 2, nil, func(i int, r intake.Result) { calls++ })
	if err != nil || len(res) != 4 || calls != 4 {
		t.Fatalf("%+v %v (%d calls)", res, err, calls)
	}
	for i, want := range []intake.IngestStatus{intake.Inserted, intake.Failed, intake.Inserted, intake.Inserted} {
		if res[i].Status != want || !strings.HasSuffix(res[i].Path, filepath.Base(paths[i])) {
			t.Errorf("result %d: %+v, want %s", i, res[i], want)
		}
	}
	if !strings.Contains(res[1].Error, "not a PDF") {
		t.Errorf("bad file's error: %q", res[1].Error)
	}
}
