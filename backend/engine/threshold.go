package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/carrel-app/carrel/backend/intake"
)

// The relevance threshold for vector matches (retrieve.Retriever.MinVectorScore) depends
// on the embedding model: a mean of GloVe word vectors puts every text at cosine 0.85–0.95
// to every other, a neural embedder spreads them far wider. Unless the settings give one
// (min_vector_score), Carrel measures it for the model and library in use: it asks the
// library probeQuestions, questions about everyday subjects no study library is about, and
// sets the threshold just above the best vector score that nine in ten of them reach. A
// question on a subject the library does not cover then finds no vector match, while one
// it covers (whose passages score above that background) keeps them. The few probes that
// do touch a library's subject (a cookbook, a football history) are the tenth left above.

// probeQuestions were written before any measurement, to cover subjects far from one
// another; none is about documents, computing or study.
var probeQuestions = []string{
	"How long should I boil an egg for a soft yolk?",
	"Who won the football world cup in 1998?",
	"What is the capital city of Australia?",
	"How do I stop my dog from barking at night?",
	"What are the symptoms of the common cold?",
	"When did the Roman Empire fall?",
	"How many calories are in a banana?",
	"What is the best time of year to visit Japan?",
	"How do I change a flat tyre on a bicycle?",
	"Who painted the Mona Lisa?",
	"What causes thunderstorms in summer?",
	"How do I get red wine out of a carpet?",
	"What is a good beginner workout routine?",
	"Which planets in the solar system have rings?",
	"How much does a wedding usually cost?",
	"What did the dinosaurs eat?",
	"How do I grow tomatoes on a balcony?",
	"Who wrote Pride and Prejudice?",
	"What is the difference between a violin and a viola?",
	"How do interest rates affect house prices?",
	"What should I pack for a week of camping?",
	"Why do cats purr?",
	"How do vaccines train the immune system?",
	"What is the tallest mountain in Africa?",
	"How do I make a sourdough starter?",
	"What are the rules of cricket?",
	"How do I write a cover letter for a job?",
	"Why is the sky blue?",
	"What is the plot of Hamlet?",
	"How do I take care of a houseplant with yellow leaves?",
	"What happened in the French Revolution?",
	"How fast can a cheetah run?",
}

// probeQuantile is the share of probes whose best score the threshold is set above.
const probeQuantile = 0.9

// DefaultMinVectorScore is the threshold used until one is measured (no probe could be
// embedded yet, e.g. Ollama stopped).
const DefaultMinVectorScore = 0.5

// thresholdFile holds the measured threshold, in the vectors folder.
const thresholdFile = "threshold.json"

// Threshold is a measured relevance threshold and what it was measured on.
type Threshold struct {
	Model   string  `json:"model"`
	Vectors int     `json:"vectors"` // the vector index's size when measured
	Value   float64 `json:"threshold"`
	// ProbeScores are the probes' best vector scores, ascending.
	ProbeScores []float64 `json:"probe_scores"`
}

// fits reports whether t still holds for model over n vectors. The best score among n
// unrelated passages creeps up with n, so it is measured again once the library has
// doubled or halved since, and on any change while it is small (below
// thresholdSettles vectors), where one document more moves the best scores most.
func (t Threshold) fits(model string, n int) bool {
	if t.Model != model || t.Vectors <= 0 {
		return false
	}
	if t.Vectors < thresholdSettles {
		return n == t.Vectors
	}
	return n <= 2*t.Vectors && 2*n >= t.Vectors
}

// thresholdSettles is the library size (vectors) from which a measured threshold is kept
// until the library doubles or halves.
const thresholdSettles = 256

// thresholdFromScores applies the rule: the probeQuantile-th best score (nearest rank),
// rounded up to the next hundredth.
func thresholdFromScores(scores []float64) float64 {
	s := slices.Sorted(slices.Values(scores))
	i := int(math.Ceil(probeQuantile*float64(len(s)))) - 1
	return math.Ceil(s[max(i, 0)]*100-1e-9) / 100
}

// MinVectorScore returns the relevance threshold for vector matches: the settings' value
// if they give one, else the one measured for the current embedding model and library
// (measuring it first if there is none, or the library has doubled or halved since), else
// DefaultMinVectorScore. It measures only when a vector search could run.
func (e *Engine) MinVectorScore(ctx context.Context) float64 {
	if v := e.Config().MinVectorScore; v != 0 {
		return v
	}
	t, err := e.threshold(ctx)
	if err != nil {
		return DefaultMinVectorScore
	}
	return t.Value
}

// warmThreshold measures the threshold after an ingest (once per IngestFile, IngestFiles
// or EmbedPending, not per document), when it is measured at all and the one kept no
// longer fits, so that the first search after it does not wait for one batch of probe
// embeddings. Without vectors of the model, or on a failure, it does nothing: the next
// search tries again.
func (e *Engine) warmThreshold(ctx context.Context) {
	if e.Config().MinVectorScore == 0 {
		_, _ = e.threshold(ctx)
	}
}

// threshold returns the measured threshold for the current model and library, measuring
// it if needed.
func (e *Engine) threshold(ctx context.Context) (Threshold, error) {
	model, n := e.Config().EmbedModel, e.vec.Len()
	if n == 0 || e.vec.Model() != model {
		return Threshold{}, errors.New("no vectors of the embedding model to measure against")
	}
	e.threshMu.Lock()
	defer e.threshMu.Unlock()
	if e.thresh.fits(model, n) {
		return e.thresh, nil
	}
	path := filepath.Join(e.cfg.Dir, "vectors", thresholdFile)
	if b, err := os.ReadFile(path); err == nil {
		var t Threshold
		if err := json.Unmarshal(b, &t); err != nil {
			slog.Warn("relevance threshold: the saved one is unreadable; measuring it again", "file", path, "err", err)
		} else if t.fits(model, n) && len(t.ProbeScores) > 0 {
			e.thresh = t
			return t, nil
		}
	}
	t, err := e.measureThreshold(ctx, model)
	if err != nil {
		return Threshold{}, err
	}
	e.thresh = t
	// Kept across restarts; losing it only means measuring again.
	if b, err := json.MarshalIndent(t, "", "  "); err == nil {
		tmp := path + ".tmp"
		if os.WriteFile(tmp, append(b, '\n'), 0o644) == nil {
			os.Rename(tmp, path)
		}
	}
	return t, nil
}

// measureThreshold embeds the probes with model and finds each one's best vector score.
func (e *Engine) measureThreshold(ctx context.Context, model string) (Threshold, error) {
	qs := make([]string, len(probeQuestions))
	for i, q := range probeQuestions {
		qs[i] = queryPrefix(model) + q
	}
	vecs, err := e.ollama.Embed(ctx, model, qs)
	if err != nil {
		return Threshold{}, fmt.Errorf("measure the relevance threshold: %w", err)
	}
	t := Threshold{Model: model, Vectors: e.vec.Len()}
	for _, v := range vecs {
		hits, err := e.vec.Search(v, 1, nil)
		if err != nil {
			return Threshold{}, fmt.Errorf("measure the relevance threshold: %w", err)
		}
		if len(hits) > 0 {
			t.ProbeScores = append(t.ProbeScores, float64(hits[0].Score))
		}
	}
	if len(t.ProbeScores) == 0 {
		return Threshold{}, errors.New("measure the relevance threshold: no probe found a vector")
	}
	slices.Sort(t.ProbeScores)
	t.Value = thresholdFromScores(t.ProbeScores)
	return t, nil
}

// thresholdNotice says, at open, that the saved relevance threshold of a library with
// vectors is missing or unreadable: it is derived (measured again from the library's
// vectors at the next search), but a file that vanished or was damaged is worth a word,
// as for the indexes. "" when it is there, not needed (no vectors, or one set in the
// settings), or fine.
func thresholdNotice(dir string, vectors int, configured bool) string {
	if configured || vectors == 0 {
		return ""
	}
	path := filepath.Join(dir, "vectors", thresholdFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		slog.Warn("relevance threshold: the saved one is missing; it is measured again at the next search", "file", path)
		return "The relevance threshold (vectors/" + thresholdFile + ") was missing: it is measured again from the library at the next search."
	}
	var t Threshold
	if err == nil {
		err = json.Unmarshal(b, &t)
	}
	if err == nil && (t.Model == "" || len(t.ProbeScores) == 0) {
		err = errors.New("it holds no measurement")
	}
	if err != nil {
		slog.Warn("relevance threshold: the saved one is unreadable; it is measured again at the next search", "file", path, "err", err)
		return fmt.Sprintf("The relevance threshold (vectors/%s) was damaged (%v): it is measured again from the library at the next search.", thresholdFile, intake.OneLine(err))
	}
	return ""
}
