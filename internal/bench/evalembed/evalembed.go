// Package evalembed is the retrieval evaluation the eval commands share (evalglove,
// evaluse): given a server that speaks Ollama's HTTP API with an embedding model, it
// ingests the pdfcpu corpus through Carrel's CLI in-process (cli.Run), runs `carrel eval`
// on the questions in every mode, finds the best vector score of each question by kind,
// evaluates again at the threshold the manual rule (docs/retrieval.md) gives, and prints the answer
// cache's calibration. The lines it prints:
//
//	eval embed=MODEL mode=M min_vector_score=S n=N hit@1=… hit@5=… hit@10=… mrr@10=… unanswerable_correct=…
//	calibrate kind=K best_vector_scores=s1,s2,…
//	cache …
//
// min_vector_score=default means the settings give none, so Carrel uses the threshold it
// measures itself (backend/engine/threshold.go); a line
//
//	threshold embed=MODEL value=T vectors=N probes=P probe_scores=s1,s2,…
//
// follows the default-threshold evals, from the library's vectors/threshold.json.
package evalembed

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/cli"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

// Options say what to evaluate.
type Options struct {
	// Name is the command's name, for messages and the library's marker file
	// (Name-model.txt).
	Name string
	// Host is the base URL of the server that serves Model over Ollama's HTTP API.
	Host string
	// Model is the embedding model's name on that server.
	Model string
	// Marker says what the library is embedded with (model and any parameter that changes
	// its vectors); a library marked otherwise is refused.
	Marker string
	// Library is the library folder to keep between runs; empty means a temporary one.
	Library string
	// QA is the question file in the eval format.
	QA string
	// Subsets are further question files evaluated in every mode at Carrel's own
	// threshold, their lines marked qa=NAME (e.g. the first twenty dev questions).
	Subsets []Subset
	// Quick evaluates the three modes at Carrel's own threshold only: no calibration,
	// no manual-rule threshold, no cache calibration.
	Quick bool
	// Verbose passes -v to eval: each question's outcome on stderr.
	Verbose bool
	// Modes are the retrieval modes evaluated; empty means lexical, vector and hybrid.
	Modes []string
}

// Subset is a question file evaluated apart.
type Subset struct{ Name, QA string }

// Run ingests the corpus (skipping what a kept library already holds) and prints the
// evaluation.
func Run(ctx context.Context, o Options) error {
	lib := o.Library
	if lib == "" {
		var err error
		if lib, err = os.MkdirTemp("", "carrel-"+o.Name+"-*"); err != nil {
			return err
		}
		defer os.RemoveAll(lib)
	}
	if err := checkMarker(lib, o.Name+"-model.txt", o.Marker); err != nil {
		return err
	}
	corpus, err := Corpus()
	if err != nil {
		return err
	}
	carrel := func(args ...string) ([]byte, []byte, error) {
		var stdout, stderr bytes.Buffer
		base := []string{"--library", lib, "--ollama-host", o.Host, "--embed-model", o.Model}
		if _, code, err := cli.Run(append(base, args...), cli.Env{Stdout: &stdout, Stderr: &stderr}); code != 0 {
			return nil, nil, fmt.Errorf("carrel %s: exit %d: %v\n%s", strings.Join(args, " "), code, err, stderr.String())
		}
		return stdout.Bytes(), stderr.Bytes(), nil
	}
	carrelOut := func(args ...string) ([]byte, error) {
		out, _, err := carrel(args...)
		return out, err
	}
	ingestBegan := time.Now()
	_, stderr, err := carrel("ingest", corpus)
	if err != nil {
		return err
	}
	// The ingest succeeds when embedding fails (the documents stay searchable by words),
	// which leaves the vector side short of chunks: that must not pass unnoticed.
	for _, line := range strings.Split(string(stderr), "\n") {
		// A chunk the model embeds as zero is recorded as having no vector; any other
		// embedding failure would leave chunks out of the vector side.
		if strings.HasPrefix(line, "embedding: ") {
			return fmt.Errorf("carrel ingest: %s", line)
		}
	}
	fmt.Fprintf(os.Stderr, "%s: library %s ingested and embedded by %s in %s\n", o.Name, lib, o.Model, time.Since(ingestBegan).Round(time.Second))

	evalQA := func(qa, name, mode, minScore string) error {
		args := []string{"eval", "--json", "--mode", mode, qa}
		if o.Verbose {
			args = append(args, "-v")
		}
		raw, stderr, err := carrel(args...)
		if err != nil {
			return err
		}
		if o.Verbose {
			os.Stderr.Write(stderr)
		}
		var r retrieve.EvalResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return fmt.Errorf("eval %s: %w", mode, err)
		}
		set := ""
		if name != "" {
			set = " qa=" + name
		}
		fmt.Printf("eval embed=%s%s mode=%s min_vector_score=%s n=%d hit@1=%.3f hit@5=%.3f hit@10=%.3f mrr@10=%.3f unanswerable_correct=%.3f unanswerable_n=%d\n",
			o.Model, set, r.Mode, minScore, r.N, r.Hit1, r.Hit5, r.Hit10, r.MRR10, r.UnanswerableCorrect, r.UnanswerableN)
		return nil
	}
	eval := func(mode, minScore string) error { return evalQA(o.QA, "", mode, minScore) }
	modes := o.Modes
	if len(modes) == 0 {
		modes = []string{"lexical", "vector", "hybrid"}
	}
	for _, mode := range modes {
		if err := eval(mode, "default"); err != nil {
			return err
		}
	}
	for _, sub := range o.Subsets {
		for _, mode := range modes {
			if err := evalQA(sub.QA, sub.Name, mode, "default"); err != nil {
				return err
			}
		}
	}
	if o.Quick {
		return printThreshold(lib, o.Model)
	}
	if err := printThreshold(lib, o.Model); err != nil {
		return err
	}
	var threshold float64
	err = withMinVectorScore(lib, -1, func() error {
		threshold, err = calibrate(o.QA, carrelOut)
		return err
	})
	if err != nil {
		return err
	}
	// The manual rule (docs/retrieval.md): just above the unanswerable questions' best vector scores.
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
	raw, err := carrelOut("cache", "calibrate", "backend/cache/testdata/pairs.jsonl")
	if err != nil {
		return err
	}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		fmt.Println("cache", strings.TrimSpace(line))
	}
	return nil
}

// Corpus returns the folder of the pdfcpu module's test PDFs, the corpus the dev questions
// are about.
func Corpus() (string, error) { return testcorpus.Folder() }

// printThreshold prints the threshold Carrel measured for model in lib.
func printThreshold(lib, model string) error {
	b, err := os.ReadFile(filepath.Join(lib, "vectors", "threshold.json"))
	if err != nil {
		return fmt.Errorf("the measured threshold: %w", err)
	}
	var t engine.Threshold
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("the measured threshold: %w", err)
	}
	if t.Model != model {
		return fmt.Errorf("the measured threshold is for %q, not %q", t.Model, model)
	}
	fmt.Printf("threshold embed=%s value=%.2f vectors=%d probes=%d probe_scores=%s\n",
		model, t.Value, t.Vectors, len(t.ProbeScores), join(t.ProbeScores))
	return nil
}

func join(s []float64) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprintf("%.3f", v)
	}
	return strings.Join(parts, ",")
}

// checkMarker refuses a library embedded with another model or vocabulary (its vectors
// would be ignored or, worse, mixed) and marks a new one as embedded with want.
func checkMarker(lib, markerFile, want string) error {
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
// dropped) and returns the threshold the manual rule (docs/retrieval.md) gives: the highest unanswerable
// question's best score, rounded up to the next hundredth.
func calibrate(qa string, carrel func(...string) ([]byte, error)) (float64, error) {
	f, err := os.Open(qa)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	byKind := map[retrieve.QuestionKind][]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct {
			Question string
			Kind     retrieve.QuestionKind
		}
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
		fmt.Printf("calibrate kind=%s best_vector_scores=%s\n", k, join(s))
	}
	top := 0.0
	for _, v := range byKind[retrieve.Unanswerable] {
		top = max(top, v)
	}
	return math.Ceil(top*100+1e-9) / 100, sc.Err()
}
