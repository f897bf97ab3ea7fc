package chunk

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/ingest"
)

// verifies every document type has a sane profile and that unknown types
// fall back to the general one.
func TestDefaultProfiles(t *testing.T) {
	p := DefaultProfiles()
	for _, typ := range document.Types {
		o, ok := p[typ]
		if !ok {
			t.Errorf("no profile for %q", typ)
			continue
		}
		if o != o.sane() || o.Min >= o.Target || o.Target >= o.Max || o.Overlap < 0.1 || o.Overlap > 0.2 {
			t.Errorf("%s: %+v is not sane, or overlap is outside 10–20%%", typ, o)
		}
	}
	if p.For("no such type") != p[document.TypeGeneral] || (Profiles{}).For("paper") != DefaultOptions() {
		t.Errorf("fallbacks wrong")
	}
}

// verifies chunking.json overrides single fields and types, a missing file gives the
// defaults, and a broken one the defaults with an error.
func TestLoadProfiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ProfilesFile)
	p, err := LoadProfiles(path)
	if err != nil || p.For(document.TypePaper) != DefaultProfiles()[document.TypePaper] {
		t.Fatalf("missing file: %+v %v", p, err)
	}
	os.WriteFile(path, []byte(`{"paper": {"target": 2000}, "mail": {"overlap": 0.2}, "slides": {"target": 400}}`), 0o644)
	p, err = LoadProfiles(path)
	if err != nil {
		t.Fatal(err)
	}
	if o := p.For(document.TypePaper); o.Target != 2000 || o.Min != 300 || o.Max < 2000 {
		t.Errorf("paper: %+v", o)
	}
	if o := p.For(document.TypeMail); o.Overlap != 0.2 || o.Target != 700 {
		t.Errorf("mail: %+v", o)
	}
	if o := p.For("slides"); o.Target != 400 {
		t.Errorf("new type: %+v", o)
	}
	os.WriteFile(path, []byte(`{"paper": `), 0o644)
	if p, err = LoadProfiles(path); err == nil || p.For(document.TypePaper) != DefaultProfiles()[document.TypePaper] {
		t.Errorf("broken file: %+v %v", p, err)
	}
}

// verifies a real paper and a real textbook are split with their profiles: chunks
// larger than the general ones, every invariant kept.
func TestProfilesOnCorpus(t *testing.T) {
	dir := corpusDir(t)
	for _, c := range []struct {
		file string
		typ  document.Type
	}{{"schmager_plateau10.pdf", document.TypePaper}, {"gobook.0.pdf", document.TypeTextbook}} {
		doc, err := ingest.FileWithOptions(context.Background(), filepath.Join(dir, c.file), ingest.Options{OCR: ingest.OCROptions{Off: true}})
		if err != nil {
			t.Fatal(err)
		}
		if doc.DocType != c.typ {
			t.Fatalf("%s: DocType %q", c.file, doc.DocType)
		}
		opts := DefaultProfiles().For(doc.DocType)
		typed, general := Split(doc, opts), Split(doc, DefaultOptions())
		checkChunks(t, doc, opts, typed)
		mean := func(cs []Chunk) int {
			n := 0
			for _, c := range cs {
				n += utf8.RuneCountInString(c.Text)
			}
			return n / max(1, len(cs))
		}
		t.Logf("%s (%s): %d chunks of %d chars on average, against %d of %d", c.file, c.typ, len(typed), mean(typed), len(general), mean(general))
		if mean(typed) <= mean(general) {
			t.Errorf("%s: %s chunks (mean %d) not larger than general ones (mean %d)", c.file, c.typ, mean(typed), mean(general))
		}
	}
}
