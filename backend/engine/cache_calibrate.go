package engine

import (
	"context"
	"fmt"
	"math"

	"github.com/carrel-app/carrel/backend/cache"
)

// CalibrateCache embeds each pair's questions with the configured embedding model and
// reports how cosine similarity and the word check separate paraphrases from different
// questions, with the threshold they call for (see cache.Calibrate).
func (e *Engine) CalibrateCache(ctx context.Context, pairs []cache.Pair) (cache.Calibration, error) {
	model := e.Config().EmbedModel
	if st := e.Status(ctx); !st.embedOK {
		return cache.Calibration{}, fmt.Errorf("calibrating needs the embedding model %s: %s", model, st.Fix)
	}
	texts := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		// The form lookups embed (see embedForm).
		texts = append(texts, queryPrefix(model)+embedForm(p.A), queryPrefix(model)+embedForm(p.B))
	}
	vecs, err := e.ollama.Embed(ctx, model, texts)
	if err != nil {
		return cache.Calibration{}, fmt.Errorf("calibrate the cache: %w", err)
	}
	if len(vecs) != len(texts) {
		return cache.Calibration{}, fmt.Errorf("calibrate the cache: %d vectors for %d questions", len(vecs), len(texts))
	}
	cos := make([]float64, len(pairs))
	for i := range pairs {
		cos[i] = cosine(vecs[2*i], vecs[2*i+1])
	}
	return cache.Calibrate(model, pairs, cos), nil
}

func cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
