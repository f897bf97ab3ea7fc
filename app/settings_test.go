package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/ingest"
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
	a := New(eng, newHub())
	a.start(context.Background())
	defer a.stop()

	cs := a.ChunkSettings()
	if len(cs.DocTypes) != len(ingest.DocTypes) || cs.Error != "" {
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
	if len(cs.Profiles[ingest.TypePaper]) != len(cs.Fields) {
		t.Fatalf("paper profile %v does not have every field", cs.Profiles[ingest.TypePaper])
	}
	if cs.Defaults[ingest.TypePaper]["target"] != float64(chunk.DefaultProfiles()[ingest.TypePaper].Target) {
		t.Fatalf("paper defaults %v", cs.Defaults[ingest.TypePaper])
	}

	paper := cs.Profiles[ingest.TypePaper]
	paper["target"], paper["max"] = 1500, 2100
	got, err := a.SetChunkSettings(map[string]map[string]float64{ingest.TypePaper: paper, ingest.TypeMail: cs.Profiles[ingest.TypeMail]})
	if err != nil {
		t.Fatal(err)
	}
	if got.Profiles[ingest.TypePaper]["target"] != 1500 || got.Profiles[ingest.TypePaper]["max"] != 2100 {
		t.Fatalf("after saving: %v", got.Profiles[ingest.TypePaper])
	}
	b, err := os.ReadFile(filepath.Join(dir, chunk.ProfilesFile))
	if err != nil {
		t.Fatal(err)
	}
	var file map[string]map[string]any
	json.Unmarshal(b, &file)
	if len(file) != 1 || len(file[ingest.TypePaper]) != 2 {
		t.Fatalf("chunking.json holds more than the changes: %s", b)
	}
	if p, _ := chunk.LoadProfiles(filepath.Join(dir, chunk.ProfilesFile)); p.For(ingest.TypePaper).Target != 1500 {
		t.Fatalf("the chunker would not use the new target: %+v", p.For(ingest.TypePaper))
	}

	bad := map[string]map[string]float64{
		ingest.TypePaper: {"target": 1000, "min": 1200, "max": 900.5, "overlap": 0.9},
		"poetry":         {"target": 10},
	}
	_, err = a.SetChunkSettings(bad)
	if err == nil {
		t.Fatal("bad values were saved")
	}
	for _, want := range []string{"paper.min: must be at most", "paper.max: must be a whole number", "paper.overlap: must be between", "poetry: not a document type"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if a.ChunkSettings().Profiles[ingest.TypePaper]["target"] != 1500 {
		t.Fatal("a refused change altered the settings")
	}

	// Re-chunking with small sizes cuts a document already in the library into more passages.
	text := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(text, []byte(strings.Repeat("The quokka counts its steps along the shore and writes them down in a notebook. ", 40)), 0o644)
	if _, err := eng.IngestFile(context.Background(), text, nil); err != nil {
		t.Fatal(err)
	}
	chunksOf := func() int {
		docs, _ := a.ListDocuments()
		if len(docs) != 1 {
			t.Fatalf("documents: %+v", docs)
		}
		return docs[0].Chunks
	}
	before := chunksOf()
	small := map[string]map[string]float64{}
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
	if _, err := a.SetChunkSettings(small); err != nil {
		t.Fatal(err)
	}
	if r, err := a.RechunkLibrary(); err != nil || r.Documents != 1 {
		t.Fatalf("RechunkLibrary = %+v, %v", r, err)
	}
	if after := chunksOf(); after <= before {
		t.Fatalf("re-chunking with smaller sizes gave %d passages, before %d", after, before)
	}
	if hits, err := a.Search("quokka notebook", 3, nil); err != nil || len(hits) == 0 {
		t.Fatalf("search after re-chunking: %v %v", hits, err)
	}

	if _, err := a.SetChunkSettings(cs.Defaults); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, chunk.ProfilesFile)); !os.IsNotExist(err) {
		t.Fatalf("all defaults should remove chunking.json: %v", err)
	}
}

// verifies switching the library folder over the browser bridge: opening a new empty
// folder starts an empty library there and remembers it, moving carries documents,
// uploads and settings along (the old folder is gone, files still open), and bad targets
// are refused with a reason while the current library stays open.
func TestSetLibraryFolder(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("CARREL_LIBRARY", "")
	first := filepath.Join(root, "first")
	eng, err := engine.Open(engine.Config{Dir: first, OllamaHost: "127.0.0.1:9", ChatModel: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := NewServer(ctx, eng, fstest.MapFS{}, ServerOptions{Token: testToken})
	defer srv.Stop()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer cancel()
	evs := events(t, ctx, ts.URL+"/api/events")

	// A document uploaded into the library's inbox.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("files", "note.txt")
	text := "The quokka keeps its notes in the library folder, wherever that folder goes.\n"
	fw.Write([]byte(text))
	mw.Close()
	if r, err := send("POST", ts.URL+"/api/upload", mw.FormDataContentType(), &body); err != nil || r.StatusCode != 200 {
		t.Fatalf("upload: %v %v", r, err)
	}
	waitReady(t, evs)

	// Refused: not a library and not empty; a file; inside a file; unwritable; relative.
	other := filepath.Join(root, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "thesis.pdf"), []byte("x"), 0o644)
	var e map[string]string
	for _, c := range []struct {
		dir  string
		move bool
		want string
	}{
		{other, false, "not a Carrel library"},
		{other, true, "is not empty"},
		{filepath.Join(other, "thesis.pdf"), false, "is a file"},
		{filepath.Join(other, "thesis.pdf", "lib"), false, "not a directory"},
		{"/proc/carrel-library", false, "cannot write in /proc"}, // even root cannot
		{"relative/lib", false, "not a full path"},
		{first, false, "already the library folder"},
		{filepath.Join(first, "inner"), true, "into itself"},
	} {
		if code := call(t, ts.URL, "SetLibraryFolder", &e, c.dir, c.move); code != 422 || !strings.Contains(e["error"], c.want) {
			t.Errorf("SetLibraryFolder(%s, %v) = %d %q, want %q", c.dir, c.move, code, e["error"], c.want)
		}
	}
	var docs []Document
	if call(t, ts.URL, "ListDocuments", &docs); len(docs) != 1 {
		t.Fatalf("after refused switches the library changed: %+v", docs)
	}

	// Open a new, empty folder: a new library, remembered for the next start.
	fresh := filepath.Join(root, "fresh")
	var info LibraryFolder
	if code := call(t, ts.URL, "SetLibraryFolder", &info, fresh, false); code != 200 || info.Dir != fresh || info.Documents != 0 || !info.Remembered {
		t.Fatalf("open fresh: %d %+v", code, info)
	}
	if engine.DefaultDir() != fresh {
		t.Fatalf("the next start opens %s, not %s", engine.DefaultDir(), fresh)
	}
	var st engine.Status
	if call(t, ts.URL, "Status", &st); st.Library != fresh || st.ChatModel != "tiny" {
		t.Fatalf("status after the switch: library %s, chat model %s", st.Library, st.ChatModel)
	}
	if _, err := os.Stat(filepath.Join(first, "library.db")); err != nil {
		t.Fatalf("opening another library must leave this one: %v", err)
	}

	// Back to the first, then move it: its document, upload and settings come along.
	if code := call(t, ts.URL, "SetLibraryFolder", &info, first, false); code != 200 || info.Documents != 1 {
		t.Fatalf("reopen first: %d %+v %v", code, info, e)
	}
	moved := filepath.Join(root, "elsewhere", "carrel")
	if code := call(t, ts.URL, "SetLibraryFolder", &info, moved, true); code != 200 || info.Dir != moved || info.Documents != 1 {
		t.Fatalf("move: %d %+v", code, info)
	}
	if _, err := os.Stat(first); !os.IsNotExist(err) {
		t.Fatalf("the old folder is still there after a move: %v", err)
	}
	if call(t, ts.URL, "ListDocuments", &docs); len(docs) != 1 || !strings.HasPrefix(docs[0].Path, moved) {
		t.Fatalf("after the move: %+v", docs)
	}
	r, err := send("GET", ts.URL+"/files/"+docs[0].ID, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if string(got) != text {
		t.Fatalf("the moved upload is not served: %s %q", r.Status, got)
	}
	var hits []engine.Hit
	if call(t, ts.URL, "Search", &hits, "quokka", 5, []string{}); len(hits) == 0 {
		t.Fatal("the moved library's index does not answer")
	}
	if engine.DefaultDir() != moved {
		t.Fatalf("remembered %s after the move", engine.DefaultDir())
	}
	// Ingest works in the moved library (its workers were restarted).
	os.WriteFile(filepath.Join(root, "second.txt"), []byte("Wombats dig burrows in the moved library.\n"), 0o644)
	var q Queued
	if call(t, ts.URL, "AddPaths", &q, []string{filepath.Join(root, "second.txt")}); q.Queued != 1 {
		t.Fatalf("AddPaths after the move: %+v", q)
	}
	waitReady(t, evs)
}

// waitReady waits for a library:changed event saying a document is ready.
func waitReady(t *testing.T, evs <-chan sse) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case ev := <-evs:
			if ev.name != EventLibraryChanged {
				continue
			}
			var d Document
			json.Unmarshal(ev.data, &d)
			switch d.Status {
			case "ready":
				return
			case "failed":
				t.Fatalf("ingest failed: %s", d.Error)
			}
		case <-deadline:
			t.Fatal("no document became ready")
		}
	}
}
