package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
)

// carrel runs one CLI command and returns stdout; it fails the test on a non-zero exit.
func carrel(t *testing.T, args ...string) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	_, code, err := Run(args, Env{Stdout: &out, Stderr: &errb})
	if code != 0 {
		t.Fatalf("carrel %s: exit %d: %v\nstderr:\n%s", strings.Join(args, " "), code, err, errb.String())
	}
	return out.Bytes()
}

// waldenCLI makes a library on the test Ollama (answers of 12 tokens) with a one-line note
// on Walden ingested, and returns the flags that open it and a runner of carrel commands
// with those flags.
func waldenCLI(t *testing.T) (flags []string, run func(args ...string) []byte) {
	t.Helper()
	srv := testollama.Start(t)
	dir := t.TempDir()
	note := filepath.Join(dir, "walden.md")
	if err := os.WriteFile(note, []byte("# Walden\n\nThoreau lived in the woods by Walden Pond and planted beans.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags = []string{"--library", filepath.Join(dir, "lib"), "--ollama-host", srv.Host, "--chat-model", srv.ChatModel,
		"--embed-model", srv.EmbedModel, "--max-tokens", "12"}
	run = func(args ...string) []byte { return carrel(t, append(append([]string{}, flags...), args...)...) }
	run("ingest", note)
	return flags, run
}

func ingestResults(t *testing.T, out []byte) []engine.Result {
	t.Helper()
	var rs []engine.Result
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var r engine.Result
		if err := dec.Decode(&r); err != nil {
			t.Fatalf("ingest output is not JSON lines: %v\n%s", err, out)
		}
		rs = append(rs, r)
	}
	return rs
}

type hit struct {
	DocID       string  `json:"doc_id"`
	DocPath     string  `json:"doc_path"`
	DocTitle    string  `json:"doc_title"`
	Page        int     `json:"page"`
	Text        string  `json:"text"`
	Score       float64 `json:"score"`
	MatchType   string  `json:"match_type"`
	LexicalRank int     `json:"lexical_rank"`
	VectorRank  int     `json:"vector_rank"`
}

// verifies the whole spine through the CLI with a real Ollama server: real PDFs ingest
// (with embeddings), re-adding is skipped, an exact term finds its page first, hybrid
// search fuses both lists, and ask streams a cited answer from the model.
func TestSpineWithOllama(t *testing.T) {
	srv := testollama.Start(t)
	lib := t.TempDir()
	dir := testcorpus.Dir(t)
	flags := []string{"--library", lib, "--ollama-host", srv.Host, "--chat-model", srv.ChatModel, "--embed-model", srv.EmbedModel, "--max-tokens", "24"}
	files := []string{filepath.Join(dir, "Walden.pdf"), filepath.Join(dir, "go.pdf"), filepath.Join(dir, "GoForOptimization.pdf")}
	// Small documents: the tiny test model embeds about a chunk a second on a busy machine.

	rs := ingestResults(t, carrel(t, append(flags, append([]string{"ingest"}, files...)...)...))
	if len(rs) != len(files) {
		t.Fatalf("got %d results for %d files", len(rs), len(files))
	}

	// Each step uses the library the ingest above filled.
	t.Run("real PDFs ingest with their pages and embeddings", func(t *testing.T) {
		for i, r := range rs {
			n, err := api.PageCountFile(files[i])
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != engine.Inserted || r.Pages != n || r.Chunks == 0 || len(r.DocID) != 64 || r.Error != "" {
				t.Errorf("ingest %s = %+v (pdfcpu counts %d pages)", files[i], r, n)
			}
		}
	})

	t.Run("adding one again is skipped", func(t *testing.T) {
		again := ingestResults(t, carrel(t, append(flags, "ingest", files[0])...))
		if again[0].Status != engine.Skipped || again[0].DocID != rs[0].DocID {
			t.Errorf("re-ingest = %+v, want skipped", again[0])
		}
	})

	t.Run("an exact term finds its page first", func(t *testing.T) {
		// An exact term from one page: a long word that occurs in exactly one chunk.
		eng, err := engine.Open(engine.Config{Dir: lib, OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: srv.EmbedModel})
		if err != nil {
			t.Fatal(err)
		}
		termDoc, term, page := uniqueTerm(t, eng)
		eng.Close()
		var hits []hit
		if err := json.Unmarshal(carrel(t, append(flags, "search", "--json", "--k", "5", "--mode", "lexical", term)...), &hits); err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 || hits[0].DocID != termDoc || hits[0].Page != page || hits[0].MatchType != "full_text" || hits[0].LexicalRank != 1 {
			t.Fatalf("search %q: want page %d of %s first, got %+v", term, page, termDoc, hits)
		}
		if !strings.Contains(strings.ToLower(hits[0].Text), strings.ToLower(term)) || !strings.HasSuffix(hits[0].DocPath, ".pdf") {
			t.Fatalf("first hit lacks the term or path: %+v", hits[0])
		}
	})

	t.Run("hybrid search uses the vector list", func(t *testing.T) {
		var hits []hit
		if err := json.Unmarshal(carrel(t, append(flags, "search", "--json", "--k", "10", "pond woods Walden")...), &hits); err != nil {
			t.Fatal(err)
		}
		var hybrid, vector bool
		for _, h := range hits {
			hybrid = hybrid || (h.MatchType == "hybrid" && h.LexicalRank > 0 && h.VectorRank > 0)
			vector = vector || h.VectorRank > 0
		}
		if len(hits) == 0 || !vector {
			t.Fatalf("hybrid search used no vector list: %+v", hits)
		}
		_ = hybrid // with random embeddings an overlap is luck, not a property
	})

	t.Run("ask answers from the model with citations", func(t *testing.T) {
		var ans struct {
			Answer    string `json:"answer"`
			Citations []struct {
				N       int    `json:"n"`
				DocPath string `json:"doc_path"`
				Page    int    `json:"page"`
				Text    string `json:"text"`
			} `json:"citations"`
			Usage struct {
				PromptTokens     int     `json:"prompt_tokens"`
				CompletionTokens int     `json:"completion_tokens"`
				CostUSD          float64 `json:"cost_usd"`
			} `json:"usage"`
			Model string `json:"model"`
		}
		if err := json.Unmarshal(carrel(t, append(flags, "ask", "--json", "Why did Thoreau go to the woods?")...), &ans); err != nil {
			t.Fatal(err)
		}
		if ans.Answer == "" || ans.Model != srv.ChatModel || ans.Usage.PromptTokens < 50 || ans.Usage.CompletionTokens == 0 {
			t.Fatalf("ask: %+v", ans)
		}
		if len(ans.Citations) == 0 || ans.Citations[0].N != 1 || ans.Citations[0].Page < 1 || ans.Citations[0].Text == "" {
			t.Fatalf("ask citations: %+v", ans.Citations)
		}
	})

	t.Run("status says full mode and three documents", func(t *testing.T) {
		var st engine.Status
		if err := json.Unmarshal(carrel(t, append(flags, "status")...), &st); err != nil {
			t.Fatal(err)
		}
		if st.Mode != engine.ModeFull || st.Documents != 3 {
			t.Fatalf("status = %+v", st)
		}
	})
}

// uniqueTerm picks a long word that occurs in exactly one single-page chunk of the library,
// and returns it with that chunk's document and page.
func uniqueTerm(t *testing.T, eng *engine.Engine) (string, string, int) {
	t.Helper()
	ctx := context.Background()
	counts := map[string]int{}
	docs, _ := eng.Library().Documents(ctx)
	word := regexp.MustCompile(`[A-Za-z]{9,}`)
	// Search returns passages (parents): the term must occur in exactly one of them.
	for _, d := range docs {
		cs, _ := eng.Library().DocumentParents(ctx, d.ID)
		for _, c := range cs {
			for _, w := range word.FindAllString(c.Text, -1) {
				counts[strings.ToLower(w)]++
			}
		}
	}
	for _, d := range docs {
		cs, _ := eng.Library().DocumentParents(ctx, d.ID)
		for _, c := range cs {
			if c.PageStart != c.PageEnd || c.PageStart == 1 {
				continue
			}
			for _, w := range word.FindAllString(c.Text, -1) {
				if counts[strings.ToLower(w)] == 1 {
					return d.ID, w, c.PageStart
				}
			}
		}
	}
	t.Fatal("no unique term found")
	return "", "", 0
}

// verifies no-model mode: with Ollama unreachable, ingest, lexical search and a passages
// answer that says why and how to fix it all still work.
func TestNoModel(t *testing.T) {
	lib := t.TempDir()
	flags := []string{"--library", lib, "--ollama-host", "127.0.0.1:9"}
	rs := ingestResults(t, carrel(t, append(flags, "ingest", filepath.Join(testcorpus.Dir(t), "Walden.pdf"))...))
	if rs[0].Status != engine.Inserted {
		t.Fatalf("ingest without Ollama: %+v", rs[0])
	}
	var hits []hit
	json.Unmarshal(carrel(t, append(flags, "search", "--json", "woods")...), &hits)
	if len(hits) == 0 || hits[0].MatchType != "full_text" {
		t.Fatalf("lexical search without Ollama: %+v", hits)
	}
	var ans struct {
		Answer string `json:"answer"`
		Mode   string `json:"mode"`
		Note   string `json:"note"`
	}
	json.Unmarshal(carrel(t, append(flags, "ask", "--json", "What did he find in the woods?")...), &ans)
	if ans.Mode != "passages" || !strings.Contains(ans.Answer, "[1]") || !strings.Contains(ans.Note, "not running") || !strings.Contains(ans.Note, "ollama serve") {
		t.Fatalf("no-model answer: %+v", ans)
	}
}

// verifies each bad input fails alone with a clear one-line error while the good document
// next to it is ingested and stays searchable.
func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := filepath.Join(testcorpus.Dir(t), "Walden.pdf")
	raw, _ := os.ReadFile(good)
	enc := filepath.Join(dir, "encrypted.pdf")
	conf := model.NewAESConfiguration("secret", "secret", 256)
	if err := api.EncryptFile(good, enc, conf); err != nil {
		t.Fatal(err)
	}
	bad := map[string]struct {
		path string
		want string
	}{
		"corrupt":   {write("corrupt.pdf", append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte{0xde, 0xad}, 5000)...)), "corrupt"},
		"truncated": {write("truncated.pdf", raw[:len(raw)/3]), ""},
		"encrypted": {enc, "password"},
		"empty":     {write("empty.pdf", nil), "empty"},
		"not a pdf": {write("picture.pdf", []byte("\x89PNG\r\n\x1a\n0000IHDR")), "not a PDF"},
		"missing":   {filepath.Join(dir, "nope.pdf"), "not found"},
	}
	lib := t.TempDir()
	args := []string{"--library", lib, "--ollama-host", "127.0.0.1:9", "ingest"}
	for _, b := range bad {
		args = append(args, b.path)
	}
	args = append(args, good)
	rs := ingestResults(t, carrel(t, args...))
	byPath := map[string]engine.Result{}
	for _, r := range rs {
		byPath[r.Path] = r
	}
	for name, b := range bad {
		r := byPath[b.path]
		if r.Status != engine.Failed || r.Error == "" || strings.Contains(r.Error, "\n") || !strings.Contains(strings.ToLower(r.Error), strings.ToLower(b.want)) {
			t.Errorf("%s: %+v, want a failed one-line error mentioning %q", name, r, b.want)
		}
	}
	if r := byPath[good]; r.Status != engine.Inserted {
		t.Errorf("good document next to bad ones: %+v", r)
	}
	var hits []hit
	json.Unmarshal(carrel(t, "--library", lib, "--ollama-host", "127.0.0.1:9", "search", "--json", "woods"), &hits)
	if len(hits) == 0 {
		t.Fatal("library lost the good document")
	}
}
