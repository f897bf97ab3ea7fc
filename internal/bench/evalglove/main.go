// Command evalglove measures vector and hybrid retrieval with a real (if weak) embedding
// model on a machine that cannot download a neural one: the pdfcpu corpus embedded from
// GloVe 6B 100d word vectors (internal/glove) through the real test Ollama, then
// `carrel eval` on the dev questions in every mode. -model picks the embedder: glove-mean
// (the plain mean of the words' normalised vectors, the default) or glove-sif (SIF: the
// SIF-weighted sum of the words' vectors less the common component). glove-mean is the
// default because it measured better in hybrid mode (the figures are in docs/retrieval.md,
// "With a real embedding model"). It prints one line per mode:
//
//	eval embed=MODEL mode=M n=N hit@1=… hit@5=… hit@10=… mrr@10=… unanswerable_correct=…
//
// then the threshold Carrel measured for the model (threshold embed=MODEL value=T …),
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
// The evaluation itself is shared with evaluse (internal/bench/evalembed).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/carrel-app/carrel/internal/bench/evalembed"
	"github.com/carrel-app/carrel/internal/glove"
	"github.com/carrel-app/carrel/internal/testollama"
)

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
	err = evalembed.Run(ctx, evalembed.Options{
		Name:    "evalglove",
		Host:    srv.Host,
		Model:   model,
		Marker:  fmt.Sprintf("%s words=%d", model, words),
		Library: lib,
		QA:      qa,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "evalglove: %s done in %s\n", model, time.Since(began).Round(time.Second))
	return nil
}
