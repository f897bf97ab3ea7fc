package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testollama"
	"github.com/carrel-app/carrel/internal/testsites"
)

// verifies `carrel ingest URL` with a real Ollama server: the page becomes a document
// that `carrel ask` answers from and cites; with online sources off in config.json the
// URL is refused with a line saying where to turn them on.
func TestIngestURL(t *testing.T) {
	srv := testollama.Start(t)
	s := testsites.Start(t)
	lib := t.TempDir()
	flags := []string{"--library", lib, "--ollama-host", srv.Host, "--chat-model", srv.ChatModel, "--embed-model", srv.EmbedModel, "--max-tokens", "16"}
	rs := ingestResults(t, carrel(t, append(flags, "ingest", s.URL+"/article")...))
	if len(rs) != 1 || rs[0].Status != engine.Inserted || rs[0].URL != s.URL+"/articles/urban-bees" || rs[0].Chunks == 0 {
		t.Fatalf("ingest: %+v", rs)
	}
	var ans struct {
		Answer    string `json:"answer"`
		Model     string `json:"model"`
		Citations []struct {
			DocID   string `json:"doc_id"`
			DocPath string `json:"doc_path"`
			Text    string `json:"text"`
		} `json:"citations"`
	}
	if err := json.Unmarshal(carrel(t, append(flags, "ask", "--json", "How much honey do rooftop hives in Paris produce?")...), &ans); err != nil {
		t.Fatal(err)
	}
	if ans.Answer == "" || ans.Model != srv.ChatModel || len(ans.Citations) == 0 {
		t.Fatalf("ask: %+v", ans)
	}
	cited := false
	for _, c := range ans.Citations {
		if c.DocID == rs[0].DocID && strings.Contains(c.Text, "twenty kilograms") && strings.HasPrefix(c.DocPath, filepath.Join(lib, "online")) {
			cited = true
		}
	}
	if !cited {
		t.Errorf("no citation of the page's passage: %+v", ans.Citations)
	}

	// Online sources off in the library's settings.
	if err := os.WriteFile(filepath.Join(lib, "config.json"), []byte(`{"online_off": true}`), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if _, code, err := Run(append(flags, "ingest", s.URL+"/notes.txt"), Env{Stdout: &out, Stderr: &errb}); code != 0 {
		t.Fatalf("exit %d: %v", code, err)
	}
	rs = ingestResults(t, out.Bytes())
	if len(rs) != 1 || rs[0].Status != engine.Failed || !strings.Contains(rs[0].Error, "online sources are turned off") ||
		!strings.Contains(errb.String(), "Settings → Online sources") {
		t.Fatalf("while off: %+v\n%s", rs, errb.String())
	}
}
