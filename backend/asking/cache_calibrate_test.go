package asking_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies the calibration over the paraphrase/different pairs with the test embedding
// model: every pair is measured, and together with the word check no different pair is
// a hit whatever the vectors say.
func TestCalibrateCache(t *testing.T) {
	srv := testollama.Start(t)
	eng := testengine.Open(t, engine.Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: srv.EmbedModel})
	c, pairs := calibrate(t, eng)
	out, _ := json.Marshal(c)
	t.Logf("calibration: %s", out)
	if c.Same.N+c.Different.N != len(pairs) || c.Threshold < cache.MinThreshold || c.HitFalse != 0 || c.WordsFalse != 0 {
		t.Fatalf("calibration: %s", out)
	}
}

// verifies the calibration with an embedding model whose vectors mean something (the
// mean of its word embeddings): questions differing only in word order ("int to float64"
// vs "float64 to int") are identical to it, and near-identical questions about different
// things sit as high as paraphrases, so the embedding alone would give wrong hits, and
// with the word check none.
func TestCalibrateCacheMeaning(t *testing.T) {
	srv := testollama.Start(t)
	embed := testollama.MeaningModel(t, srv)
	eng := testengine.Open(t, engine.Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: embed})
	c, _ := calibrate(t, eng)
	out, _ := json.Marshal(c)
	t.Logf("calibration: %s", out)
	if c.Different.Max < 0.99 || c.EmbeddingFalse == 0 || c.HitFalse != 0 || c.HitRecall < 0.4 || c.Threshold != cache.MinThreshold {
		t.Fatalf("calibration: %s", out)
	}
}

// calibrate calibrates eng's answer cache over the paraphrase/different pairs of
// backend/cache/testdata.
func calibrate(t *testing.T, eng *engine.Engine) (cache.Calibration, []cache.Pair) {
	t.Helper()
	pairs, err := cache.ReadPairs(filepath.Join("..", "cache", "testdata", "pairs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := eng.Asking().CalibrateCache(context.Background(), pairs)
	if err != nil {
		t.Fatal(err)
	}
	return c, pairs
}
