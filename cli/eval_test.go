package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

// Floors for lexical retrieval on testdata/eval/dev.jsonl (60 questions), a little under
// what it reaches, so that a change that loses ground fails. On its first 20 questions the
// seed BM25 pipeline reached hit@5 0.389 and MRR@10 0.361, bd8e003 0.833 and 0.706; on all
// 60, bd8e003 reached 0.558 and 0.453.
const (
	evalFloorHit5 = 0.52
	evalFloorMRR  = 0.42
)

// verifies the eval command over the pdfcpu corpus and the dev questions: lexical
// retrieval stays above its floors and the output has exactly the documented fields.
func TestEvalDevLexical(t *testing.T) {
	if testing.Short() {
		t.Skip("ingests the pdfcpu corpus")
	}
	pdfs := testcorpus.Dir(t)
	lib := t.TempDir()
	// No Ollama here: an unreachable host keeps the run lexical and fast.
	base := []string{"--library", lib, "--ollama-host", "127.0.0.1:1"}
	run := func(args ...string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		_, code, err := Run(append(base, args...), Env{Stdout: &stdout, Stderr: &stderr})
		if code != 0 {
			t.Fatalf("carrel %s: exit %d: %v\n%s", strings.Join(args, " "), code, err, stderr.String())
		}
		return stdout.Bytes()
	}
	run("ingest", pdfs)

	qa := filepath.Join("..", "testdata", "eval", "dev.jsonl")
	raw := run("eval", "--json", "--mode", "lexical", qa)
	var fields map[string]any
	if err := json.Unmarshal(raw, &fields); err != nil {
		t.Fatalf("eval output is not JSON: %v\n%s", err, raw)
	}
	want := []string{"mode", "n", "hit@1", "hit@5", "hit@10", "mrr@10", "unanswerable_correct", "unanswerable_n"}
	if len(fields) != len(want) {
		t.Errorf("eval printed fields %v, want exactly %v", fields, want)
	}
	for _, k := range want {
		if _, ok := fields[k]; !ok {
			t.Errorf("eval output lacks %q: %s", k, raw)
		}
	}
	var res retrieve.EvalResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", bytes.TrimSpace(raw))
	if res.Mode != "lexical" || res.N != 52 || res.UnanswerableN != 8 {
		t.Errorf("mode %q n %d unanswerable_n %d, want lexical 52 8", res.Mode, res.N, res.UnanswerableN)
	}
	if !(res.Hit1 <= res.Hit5 && res.Hit5 <= res.Hit10 && res.MRR10 <= res.Hit10 && res.MRR10 >= res.Hit1) {
		t.Errorf("inconsistent metrics: %+v", res)
	}
	if res.UnanswerableCorrect < 1 {
		t.Errorf("unanswerable questions correctly empty %.3f, want all (lexical leaves 8 of 8 empty)", res.UnanswerableCorrect)
	}
	if res.Hit5 < evalFloorHit5 || res.MRR10 < evalFloorMRR {
		t.Errorf("lexical hit@5 %.3f MRR@10 %.3f, below the floors %.2f / %.2f", res.Hit5, res.MRR10, evalFloorHit5, evalFloorMRR)
	}
}
