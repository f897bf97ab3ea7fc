package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/library"
)

// verifies study sessions through the CLI with a real Ollama server: ask --json starts a
// session (keeping the README's output shape), ask --session continues it, and sessions
// list/show/export/rename/delete work on it.
func TestSessionsCLI(t *testing.T) {
	_, run := waldenCLI(t)

	var first map[string]any
	if err := json.Unmarshal(run("ask", "--json", "Where did Thoreau live?"), &first); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"answer", "citations", "usage", "model", "mode", "session_id", "message_id", "provider"} {
		if _, ok := first[k]; !ok {
			t.Fatalf("ask --json lacks %q: %v", k, first)
		}
	}
	sid := first["session_id"].(string)
	var follow map[string]any
	json.Unmarshal(run("ask", "--json", "--session", sid, "And what did he plant there?"), &follow)
	if follow["session_id"] != sid || follow["question"] != "And what did he plant there?" || follow["standalone"] == "" {
		t.Fatalf("follow-up: %v", follow)
	}

	var list []library.Session
	json.Unmarshal(run("sessions", "list", "--json"), &list)
	if len(list) != 1 || list[0].ID != sid || list[0].Messages != 2 {
		t.Fatalf("sessions list: %+v", list)
	}
	run("sessions", "rename", sid, "Walden", "Pond")
	out := filepath.Join(t.TempDir(), "session.md")
	run("sessions", "export", "--out", out, sid)
	md, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(md), "# Walden Pond\n") || !strings.Contains(string(md), "## References") {
		t.Fatalf("export:\n%s", md)
	}
	if shown := string(run("sessions", "show", sid)); shown != string(md) {
		t.Fatalf("show differs from export:\n%s", shown)
	}
	run("sessions", "delete", sid)
	if txt := string(run("sessions", "list")); !strings.Contains(txt, "No sessions yet") {
		t.Fatalf("list after delete: %s", txt)
	}
}
