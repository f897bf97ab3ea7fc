package app

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/carrel-app/carrel/internal/testollama"
)

// waitAnswer follows the event stream until askID is done (or failed) and returns that
// event's data, also collecting session:changed events.
func waitAnswer(t *testing.T, evs <-chan sse, askID string) (Event, map[string]any, []map[string]any) {
	t.Helper()
	var changed []map[string]any
	deadline := time.After(90 * time.Second)
	for {
		select {
		case ev := <-evs:
			var m map[string]any
			json.Unmarshal(ev.data, &m)
			if ev.name == EventSessionChanged {
				changed = append(changed, m)
			}
			if ev.name == EventAnswerStart && m["ask_id"] == askID && m["session_id"] == "" {
				t.Fatalf("answer:start without a session id: %v", m)
			}
			if m["ask_id"] != askID {
				continue
			}
			if ev.name == EventAnswerDone || ev.name == EventAnswerError {
				return ev.name, m, changed
			}
		case <-deadline:
			t.Fatalf("no end of answer %s", askID)
		}
	}
}

// verifies the session bridge methods over HTTP with a real Ollama server: Ask starts a
// session, AskInSession continues it (a follow-up keeps its text and gets a standalone
// form), ListSessions/GetSession resume it, Rename/Export/Delete work, and events tell.
func TestSessionBridge(t *testing.T) {
	srv := testollama.Start(t)
	dir := t.TempDir()
	note := filepath.Join(dir, "walden.md")
	os.WriteFile(note, []byte("# Walden\n\nThoreau lived in the woods by Walden Pond and planted beans.\n"), 0o644)
	eng := testengine.Open(t, engine.Config{Dir: filepath.Join(dir, "lib"), OllamaHost: srv.Host, ChatModel: srv.ChatModel,
		EmbedModel: srv.EmbedModel, MaxTokens: 12})
	if r, err := eng.IngestFile(context.Background(), note, nil); err != nil || r.Status != engine.Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := NewServer(ctx, eng, fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}}, ServerOptions{Token: testToken})
	defer s.Stop()
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer cancel()
	evs := events(t, ctx, ts.URL+"/api/events")

	var askID string
	if call(t, ts.URL, "Ask", &askID, "Where did Thoreau live?", []string{}) != 200 {
		t.Fatal("Ask failed")
	}
	name, done, changed := waitAnswer(t, evs, askID)
	sid, _ := done["session_id"].(string)
	if name != EventAnswerDone || sid == "" || done["provider"] != "ollama" || done["question"] != "Where did Thoreau live?" {
		t.Fatalf("first answer: %s %v", name, done)
	}
	if len(changed) == 0 || changed[len(changed)-1]["id"] != sid {
		t.Fatalf("no session:changed for the new session: %v", changed)
	}
	if call(t, ts.URL, "AskInSession", &askID, sid, "And what did he plant there?", nil, false) != 200 {
		t.Fatal("AskInSession failed")
	}
	name, done, _ = waitAnswer(t, evs, askID)
	if name != EventAnswerDone || done["session_id"] != sid || done["standalone"] == "" {
		t.Fatalf("follow-up: %s %v", name, done)
	}

	var list []library.Session
	if call(t, ts.URL, "ListSessions", &list) != 200 || len(list) != 1 || list[0].Messages != 2 {
		t.Fatalf("ListSessions = %+v", list)
	}
	var d asking.SessionDetail
	if call(t, ts.URL, "GetSession", &d, sid) != 200 || len(d.Messages) != 2 || d.Messages[1].Question != "And what did he plant there?" {
		t.Fatalf("GetSession = %+v", d)
	}
	if call(t, ts.URL, "RenameSession", nil, sid, "Pond") != 200 {
		t.Fatal("RenameSession failed")
	}
	var md string
	if call(t, ts.URL, "ExportSession", &md, sid) != 200 || !strings.HasPrefix(md, "# Pond\n") || !strings.Contains(md, "## 2. And what did he plant there?") {
		t.Fatalf("ExportSession = %q", md)
	}
	var meter Meter
	if call(t, ts.URL, "Meter", &meter) != 200 || meter.Provider != "ollama" || meter.TotalUSD != 0 || meter.PricesAsOf == "" {
		t.Fatalf("Meter = %+v", meter)
	}
	if call(t, ts.URL, "DeleteSession", nil, sid) != 200 {
		t.Fatal("DeleteSession failed")
	}
	var e map[string]string
	if code := call(t, ts.URL, "GetSession", &e, sid); code < 400 || e["error"] == "" {
		t.Fatalf("GetSession of a deleted session: %d %v", code, e)
	}
}
