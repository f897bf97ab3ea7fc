package app

import (
	"encoding/json"
	"testing"
	"testing/fstest"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
)

// verifies the cache and memory bridge over HTTP with a real Ollama server: a repeated
// question's answer:done says cached with its source, AskFresh asks the model again, a
// question telling something about the user sends memory:changed, and Memory,
// EditMemory, DeleteMemory, AddMemory, SetMemoryEnabled and CacheStatus work.
func TestCacheAndMemoryBridge(t *testing.T) {
	_, base, evs := serve(t, waldenEngine(t), fstest.MapFS{"index.html": {Data: []byte("<!doctype html>")}})

	// askAndWait asks through method and returns answer:done's data and whether
	// memory:changed came meanwhile.
	askAndWait := func(method, question string) (map[string]any, bool) {
		t.Helper()
		var askID string
		if call(t, base, method, &askID, "", question, []string{}, false) != 200 {
			t.Fatalf("%s failed", method)
		}
		learnt := false
		deadline := time.After(90 * time.Second)
		for {
			select {
			case ev := <-evs:
				var m map[string]any
				json.Unmarshal(ev.data, &m)
				if ev.name == EventMemoryChanged {
					learnt = true
				}
				if m["ask_id"] == askID && ev.name == EventAnswerError {
					t.Fatalf("%s %q: %v", method, question, m)
				}
				if m["ask_id"] == askID && ev.name == EventAnswerDone {
					return m, learnt
				}
			case <-deadline:
				t.Fatalf("no end of answer to %q", question)
			}
		}
	}
	first, _ := askAndWait("AskInSession", "Where did Thoreau live?")
	again, _ := askAndWait("AskInSession", "where did Thoreau live")
	from, _ := again["cached_from"].(map[string]any)
	if first["cached"] != false || again["cached"] != true || from == nil || from["session_id"] != first["session_id"] ||
		from["match"] != "meaning" || again["answer"] != first["answer"] {
		t.Fatalf("first %v\nagain %v", first, again)
	}
	fresh, _ := askAndWait("AskFresh", "Where did Thoreau live?")
	if fresh["cached"] != false || fresh["cached_from"] != nil {
		t.Fatalf("AskFresh: %v", fresh)
	}
	if _, learnt := askAndWait("AskInSession", "I'm a botany student. What did Thoreau plant?"); !learnt {
		t.Fatal("no memory:changed after a question saying who the user is")
	}

	var ms MemorySettings
	if call(t, base, "Memory", &ms) != 200 || !ms.Enabled || len(ms.Memories) != 1 || ms.Memories[0].Text != "is a botany student" {
		t.Fatalf("Memory = %+v", ms)
	}
	id := ms.Memories[0].ID
	if call(t, base, "EditMemory", &ms, id, "is a botany PhD student") != 200 || ms.Memories[0].Text != "is a botany PhD student" {
		t.Fatalf("EditMemory = %+v", ms)
	}
	if call(t, base, "AddMemory", &ms, "goal", "wants to pass the plant biology exam") != 200 || len(ms.Memories) != 2 {
		t.Fatalf("AddMemory = %+v", ms)
	}
	if call(t, base, "AddMemory", &ms, "goal", "  ") == 200 {
		t.Fatal("an empty memory was accepted")
	}
	if call(t, base, "DeleteMemory", &ms, id) != 200 || len(ms.Memories) != 1 {
		t.Fatalf("DeleteMemory = %+v", ms)
	}
	if call(t, base, "SetMemoryEnabled", &ms, false) != 200 || ms.Enabled {
		t.Fatalf("SetMemoryEnabled(false) = %+v", ms)
	}
	var cs asking.CacheStatus
	if call(t, base, "CacheStatus", &cs) != 200 || !cs.Enabled || cs.Match != "meaning" || cs.Entries < 1 {
		t.Fatalf("CacheStatus = %+v", cs)
	}
}
