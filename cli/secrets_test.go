package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/logfile"
	"github.com/zalando/go-keyring"
)

// cloudDouble is a local server speaking one provider's wire format. It answers only
// when the request carries want; any other key gets the provider's 401, with a message
// that echoes the key whole, as a careless proxy would.
func cloudDouble(t *testing.T, provider string, want *string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		got := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if provider == "anthropic" {
			got = r.Header.Get("X-Api-Key")
		}
		if got != *want {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			kind := "invalid_request_error"
			if provider == "anthropic" {
				kind = "authentication_error"
			}
			fmt.Fprintf(w, `{"type":"error","error":{"type":%q,"message":"Incorrect API key provided: %s"}}`, kind, got)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		if provider == "openai" {
			for _, c := range []string{
				`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4.1-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"Thoreau planted beans."},"finish_reason":null}]}`,
				`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4.1-mini","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
				`{"id":"c1","object":"chat.completion.chunk","model":"gpt-4.1-mini","choices":[],"usage":{"prompt_tokens":900,"completion_tokens":5,"total_tokens":905}}`,
			} {
				io.WriteString(w, "data: "+c+"\n\n")
			}
			io.WriteString(w, "data: [DONE]\n\n")
			return
		}
		for _, ev := range [][2]string{
			{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude-haiku-4-5","stop_reason":null,"usage":{"input_tokens":900,"output_tokens":1}}}`},
			{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Thoreau planted beans."}}`},
			{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}`},
			{"message_stop", `{"type":"message_stop"}`},
		} {
			fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev[0], ev[1])
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// verifies that API keys stay out of everything Carrel writes and shows (issue 14, item
// 4). One key is set through `keys set` (the keyring), the other comes from the
// environment; both providers answer (local servers that check the key arrived); then a
// wrong key is refused with a message echoing it whole. Afterwards no file under the
// home folder (library, config.json, sessions, the answer cache, the user cache, the log
// file) holds a key, and no command's output or error does (the refusal shows the
// key's last four characters, as providers do).
func TestKeysStayOut(t *testing.T) {
	keyring.MockInit()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	t.Setenv("CARREL_CACHE_DIR", filepath.Join(home, ".cache", "carrel"))
	// Everything Carrel logs goes to its log file, as in the desktop app.
	prev := slog.Default()
	logDir, closeLog, err := logfile.Setup(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeLog(); slog.SetDefault(prev) })
	if !strings.HasPrefix(logDir, home) {
		t.Fatalf("the log is at %s, outside the test's home", logDir)
	}

	openaiKey, anthropicKey := "sk-proj-OPENAIsecretKEY0123456789abcdWXYZ", "sk-ant-api03-ANTHROPICsecret9876543210wxyz"
	wantOpenAI, wantAnthropic := openaiKey, anthropicKey
	openai, anthropic := cloudDouble(t, "openai", &wantOpenAI), cloudDouble(t, "anthropic", &wantAnthropic)
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("ANTHROPIC_API_KEY", anthropicKey)

	lib := filepath.Join(home, "library")
	os.MkdirAll(lib, 0o755)
	config := func(t *testing.T, provider string) {
		t.Helper()
		c := fmt.Sprintf(`{"provider": %q, "openai_base_url": %q, "anthropic_base_url": %q}`, provider, openai.URL+"/v1", anthropic.URL)
		if err := os.WriteFile(filepath.Join(lib, "config.json"), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	note := filepath.Join(home, "walden.md")
	os.WriteFile(note, []byte("# Walden\n\nThoreau planted beans by Walden Pond, two and a half acres of them.\n"), 0o644)
	flags := []string{"--library", lib, "--ollama-host", "127.0.0.1:9"}

	var shown bytes.Buffer // every command's output and error, as a user would see them
	run := func(stdin string, args ...string) int {
		var out, errb bytes.Buffer
		_, code, err := Run(append(append([]string{}, flags...), args...), Env{Stdout: &out, Stderr: &errb, Stdin: strings.NewReader(stdin)})
		shown.Write(out.Bytes())
		shown.Write(errb.Bytes())
		if err != nil {
			shown.WriteString(err.Error() + "\n")
		}
		return code
	}
	if code := run("", "ingest", note); code != 0 {
		t.Fatalf("ingest: exit %d\n%s", code, shown.String())
	}
	if code := run(openaiKey+"\n", "keys", "set", "openai"); code != 0 {
		t.Fatalf("keys set: exit %d\n%s", code, shown.String())
	}
	run("", "keys", "status")

	// Each step runs on the library and home folder the steps before left.
	t.Run("both providers answer with their keys", func(t *testing.T) {
		for _, provider := range []string{"openai", "anthropic"} {
			config(t, provider)
			before := shown.Len()
			if code := run("", "ask", "--json", "What did Thoreau plant at "+provider+"?"); code != 0 {
				t.Fatalf("ask through %s: exit %d\n%s", provider, code, shown.String())
			}
			var ans map[string]any
			if err := json.Unmarshal(shown.Bytes()[before:], &ans); err != nil || ans["provider"] != provider || !strings.Contains(fmt.Sprint(ans["answer"]), "beans") {
				t.Fatalf("ask through %s did not answer from it: %v %s", provider, err, shown.Bytes()[before:])
			}
		}
	})

	t.Run("a refused key is named by its last four characters and not charged", func(t *testing.T) {
		// Refused keys: the servers now want other keys and echo the ones they got.
		wantOpenAI, wantAnthropic = "sk-proj-rotated", "sk-ant-rotated"
		for _, provider := range []string{"openai", "anthropic"} {
			config(t, provider)
			before := shown.Len()
			if code := run("", "ask", "--fresh", "What did Thoreau plant at "+provider+"?"); code == 0 {
				t.Fatalf("ask through %s with a refused key succeeded:\n%s", provider, shown.Bytes()[before:])
			}
			msg := string(shown.Bytes()[before:])
			last4 := map[string]string{"openai": openaiKey, "anthropic": anthropicKey}[provider]
			last4 = last4[len(last4)-4:]
			if !strings.Contains(msg, "refused") || !strings.Contains(msg, "…"+last4) {
				t.Fatalf("the refusal through %s does not say the key was refused, ending …%s:\n%s", provider, last4, msg)
			}
			if regexp.MustCompile(`\$0\.0*[1-9]`).MatchString(msg) {
				t.Fatalf("a refused request through %s was charged:\n%s", provider, msg)
			}
		}
	})

	t.Run("no output and no file under the home folder holds a key", func(t *testing.T) {
		run("", "sessions", "list")
		run("", "stats")
		closeLog()

		for name, key := range map[string]string{"OpenAI": openaiKey, "Anthropic": anthropicKey} {
			if strings.Contains(shown.String(), key) {
				t.Errorf("the %s key was shown to the user:\n%s", name, shown.String())
			}
		}
		files := 0
		err = filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || path == note {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files++
			for name, key := range map[string]string{"OpenAI": openaiKey, "Anthropic": anthropicKey} {
				// A key's distinctive middle, so a key cut, quoted or escaped is found too.
				if bytes.Contains(b, []byte(key[8:len(key)-4])) {
					t.Errorf("%s holds the %s key", path, name)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		logged, _ := os.ReadFile(filepath.Join(logDir, "carrel.log"))
		if files < 4 || len(logged) == 0 {
			t.Fatalf("scanned %d files, log %d bytes: the run wrote less than it should have", files, len(logged))
		}
		t.Logf("scanned %d files under the home folder (log %d bytes) and %d bytes of output", files, len(logged), shown.Len())
	})
}
