package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// verifies the cache and memory through the CLI with a real Ollama server: a repeated
// question is answered from the cache (ask --json carries its source; the text form says
// so), --fresh asks the model again, cache status/calibrate/clear work, memories are
// learnt from the user's words and listed, added, edited, removed and turned off, and bad
// input is a usage error.
func TestCacheAndMemoryCLI(t *testing.T) {
	flags, run := waldenCLI(t)

	type answer struct {
		Answer string `json:"answer"`
		Cached *struct {
			SessionID string  `json:"session_id"`
			Match     string  `json:"match"`
			Sim       float64 `json:"similarity"`
		} `json:"cached"`
		SessionID string `json:"session_id"`
	}
	var first, again, fresh answer
	json.Unmarshal(run("ask", "--json", "Where did Thoreau live?"), &first)
	json.Unmarshal(run("ask", "--json", "where did Thoreau live"), &again)
	if first.Cached != nil || again.Cached == nil || again.Answer != first.Answer || again.Cached.SessionID != first.SessionID || again.Cached.Match != "meaning" {
		t.Fatalf("first %+v, again %+v", first, again)
	}
	if txt := string(run("ask", "Where did Thoreau live")); !strings.Contains(txt, "Cached answer from session") {
		t.Fatalf("the text form does not say the answer is cached:\n%s", txt)
	}
	json.Unmarshal(run("ask", "--json", "--fresh", "Where did Thoreau live?"), &fresh)
	if fresh.Cached != nil {
		t.Fatalf("--fresh was answered from the cache: %+v", fresh.Cached)
	}
	// What the user says about themselves is learnt (and, being new context, makes earlier
	// answers stale: they were pitched without it).
	run("ask", "I'm a biology student. What did Thoreau plant?")
	var cs struct {
		Enabled bool
		Entries int
		Match   string
	}
	json.Unmarshal(run("cache", "status", "--json"), &cs)
	if !cs.Enabled || cs.Entries != 2 || cs.Match != "meaning" {
		t.Fatalf("cache status: %+v", cs)
	}
	pairs := filepath.Join("..", "backend", "cache", "testdata", "pairs.jsonl")
	if txt := string(run("cache", "calibrate", "--set", pairs)); !strings.Contains(txt, "paraphrases  cosine") || !strings.Contains(txt, "threshold set to 0.850") {
		t.Fatalf("calibrate:\n%s", txt)
	}
	if txt := string(run("cache", "clear")); !strings.Contains(txt, "forgot 2 cached answers") {
		t.Fatalf("clear: %s", txt)
	}

	var mem struct {
		Enabled  bool
		Memories []struct {
			ID   int64
			Kind string
			Text string
		}
	}
	json.Unmarshal(run("memory", "list", "--json"), &mem)
	if !mem.Enabled || len(mem.Memories) != 1 || mem.Memories[0].Text != "is a biology student" {
		t.Fatalf("memory list: %+v", mem)
	}
	run("memory", "add", "--kind", "preference", "prefers", "short", "answers")
	run("memory", "edit", "1", "is a graduate biology student")
	run("memory", "off")
	txt := string(run("memory", "list"))
	if !strings.Contains(txt, "Memory is off") || !strings.Contains(txt, "graduate biology") || !strings.Contains(txt, "prefers short answers") {
		t.Fatalf("memory list:\n%s", txt)
	}
	run("memory", "rm", "1")
	if txt := string(run("memory", "list")); strings.Contains(txt, "graduate biology") {
		t.Fatalf("after rm:\n%s", txt)
	}
	for _, bad := range [][]string{{"memory", "rm", "x"}, {"memory", "frob"}, {"cache", "calibrate"}, {"memory"}} {
		var out, errb bytes.Buffer
		if _, code, err := Run(append(append([]string{}, flags...), bad...), Env{Stdout: &out, Stderr: &errb}); code != 2 || err == nil {
			t.Fatalf("carrel %v: exit %d, %v", bad, code, err)
		}
	}
}
