package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testengine"
)

type sse struct {
	name Event
	data json.RawMessage
}

// serve serves eng's bridge to the test over HTTP (assets as the page, the test's token)
// and reads its events. When the test ends the event stream ends first (or closing the
// server waits for it), then the server closes and stops.
func serve(t *testing.T, eng *engine.Engine, assets fs.FS) (s *Server, base string, evs <-chan sse) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s = NewServer(ctx, eng, assets, ServerOptions{Token: testToken})
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		cancel()
		ts.Close()
		s.Stop()
	})
	return s, ts.URL, events(t, ctx, ts.URL+"/api/events")
}

// events reads Server-Sent Events from url into a channel.
func events(t *testing.T, ctx context.Context, url string) <-chan sse {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan sse, 1024)
	go func() {
		defer resp.Body.Close()
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var name Event
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = Event(strings.TrimPrefix(line, "event: "))
			case strings.HasPrefix(line, "data: "):
				ch <- sse{name, json.RawMessage(strings.TrimPrefix(line, "data: "))}
			}
		}
	}()
	return ch
}

// testToken is the key of the test servers; the helpers send it as a script would.
const testToken = "test-key"

// send makes a request with the server's key.
func send(method, url, contentType string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return http.DefaultClient.Do(req)
}

func call(t *testing.T, base, method string, out any, args ...any) int {
	t.Helper()
	if args == nil {
		args = []any{}
	}
	b, _ := json.Marshal(args)
	resp, err := send("POST", base+"/api/call/"+method, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if out != nil {
		json.NewDecoder(resp.Body).Decode(out)
	}
	return resp.StatusCode
}

// verifies the browser bridge end to end with a real engine (no model): upload a PDF,
// follow its progress to ready over SSE, list and search it, ask and receive the answer
// events, fetch the original file, and get clear errors for bad calls.
func TestBrowserBridge(t *testing.T) {
	pdf := testcorpus.File(t, "Walden.pdf")
	eng := testengine.Open(t, engine.Config{})
	srv, base, evs := serve(t, eng, fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>Carrel</title>")}})

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("files", "Walden.pdf")
	raw, _ := os.ReadFile(pdf)
	fw.Write(raw)
	mw.Close()
	resp, err := send("POST", base+"/api/upload", mw.FormDataContentType(), &body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("upload: %v %v", resp.Status, err)
	}

	var doc Document
	deadline := time.After(60 * time.Second)
	for doc.Status != "ready" {
		select {
		case ev := <-evs:
			if ev.name == EventLibraryChanged {
				json.Unmarshal(ev.data, &doc)
				if doc.Status == "failed" {
					t.Fatalf("ingest failed: %s", doc.Error)
				}
			}
		case <-deadline:
			t.Fatal("no ready event")
		}
	}

	// The document is ready; each subtest uses the bridge as the page would.
	t.Run("lists and searches the document", func(t *testing.T) {
		var docs []Document
		if call(t, base, "ListDocuments", &docs) != 200 || len(docs) != 1 || docs[0].Pages != 2 || docs[0].Chunks == 0 {
			t.Fatalf("ListDocuments = %+v", docs)
		}
		var hits []engine.Hit
		if call(t, base, "Search", &hits, "woods", 5, []string{}) != 200 || len(hits) == 0 || hits[0].DocID != doc.ID {
			t.Fatalf("Search = %+v", hits)
		}
	})

	t.Run("an answer arrives as events", func(t *testing.T) {
		var askID string
		if call(t, base, "Ask", &askID, "what about the woods?", []string{doc.ID}) != 200 || askID == "" {
			t.Fatal("Ask returned no id")
		}
		var started, done bool
		for !done {
			select {
			case ev := <-evs:
				var m map[string]any
				json.Unmarshal(ev.data, &m)
				if m["ask_id"] != nil && m["ask_id"] != askID {
					continue
				}
				switch ev.name {
				case EventAnswerStart:
					started = true
				case EventAnswerDone:
					done = true
					if !started || m["mode"] != "passages" || !strings.Contains(m["answer"].(string), "[1]") || m["note"] == "" {
						t.Fatalf("answer:done = %v (started %v)", m, started)
					}
				case EventAnswerError:
					t.Fatalf("answer:error %v", m)
				}
			case <-deadline:
				t.Fatal("no answer:done event")
			}
		}
	})

	t.Run("the original file is served, and nothing outside the library", func(t *testing.T) {
		fresp, err := send("GET", base+"/files/"+doc.ID, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(fresp.Body)
		fresp.Body.Close()
		if fresp.StatusCode != 200 || !bytes.Equal(got, raw) {
			t.Fatalf("/files: %s, %d bytes", fresp.Status, len(got))
		}
		if csp := fresp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") {
			t.Errorf("/files is served without a sandbox policy: %q", csp)
		}
		// The router cleans this path before /files/ sees it (TestFilesHandlerRefusesTraversal
		// checks the handler itself); either way nothing outside the library comes back.
		if r, _ := send("GET", base+"/files/../../etc/passwd", "", nil); r.StatusCode != 404 {
			t.Fatalf("path traversal through /files: %s", r.Status)
		}
		// ServeMux cleans such a path and redirects before the files handler sees it, but
		// Wails' asset server hands the handler paths as they came: the handler itself must
		// refuse them. Called directly, it serves the document (so it is reached) and
		// refuses every path that leaves it.
		files := srv.App.FilesHandler()
		direct := func(path string) (int, string) {
			rec := httptest.NewRecorder()
			files.ServeHTTP(rec, httptest.NewRequest("GET", "http://carrel"+path, nil))
			return rec.Code, rec.Body.String()
		}
		if code, body := direct("/files/" + doc.ID); code != 200 || len(body) != len(raw) {
			t.Fatalf("the files handler called directly: %d, %d bytes of %d", code, len(body), len(raw))
		}
		for _, p := range []string{"/files/../../etc/passwd", "/files/" + doc.ID + "/../../../etc/passwd", "/files/..", "/files/..%5C..%5Cetc%5Cpasswd", "/files/"} {
			if code, body := direct(p); code != 404 || strings.Contains(body, "root:") {
				t.Errorf("the files handler served %s: %d %.40q", p, code, body)
			}
		}
	})

	t.Run("bad calls get clear errors", func(t *testing.T) {
		var e map[string]string
		if code := call(t, base, "NoSuchMethod", &e); code != 404 || e["error"] == "" {
			t.Fatalf("unknown method: %d %v", code, e)
		}
		if code := call(t, base, "Search", &e, "x"); code != 400 || !strings.Contains(e["error"], "takes 3 arguments") {
			t.Fatalf("wrong argument count: %d %v", code, e)
		}
		if code := call(t, base, "Ask", &e, "", []string{}); code != 422 || e["error"] == "" {
			t.Fatalf("empty question: %d %v", code, e)
		}
	})

	t.Run("a removed document leaves the list", func(t *testing.T) {
		if code := call(t, base, "RemoveDocument", nil, doc.ID); code != 200 {
			t.Fatalf("RemoveDocument: %d", code)
		}
		var docs []Document
		if call(t, base, "ListDocuments", &docs); len(docs) != 0 {
			t.Fatalf("after remove: %+v", docs)
		}
	})
}
