// Command evalglove measures vector and hybrid retrieval with a real (if weak) embedding
// model on a machine that cannot download a neural one: the pdfcpu corpus embedded from
// GloVe 6B 100d word vectors (internal/glove) through the real test Ollama, then
// `carrel eval` on the dev questions in every mode. -model picks the embedder: glove-mean
// (the plain mean of the words' normalised vectors, the default) or glove-sif (SIF: the
// SIF-weighted sum of the words' vectors less the common component). glove-mean is the
// default because it measured better in hybrid mode: at the calibrated thresholds,
// glove-mean hybrid hit@5 0.833 hit@10 0.944 MRR@10 0.653 (vector 0.278 / 0.389 / 0.265),
// glove-sif hybrid 0.722 / 0.833 / 0.612 (vector 0.333 / 0.333 / 0.264); lexical alone is
// 0.833 / 0.889 / 0.706. It prints one line per mode:
//
//	eval embed=MODEL mode=M n=N hit@1=… hit@5=… hit@10=… mrr@10=… unanswerable_correct=…
//
// and, for calibrating min_vector_score, one line per question kind with the cosine of
// its questions' best vector hits (measured with min_vector_score -1):
//
//	calibrate kind=K best_vector_scores=s1,s2,…
//
// and the output of `carrel cache calibrate` on the answer cache's question pairs, each
// line prefixed "cache".
//
// Embedding the corpus takes minutes (about 7,700 children); -library keeps the embedded
// library for the next run, which then skips the ingest. The library remembers the model
// and vocabulary it was embedded with (evalglove-model.txt) and another run refuses it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/cli"
	"github.com/carrel-app/carrel/internal/glove"
	"github.com/carrel-app/carrel/internal/testollama"
)

// markerFile, in the library, names the model and vocabulary the library was embedded with.
const markerFile = "evalglove-model.txt"

func main() {
	model := flag.String("model", glove.MeanModel, "embedder: "+glove.MeanModel+" or "+glove.SIFModel)
	lib := flag.String("library", "", "library folder to keep between runs (default: a temporary one)")
	words := flag.Int("words", 50000, "vocabulary: the most frequent plain words of GloVe")
	qa := flag.String("qa", "testdata/eval/dev.jsonl", "questions in the eval format")
	flag.Parse()
	if err := run(*model, *lib, *words, *qa); err != nil {
		fmt.Fprintln(os.Stderr, "evalglove:", err)
		os.Exit(1)
	}
}

func run(model, lib string, words int, qa string) error {
	ctx := context.Background()
	began := time.Now()
	tgz, err := glove.Fetch(ctx, glove.CacheDir())
	if err != nil {
		return err
	}
	vocab, err := glove.Load(tgz, words)
	if err != nil {
		return err
	}
	srv, err := testollama.StartEmptyServer(ctx, "", nil)
	if err != nil {
		return err
	}
	defer srv.Close()
	opts, ok := glove.Models(model, vocab)
	if !ok {
		return fmt.Errorf("no model %q (want %s or %s)", model, glove.SIFModel, glove.MeanModel)
	}
	if err := srv.CreateModel(ctx, model, opts); err != nil {
		return err
	}
	if lib == "" {
		if lib, err = os.MkdirTemp("", "carrel-evalglove-*"); err != nil {
			return err
		}
		defer os.RemoveAll(lib)
	}
	if err := checkMarker(lib, fmt.Sprintf("%s words=%d", model, words)); err != nil {
		return err
	}
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/pdfcpu/pdfcpu").Output()
	if err != nil {
		return fmt.Errorf("find pdfcpu module: %w", err)
	}
	corpus := filepath.Join(strings.TrimSpace(string(out)), "pkg", "testdata")
	carrel := func(args ...string) ([]byte, error) {
		var stdout, stderr bytes.Buffer
		base := []string{"--library", lib, "--ollama-host", srv.Host, "--embed-model", model}
		if _, code, err := cli.Run(append(base, args...), cli.Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
			return nil, fmt.Errorf("carrel %s: exit %d: %v\n%s", strings.Join(args, " "), code, err, stderr.String())
		}
		return stdout.Bytes(), nil
	}
	ingestBegan := time.Now()
	if _, err := carrel("ingest", corpus); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "evalglove: library %s ingested and embedded by %s in %s\n", lib, model, time.Since(ingestBegan).Round(time.Second))

	eval := func(mode, minScore string) error {
		raw, err := carrel("eval", "--json", "--mode", mode, qa)
		if err != nil {
			return err
		}
		var r retrieve.EvalResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("eval %s: %w", mode, err)
		}
		fmt.Printf("eval embed=%s mode=%s min_vector_score=%s n=%d hit@1=%.3f hit@5=%.3f hit@10=%.3f mrr@10=%.3f unanswerable_correct=%.3f\n",
			model, r.Mode, minScore, r.N, r.Hit1, r.Hit5, r.Hit10, r.MRR10, r.UnanswerableCorrect)
		return nil
	}
	for _, mode := range []string{"lexical", "vector", "hybrid"} {
		if err := eval(mode, "default"); err != nil {
			return err
		}
	}
	var threshold float64
	err = withMinVectorScore(lib, -1, func() error {
		threshold, err = calibrate(qa, carrel)
		return err
	})
	if err != nil {
		return err
	}
	// The README's rule: just above the unanswerable questions' best vector scores.
	err = withMinVectorScore(lib, threshold, func() error {
		for _, mode := range []string{"vector", "hybrid"} {
			if err := eval(mode, fmt.Sprintf("%.2f", threshold)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The answer cache's threshold, from the same model: paraphrase and different-question
	// pairs (backend/cache/testdata/pairs.jsonl).
	raw, err := carrel("cache", "calibrate", "backend/cache/testdata/pairs.jsonl")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		fmt.Println("cache", strings.TrimSpace(line))
	}
	fmt.Fprintf(os.Stderr, "evalglove: %s done in %s\n", model, time.Since(began).Round(time.Second))
	return nil
}

// checkMarker refuses a library embedded with another model or vocabulary (its vectors
// would be ignored or, worse, mixed) and marks a new one as embedded with want.
func checkMarker(lib, want string) error {
	path := filepath.Join(lib, markerFile)
	have, err := os.ReadFile(path)
	switch {
	case err == nil && strings.TrimSpace(string(have)) != want:
		return fmt.Errorf("library %s was embedded with %s, not %s: use another -library", lib, strings.TrimSpace(string(have)), want)
	case err == nil:
		return nil
	case !os.IsNotExist(err):
		return err
	}
	if err := os.MkdirAll(lib, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(lib)
	if err != nil {
		return err
	}
	if len(entries) > 0 {
		return fmt.Errorf("library %s has no %s, so its model is unknown: use another -library, or write %q there if you know it was embedded so", lib, markerFile, want)
	}
	return os.WriteFile(path, []byte(want+"\n"), 0o644)
}

// withMinVectorScore runs fn with the library's min_vector_score set to v, then puts its
// settings file back as it was.
func withMinVectorScore(lib string, v float64, fn func() error) error {
	path := filepath.Join(lib, engine.ConfigFile)
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	c, err := engine.LoadConfig(lib)
	if err != nil {
		return err
	}
	c.MinVectorScore = v
	if err := engine.SaveConfig(lib, c); err != nil {
		return err
	}
	defer func() {
		if old == nil {
			os.Remove(path)
		} else {
			os.WriteFile(path, old, 0o644)
		}
	}()
	return fn()
}

// calibrate prints the best vector score of each question by kind (run it with nothing
// dropped) and returns the threshold the README's rule gives: the highest unanswerable
// question's best score, rounded up to the next hundredth.
func calibrate(qa string, carrel func(...string) ([]byte, error)) (float64, error) {
	f, err := os.Open(qa)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	byKind := map[string][]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct{ Question, Kind string }
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return 0, fmt.Errorf("%s: %w", qa, err)
		}
		raw, err := carrel("search", "--json", "--mode", "vector", "--k", "1", q.Question)
		if err != nil {
			return 0, err
		}
		var hits []struct {
			VectorScore float64 `json:"vector_score"`
		}
		if err := json.Unmarshal(raw, &hits); err != nil {
			return 0, fmt.Errorf("search: %w", err)
		}
		best := 0.0
		if len(hits) > 0 {
			best = hits[0].VectorScore
		}
		byKind[q.Kind] = append(byKind[q.Kind], best)
	}
	for _, k := range slices.Sorted(maps.Keys(byKind)) {
		s := byKind[k]
		slices.Sort(s)
		parts := make([]string, len(s))
		for i, v := range s {
			parts[i] = fmt.Sprintf("%.3f", v)
		}
		fmt.Printf("calibrate kind=%s best_vector_scores=%s\n", k, strings.Join(parts, ","))
	}
	top := 0.0
	for _, v := range byKind["unanswerable"] {
		top = max(top, v)
	}
	return math.Ceil(top*100+1e-9) / 100, sc.Err()
}
