package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/retrieve"
)

// verifies the chunking settings: every type and numeric field is listed with its
// defaults, a change is saved as an override in chunking.json and read back, bad values
// are refused naming type and field, and all defaults remove the file.
func TestChunkSettings(t *testing.T) {
	dir := t.TempDir()
	eng, err := engine.Open(engine.Config{Dir: dir, OllamaHost: "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	w := New(eng, Hooks{})
	w.Start(context.Background())
	defer w.Stop()

	cs := w.ChunkSettings()
	// Each step works on the settings the steps before left.
	t.Run("every type and numeric field is listed with its defaults", func(t *testing.T) {
		if len(cs.DocTypes) != len(document.Types) || cs.Error != "" {
			t.Fatalf("types %v, error %q", cs.DocTypes, cs.Error)
		}
		names := map[string]bool{}
		for _, f := range cs.Fields {
			names[f.Name] = true
		}
		for _, n := range []string{"target", "min", "max", "overlap"} {
			if !names[n] {
				t.Fatalf("field %s missing from %+v", n, cs.Fields)
			}
		}
		if len(cs.Profiles[document.TypePaper]) != len(cs.Fields) {
			t.Fatalf("paper profile %v does not have every field", cs.Profiles[document.TypePaper])
		}
		if cs.Defaults[document.TypePaper]["target"] != float64(chunk.DefaultProfiles()[document.TypePaper].Target) {
			t.Fatalf("paper defaults %v", cs.Defaults[document.TypePaper])
		}
	})

	t.Run("a change is saved as an override and read back", func(t *testing.T) {
		paper := cs.Profiles[document.TypePaper]
		paper["target"], paper["max"] = 1500, 2100
		got, err := w.SetChunkSettings(map[document.Type]map[string]float64{document.TypePaper: paper, document.TypeMail: cs.Profiles[document.TypeMail]})
		if err != nil {
			t.Fatal(err)
		}
		if got.Profiles[document.TypePaper]["target"] != 1500 || got.Profiles[document.TypePaper]["max"] != 2100 {
			t.Fatalf("after saving: %v", got.Profiles[document.TypePaper])
		}
		b, err := os.ReadFile(filepath.Join(dir, chunk.ProfilesFile))
		if err != nil {
			t.Fatal(err)
		}
		var file map[string]map[string]any
		json.Unmarshal(b, &file)
		if len(file) != 1 || len(file[string(document.TypePaper)]) != 2 {
			t.Fatalf("chunking.json holds more than the changes: %s", b)
		}
		if p, _ := chunk.LoadProfiles(filepath.Join(dir, chunk.ProfilesFile)); p.For(document.TypePaper).Target != 1500 {
			t.Fatalf("the chunker would not use the new target: %+v", p.For(document.TypePaper))
		}
	})

	t.Run("bad values are refused, naming type and field", func(t *testing.T) {
		bad := map[document.Type]map[string]float64{
			document.TypePaper: {"target": 1000, "min": 1200, "max": 900.5, "overlap": 0.9},
			"poetry":           {"target": 10},
		}
		_, err := w.SetChunkSettings(bad)
		if err == nil {
			t.Fatal("bad values were saved")
		}
		for _, want := range []string{"paper.min: must be at most", "paper.max: must be a whole number", "paper.overlap: must be between", "poetry: not a document type"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
		if w.ChunkSettings().Profiles[document.TypePaper]["target"] != 1500 {
			t.Fatal("a refused change altered the settings")
		}
	})

	// Re-chunking with small sizes cuts a document already in the library into more passages.
	t.Run("re-chunking with smaller sizes cuts a document into more passages", func(t *testing.T) {
		text := filepath.Join(t.TempDir(), "notes.txt")
		os.WriteFile(text, []byte(strings.Repeat("The quokka counts its steps along the shore and writes them down in a notebook. ", 40)), 0o644)
		if _, err := eng.Intake().IngestFile(context.Background(), text, nil); err != nil {
			t.Fatal(err)
		}
		chunksOf := func() int {
			t.Helper()
			docs, _ := eng.Library().Documents(context.Background())
			if len(docs) != 1 {
				t.Fatalf("documents: %+v", docs)
			}
			return docs[0].Chunks
		}
		before := chunksOf()
		small := map[document.Type]map[string]float64{}
		for _, ty := range cs.DocTypes {
			p := map[string]float64{}
			for k, v := range cs.Profiles[ty] {
				p[k] = v
			}
			for k := range p {
				switch {
				case strings.HasSuffix(k, "target"):
					p[k] = 120
				case strings.HasSuffix(k, "min"):
					p[k] = 40
				case strings.HasSuffix(k, "max"):
					p[k] = 200
				}
			}
			small[ty] = p
		}
		if _, err := w.SetChunkSettings(small); err != nil {
			t.Fatal(err)
		}
		if ids, err := w.Rechunk(); err != nil || len(ids) != 1 {
			t.Fatalf("Rechunk = %v, %v", ids, err)
		}
		if after := chunksOf(); after <= before {
			t.Fatalf("re-chunking with smaller sizes gave %d passages, before %d", after, before)
		}
		if hits, err := eng.Search(context.Background(), "quokka notebook", engine.SearchOptions{K: 3, Mode: retrieve.Hybrid}); err != nil || len(hits) == 0 {
			t.Fatalf("search after re-chunking: %v %v", hits, err)
		}
	})

	t.Run("all defaults remove chunking.json", func(t *testing.T) {
		if _, err := w.SetChunkSettings(cs.Defaults); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, chunk.ProfilesFile)); !os.IsNotExist(err) {
			t.Fatalf("all defaults should remove chunking.json: %v", err)
		}
	})
}
