package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"
)

// verifies the cloud path through the CLI: `keys set` reads the key from standard input
// into the keyring, config.json chooses Claude at a (local, wire-faithful) endpoint, and
// `ask --json` reports the provider, usage and cost.
func TestCloudCLI(t *testing.T) {
	keyring.MockInit()
	t.Setenv("ANTHROPIC_API_KEY", "")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, ev := range []string{
			`message_start`, `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-haiku-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":4000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`,
			`content_block_start`, `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			`content_block_delta`, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Thoreau planted beans."}}`,
			`content_block_stop`, `{"type":"content_block_stop","index":0}`,
			`message_delta`, `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":200}}`,
			`message_stop`, `{"type":"message_stop"}`,
		} {
			if strings.HasPrefix(ev, "{") {
				io.WriteString(w, "data: "+ev+"\n\n")
			} else {
				io.WriteString(w, "event: "+ev+"\n")
			}
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(lib, "config.json"), []byte(`{"provider": "anthropic", "anthropic_base_url": "`+srv.URL+`"}`), 0o644)
	note := filepath.Join(dir, "walden.md")
	os.WriteFile(note, []byte("# Walden\n\nThoreau planted beans by Walden Pond.\n"), 0o644)
	flags := []string{"--library", lib, "--ollama-host", "127.0.0.1:9"}
	carrel(t, append(flags, "ingest", note)...)

	var out, errb bytes.Buffer
	if _, code, err := Run(append(flags, "keys", "set", "anthropic"), Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader("sk-ant-cli\n")}); code != 0 {
		t.Fatalf("keys set: %d %v %s", code, err, errb.String())
	}
	if st := string(carrel(t, append(flags, "keys", "status")...)); !strings.Contains(st, "anthropic: key from the keyring") {
		t.Fatalf("keys status: %s", st)
	}
	var ans map[string]any
	if err := json.Unmarshal(carrel(t, append(flags, "ask", "--json", "What did Thoreau plant?")...), &ans); err != nil {
		t.Fatal(err)
	}
	usage, _ := ans["usage"].(map[string]any)
	// 4000 input at $1/M + 200 output at $5/M.
	if ans["provider"] != "anthropic" || ans["model"] != "claude-haiku-4-5" || usage["prompt_tokens"] != 4000.0 || usage["cost_usd"] != 0.005 {
		t.Fatalf("ask --json: %v", ans)
	}
	raw, _ := os.ReadFile(filepath.Join(lib, "config.json"))
	if strings.Contains(string(raw), "sk-ant-cli") {
		t.Fatal("the key was written to config.json")
	}
	// --provider ollama overrides config.json for one command: no model, passages.
	json.Unmarshal(carrel(t, append(flags, "--provider", "ollama", "ask", "--json", "What did Thoreau plant?")...), &ans)
	if ans["mode"] != "passages" {
		t.Fatalf("--provider ollama: %v", ans)
	}
}
