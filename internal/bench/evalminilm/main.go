// Command evalminilm measures lexical, vector and hybrid retrieval with a real
// retrieval-trained embedder: all-MiniLM-L6-v2 (internal/testollama.MiniLMModel) served by
// the real test Ollama. It ingests the pdfcpu corpus through Carrel's CLI, then runs
// `carrel eval` on the dev questions in every mode, on all of them and on d01–d20 apart
// (the first set, for comparison with earlier figures), and prints the lines of
// internal/bench/evalembed:
//
//	eval embed=all-minilm mode=M min_vector_score=S n=N hit@1=… hit@5=… hit@10=… mrr@10=… unanswerable_correct=…
//
// -quick prints only the three modes at Carrel's own threshold (no calibration), for
// measuring a retrieval change on a kept library in a minute.
//
// Embedding the corpus takes minutes; -library keeps the embedded library for the next
// run, which then skips the ingest (the library remembers the model it was embedded
// with, evalminilm-model.txt, and another run refuses it).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/carrel-app/carrel/internal/bench/evalembed"
	"github.com/carrel-app/carrel/internal/testollama"
)

func main() {
	lib := flag.String("library", "", "library folder to keep between runs (default: a temporary one)")
	qa := flag.String("qa", "testdata/eval/dev.jsonl", "questions in the eval format")
	first := flag.Int("first", 20, "also evaluate the first N questions apart (0: no)")
	quick := flag.Bool("quick", false, "only the three modes at Carrel's own threshold")
	verbose := flag.Bool("v", false, "print each question's outcome to stderr")
	modes := flag.String("modes", "lexical,vector,hybrid", "the retrieval modes to evaluate, comma-separated")
	flag.Parse()
	if err := run(*lib, *qa, *first, *quick, *verbose, strings.Split(*modes, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "evalminilm:", err)
		os.Exit(1)
	}
}

func run(lib, qa string, first int, quick, verbose bool, modes []string) error {
	ctx := context.Background()
	began := time.Now()
	srv, err := testollama.StartMiniLMServer(ctx, "", nil)
	if err != nil {
		return err
	}
	defer srv.Close()
	model := testollama.MiniLMModel
	var subsets []evalembed.Subset
	if first > 0 {
		path, err := firstQuestions(qa, first)
		if err != nil {
			return err
		}
		defer os.Remove(path)
		subsets = append(subsets, evalembed.Subset{Name: fmt.Sprintf("first%d", first), QA: path})
	}
	err = evalembed.Run(ctx, evalembed.Options{
		Name:    "evalminilm",
		Host:    srv.Host,
		Model:   model,
		Marker:  "all-MiniLM-L6-v2-Q4_K_M sha256:" + testollama.MiniLMSHA256[:12],
		Library: lib,
		QA:      qa,
		Subsets: subsets,
		Quick:   quick,
		Verbose: verbose,
		Modes:   modes,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "evalminilm: done in %s\n", time.Since(began).Round(time.Second))
	return nil
}

// firstQuestions writes the first n questions of qa to a temporary file.
func firstQuestions(qa string, n int) (string, error) {
	f, err := os.Open(qa)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(lines) < n {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	out, err := os.CreateTemp("", "evalminilm-*-"+filepath.Base(qa))
	if err != nil {
		return "", err
	}
	_, err = out.WriteString(strings.Join(lines, "\n") + "\n")
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return out.Name(), err
}
