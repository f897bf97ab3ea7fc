package app

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testengine"
)

// verifies switching the library folder over the browser bridge: opening a new empty
// folder starts an empty library there and remembers it, moving carries documents,
// uploads and settings along (the old folder is gone, files still open), and bad targets
// are refused with a reason while the current library stays open.
func TestSetLibraryFolder(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "config"))
	t.Setenv("CARREL_LIBRARY", "")
	first := filepath.Join(root, "first")
	// The switch below closes it.
	eng := testengine.Open(t, engine.Config{Dir: first, ChatModel: "tiny"}, testengine.ClosedByCaller())
	_, base, evs := serve(t, eng, fstest.MapFS{})

	// A document uploaded into the library's inbox.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("files", "note.txt")
	text := "The quokka keeps its notes in the library folder, wherever that folder goes.\n"
	fw.Write([]byte(text))
	mw.Close()
	if r, err := send("POST", base+"/api/upload", mw.FormDataContentType(), &body); err != nil || r.StatusCode != 200 {
		t.Fatalf("upload: %v %v", r, err)
	}
	waitReady(t, evs)

	// Each step starts from the library the steps before left open.
	var (
		e    map[string]string
		docs []Document
		info LibraryFolder
	)
	t.Run("bad targets are refused and the library stays", func(t *testing.T) {
		// Refused: not a library and not empty; a file; inside a file; unwritable; relative.
		other := filepath.Join(root, "other")
		os.MkdirAll(other, 0o755)
		os.WriteFile(filepath.Join(other, "thesis.pdf"), []byte("x"), 0o644)
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
			if code := call(t, base, "SetLibraryFolder", &e, c.dir, c.move); code != 422 || !strings.Contains(e["error"], c.want) {
				t.Errorf("SetLibraryFolder(%s, %v) = %d %q, want %q", c.dir, c.move, code, e["error"], c.want)
			}
		}
		if call(t, base, "ListDocuments", &docs); len(docs) != 1 {
			t.Fatalf("after refused switches the library changed: %+v", docs)
		}
	})

	t.Run("an empty folder opens a new library, remembered", func(t *testing.T) {
		// Open a new, empty folder: a new library, remembered for the next start.
		fresh := filepath.Join(root, "fresh")
		if code := call(t, base, "SetLibraryFolder", &info, fresh, false); code != 200 || info.Dir != fresh || info.Documents != 0 || !info.Remembered {
			t.Fatalf("open fresh: %d %+v", code, info)
		}
		if engine.DefaultDir() != fresh {
			t.Fatalf("the next start opens %s, not %s", engine.DefaultDir(), fresh)
		}
		var st engine.Status
		if call(t, base, "Status", &st); st.Library != fresh || st.ChatModel != "tiny" {
			t.Fatalf("status after the switch: library %s, chat model %s", st.Library, st.ChatModel)
		}
		if _, err := os.Stat(filepath.Join(first, "library.db")); err != nil {
			t.Fatalf("opening another library must leave this one: %v", err)
		}
	})

	t.Run("moving carries the document, its upload and the settings", func(t *testing.T) {
		// Back to the first, then move it: its document, upload and settings come along.
		if code := call(t, base, "SetLibraryFolder", &info, first, false); code != 200 || info.Documents != 1 {
			t.Fatalf("reopen first: %d %+v %v", code, info, e)
		}
		moved := filepath.Join(root, "elsewhere", "carrel")
		if code := call(t, base, "SetLibraryFolder", &info, moved, true); code != 200 || info.Dir != moved || info.Documents != 1 {
			t.Fatalf("move: %d %+v", code, info)
		}
		if _, err := os.Stat(first); !os.IsNotExist(err) {
			t.Fatalf("the old folder is still there after a move: %v", err)
		}
		if call(t, base, "ListDocuments", &docs); len(docs) != 1 || !strings.HasPrefix(docs[0].Path, moved) {
			t.Fatalf("after the move: %+v", docs)
		}
		r, err := send("GET", base+"/files/"+docs[0].ID, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if string(got) != text {
			t.Fatalf("the moved upload is not served: %s %q", r.Status, got)
		}
		var hits []engine.Hit
		if call(t, base, "Search", &hits, "quokka", 5, []string{}); len(hits) == 0 {
			t.Fatal("the moved library's index does not answer")
		}
		if engine.DefaultDir() != moved {
			t.Fatalf("remembered %s after the move", engine.DefaultDir())
		}
	})

	t.Run("ingest works in the moved library", func(t *testing.T) {
		// Ingest works in the moved library (its workers were restarted).
		os.WriteFile(filepath.Join(root, "second.txt"), []byte("Wombats dig burrows in the moved library.\n"), 0o644)
		var q Queued
		if call(t, base, "AddPaths", &q, []string{filepath.Join(root, "second.txt")}); q.Queued != 1 {
			t.Fatalf("AddPaths after the move: %+v", q)
		}
		waitReady(t, evs)
	})
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
