package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies the measured relevance threshold with an embedding model whose vectors mean
// something: it is measured as the ingest embeds, kept in the vectors folder and
// read back after a restart (with Ollama gone), applied to searches (a question in the
// library's words keeps vector matches, nearly every off-topic question other than the
// probes finds none), and a threshold in the settings overrides it.
func TestMeasuredThreshold(t *testing.T) {
	srv := testollama.Start(t)
	embed := testollama.MeaningModel(t, srv)
	ctx := context.Background()
	dir, docs := t.TempDir(), t.TempDir()
	// In the model's own words: it spells other words out letter by letter.
	texts := map[string]string{
		"pdf.md": "# PDF\n\nA pdf file is a tree of objects. A content stream holds the page content, " +
			"and a filter such as a compression filter encodes the stream. The cross reference " +
			"table and the trailer tell a reader where each object is. A font and an image are " +
			"objects too, and an encrypted document has encrypted streams.",
		"go.md": "# Go\n\nA goroutine is a function that works at the same time as other goroutines. " +
			"Goroutines send values over a channel, and a select statement waits on channels. " +
			"A slice is part of an array, a map maps each key to a value, a struct has fields, " +
			"and an interface is a list of methods.",
	}
	for name, text := range texts {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	eng := openEngine(t, Config{Dir: dir, OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: embed})
	for name := range texts {
		if r, err := eng.Intake().IngestFile(ctx, filepath.Join(docs, name), nil); err != nil || r.Status != Inserted {
			t.Fatalf("ingest %s: %+v %v", name, r, err)
		}
	}

	// Each step uses the threshold the first measured.
	var v float64
	t.Run("measured by the ingest and kept beside the vectors", func(t *testing.T) {
		// Measured as the ingest embedded, before any search.
		raw, err := os.ReadFile(filepath.Join(dir, "vectors", thresholdFile))
		if err != nil {
			t.Fatalf("threshold not measured by the ingest: %v", err)
		}
		v = eng.MinVectorScore(ctx)
		var kept Threshold
		if err := json.Unmarshal(raw, &kept); err != nil {
			t.Fatal(err)
		}
		t.Logf("threshold %.2f from probe scores %.3f", v, kept.ProbeScores)
		if !kept.fits(embed, eng.vec.Len()) || len(kept.ProbeScores) != len(probeQuestions) ||
			kept.Value != v || v != thresholdFromScores(kept.ProbeScores) || v <= 0 || v > 1 {
			t.Fatalf("threshold %v, kept %s", v, raw)
		}
	})

	t.Run("a question in the library's words keeps its vector matches", func(t *testing.T) {
		onTopic, err := eng.Search(ctx, "Is a pdf file a tree of objects, and what does a filter encode?", SearchOptions{K: 3, Mode: retrieve.Vector})
		if err != nil || len(onTopic) == 0 || onTopic[0].VectorScore < v {
			t.Fatalf("on-topic question: %+v %v (threshold %.2f)", onTopic, err, v)
		}
	})

	t.Run("off-topic questions other than the probes find none", func(t *testing.T) {
		// Off-topic questions other than the probes the threshold was measured with, so the
		// check is not of the probes against their own quantile: nine in ten probes fall
		// under it, so about as many of these should, and at most a fifth may get through.
		through := 0
		for _, q := range offTopicQuestions {
			if slices.Contains(probeQuestions, q) {
				t.Fatalf("%q is a probe question", q)
			}
			hits, err := eng.Search(ctx, q, SearchOptions{K: 3, Mode: retrieve.Vector})
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range hits {
				if h.VectorScore < v {
					t.Errorf("%q: a vector match at %.3f, below the threshold %.2f", q, h.VectorScore, v)
				}
			}
			if len(hits) > 0 {
				through++
				t.Logf("%q got through (best %.3f)", q, hits[0].VectorScore)
			}
		}
		if limit := len(offTopicQuestions) / 5; through > limit {
			t.Errorf("%d of %d off-topic questions found vector matches, want at most %d", through, len(offTopicQuestions), limit)
		}
	})

	t.Run("kept across a restart, overridden by the settings", func(t *testing.T) {
		// After a restart the kept threshold serves without Ollama (nothing to embed probes with).
		eng.Close()
		eng, err := Open(Config{Dir: dir, OllamaHost: "127.0.0.1:1", EmbedModel: embed})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := eng.threshold(ctx); err != nil || got.Value != v {
			t.Errorf("after restart: %+v %v, want the kept %.2f", got, err, v)
		}
		eng.Close()
		eng, err = Open(Config{Dir: dir, OllamaHost: srv.Host, EmbedModel: embed, MinVectorScore: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		if got := eng.MinVectorScore(ctx); got != 0.3 {
			t.Errorf("settings' threshold: got %v, want 0.3", got)
		}
	})
}

// offTopicQuestions are everyday questions, far from the test library's pdf and Go notes,
// written apart from probeQuestions.
var offTopicQuestions = []string{
	"How do I bake bread without an oven?",
	"Who was the first person to walk on the moon?",
	"What is the population of Brazil?",
	"How often should I water a cactus?",
	"Why do leaves change colour in autumn?",
	"What is the best way to learn to swim as an adult?",
	"Which river is the longest in the world?",
	"How do I remove rust from a kitchen knife?",
	"What did people eat in medieval England?",
	"How many players are on a basketball team?",
	"What makes a rainbow appear after rain?",
	"How do I keep birds away from my garden?",
	"Who invented the telephone?",
	"What is the healthiest breakfast for children?",
	"How do bees make honey?",
	"What should I wear to a summer wedding?",
	"How cold is it at the south pole in winter?",
	"Why do people snore at night?",
	"What language do they speak in Portugal?",
	"How do I fold a paper crane?",
}

// verifies when a measured threshold is measured again: another model, a library doubled
// or halved since, or any change to a small one.
func TestThresholdFits(t *testing.T) {
	th := Threshold{Model: "m", Vectors: 1000, Value: 0.6}
	for _, c := range []struct {
		model string
		n     int
		want  bool
	}{{"m", 1000, true}, {"m", 500, true}, {"m", 2000, true}, {"m", 499, false}, {"m", 2001, false}, {"other", 1000, false}} {
		if got := th.fits(c.model, c.n); got != c.want {
			t.Errorf("fits(%q, %d) = %v, want %v", c.model, c.n, got, c.want)
		}
	}
	// A small library is measured again on any change.
	small := Threshold{Model: "m", Vectors: 100, Value: 0.6}
	if !small.fits("m", 100) || small.fits("m", 101) || small.fits("m", 99) {
		t.Errorf("a threshold measured over 100 vectors: fits 100 %v, 101 %v, 99 %v; want true, false, false",
			small.fits("m", 100), small.fits("m", 101), small.fits("m", 99))
	}
	// The 90th of 10 scores by nearest rank is the 9th, rounded up to a hundredth.
	if got := thresholdFromScores([]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.834, 0.95}); got != 0.84 {
		t.Errorf("threshold = %v, want 0.84", got)
	}
}
