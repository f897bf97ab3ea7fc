package app

import (
	"encoding/json"
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

// waldenEngine opens an engine on the test Ollama, answers of 12 tokens, with a one-line
// note on Walden ingested.
func waldenEngine(t *testing.T) *engine.Engine {
	t.Helper()
	srv := testollama.Start(t)
	eng, _ := testengine.WithNote(t, engine.Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: srv.EmbedModel, MaxTokens: 12},
		"walden.md", "# Walden\n\nThoreau lived in the woods by Walden Pond and planted beans.\n")
	return eng
}

// verifies the session bridge methods over HTTP with a real Ollama server: Ask starts a
// session, AskInSession continues it (a follow-up keeps its text and gets a standalone
// form), ListSessions/GetSession resume it, Rename/Export/Delete work, and events tell.
func TestSessionBridge(t *testing.T) {
	_, base, evs := serve(t, waldenEngine(t), fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}})

	var askID string
	if call(t, base, "Ask", &askID, "Where did Thoreau live?", []string{}) != 200 {
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
	if call(t, base, "AskInSession", &askID, sid, "And what did he plant there?", nil, false) != 200 {
		t.Fatal("AskInSession failed")
	}
	name, done, _ = waitAnswer(t, evs, askID)
	if name != EventAnswerDone || done["session_id"] != sid || done["standalone"] == "" {
		t.Fatalf("follow-up: %s %v", name, done)
	}

	var list []library.Session
	if call(t, base, "ListSessions", &list) != 200 || len(list) != 1 || list[0].Messages != 2 {
		t.Fatalf("ListSessions = %+v", list)
	}
	var d asking.SessionDetail
	if call(t, base, "GetSession", &d, sid) != 200 || len(d.Messages) != 2 || d.Messages[1].Question != "And what did he plant there?" {
		t.Fatalf("GetSession = %+v", d)
	}
	if call(t, base, "RenameSession", nil, sid, "Pond") != 200 {
		t.Fatal("RenameSession failed")
	}
	var md string
	if call(t, base, "ExportSession", &md, sid) != 200 || !strings.HasPrefix(md, "# Pond\n") || !strings.Contains(md, "## 2. And what did he plant there?") {
		t.Fatalf("ExportSession = %q", md)
	}
	var meter Meter
	if call(t, base, "Meter", &meter) != 200 || meter.Provider != "ollama" || meter.TotalUSD != 0 || meter.PricesAsOf == "" {
		t.Fatalf("Meter = %+v", meter)
	}
	if call(t, base, "DeleteSession", nil, sid) != 200 {
		t.Fatal("DeleteSession failed")
	}
	var e map[string]string
	if code := call(t, base, "GetSession", &e, sid); code < 400 || e["error"] == "" {
		t.Fatalf("GetSession of a deleted session: %d %v", code, e)
	}
}
