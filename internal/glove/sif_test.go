package glove

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"sync"
	"testing"

	"github.com/carrel-app/carrel/internal/testollama"
)

var (
	vocabOnce sync.Once
	vocab     *Vocab
	vocabErr  error
)

// testVocab loads the 50,000-word vocabulary once for the package's tests.
func testVocab(t *testing.T) *Vocab {
	t.Helper()
	vocabOnce.Do(func() {
		tgz, err := Fetch(t.Context(), CacheDir())
		if err != nil {
			vocabErr = err
			return
		}
		vocab, vocabErr = Load(tgz, 50000)
	})
	if vocabErr != nil {
		t.Fatal(vocabErr)
	}
	return vocab
}

// Short texts by topic, written for this test (nothing of the eval corpus or questions):
// texts of one topic are related, texts of two topics are not.
var topics = [][]string{
	{
		"Simmer the onions in butter until soft, then add garlic, tomatoes and a pinch of salt.",
		"Knead the dough for ten minutes, let it rise overnight and bake the bread in a hot oven.",
		"Whisk the eggs with sugar and flour, pour the batter into a greased pan and bake the cake.",
	},
	{
		"The telescope revealed faint galaxies beyond the nebula, billions of light years from Earth.",
		"Astronomers measured the orbit of the comet as it passed close to the sun and the planets.",
		"A spacecraft landed on the moon, and its cameras photographed craters near the lunar pole.",
	},
	{
		"The striker scored twice in the second half and the home team won the league match.",
		"The goalkeeper saved a penalty, but the visiting side equalised in the final minute of the game.",
		"After the tournament the coach praised his players and the fans cheered in the stadium.",
	},
	{
		"The central bank raised interest rates to curb inflation, and bond yields climbed.",
		"Investors sold shares as the stock market fell, while the currency weakened against the dollar.",
		"Borrowers with mortgages face higher monthly payments when lenders increase the loan rates.",
	},
}

// cosines returns the mean cosine between texts of one topic and between texts of two.
func cosines(e *Embedder) (related, unrelated float64) {
	var emb [][][]float64
	for _, texts := range topics {
		var es [][]float64
		for _, text := range texts {
			es = append(es, e.Embed(text))
		}
		emb = append(emb, es)
	}
	var nr, nu int
	for a := range emb {
		for b := a; b < len(emb); b++ {
			for i := range emb[a] {
				for j := range emb[b] {
					if a == b && j <= i {
						continue
					}
					if c := dot(emb[a][i], emb[b][j]); a == b {
						related += c
						nr++
					} else {
						unrelated += c
						nu++
					}
				}
			}
		}
	}
	return related / float64(nr), unrelated / float64(nu)
}

// verifies SIF's parts: the weights rise from frequent to rare words, every baked vector is
// orthogonal to the common direction (so every text's embedding is), the plain mean's
// embeddings lean heavily on that direction while SIF's do not, and SIF separates texts of
// different topics more than the mean does (a lower cosine between them, and a wider gap
// to texts of one topic).
func TestSIF(t *testing.T) {
	v := testVocab(t)
	s := NewSIF(v)
	for i := 1; i < len(s.Weights); i++ {
		if v.Ranks[i] <= v.Ranks[i-1] || s.Weights[i] <= s.Weights[i-1] {
			t.Fatalf("word %d %q (rank %d, weight %.4f) after %q (rank %d, weight %.4f)", i, v.Words[i], v.Ranks[i], s.Weights[i], v.Words[i-1], v.Ranks[i-1], s.Weights[i-1])
		}
	}
	first, last := s.Weights[0], s.Weights[len(s.Weights)-1]
	t.Logf("weights: %q (rank %d) %.3f … %q (rank %d) %.4f; package of %d words", v.Words[0], v.Ranks[0], first, v.Words[len(v.Words)-1], v.Ranks[len(v.Ranks)-1], last, v.Size)
	if first > 0.5 || last < 0.99 {
		t.Errorf("weights %.3f … %.4f: want the most frequent word under 0.5 and the rarest near 1", first, last)
	}
	if n := math.Sqrt(dot(s.Common, s.Common)); math.Abs(n-1) > 1e-9 {
		t.Fatalf("common direction of length %v", n)
	}
	for i, vec := range s.Vectors {
		d := 0.0
		for j := range Dims {
			d += float64(vec[j]) * s.Common[j]
		}
		if math.Abs(d) > 1e-5*math.Sqrt(sq32(vec)) {
			t.Fatalf("baked vector of %q has projection %g on the common direction", v.Words[i], d)
		}
	}

	mean, sif := NewEmbedder(MeanModel, v, nil), NewEmbedder(SIFModel, v, s)
	var projMean, projSIF float64
	n := 0
	for _, texts := range topics {
		for _, text := range texts {
			projMean += dot(mean.Embed(text), s.Common)
			projSIF += dot(sif.Embed(text), s.Common)
			n++
		}
	}
	projMean, projSIF = projMean/float64(n), projSIF/float64(n)
	t.Logf("mean projection on the common direction: glove-mean %.3f, glove-sif %.2g", projMean, projSIF)
	if math.Abs(projMean) < 0.5 || math.Abs(projSIF) > 1e-4 {
		t.Errorf("mean projection on the common direction: glove-mean %.3f (want a large one), glove-sif %.2g (want ~0)", projMean, projSIF)
	}
	relMean, unrelMean := cosines(mean)
	relSIF, unrelSIF := cosines(sif)
	t.Logf("cosines one topic / two topics: glove-mean %.3f / %.3f, glove-sif %.3f / %.3f", relMean, unrelMean, relSIF, unrelSIF)
	if unrelSIF > unrelMean-0.2 {
		t.Errorf("glove-sif cosine between topics %.3f not well below glove-mean's %.3f", unrelSIF, unrelMean)
	}
	if relSIF-unrelSIF <= relMean-unrelMean {
		t.Errorf("glove-sif gap between one topic and two %.3f not wider than glove-mean's %.3f", relSIF-unrelSIF, relMean-unrelMean)
	}
}

// verifies that the models the test Ollama serves embed as the Go embedders say: the
// plain mean of normalised vectors, and the SIF model's sum of its vectors as they are
// (the padding dimension that evens out the first block's RMS norm leaves no trace).
func TestServedEmbeddings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the test Ollama")
	}
	v := testVocab(t)
	srv := testollama.StartEmpty(t)
	s := NewSIF(v)
	texts := []string{
		"bird",
		"pond ice bird loon",
		topics[0][0], topics[1][1], topics[3][2],
		"Rare words weigh more: the astronomers photographed craters, nebula and comet.",
	}
	for _, name := range []string{MeanModel, SIFModel} {
		opts, _ := Models(name, v)
		if err := srv.CreateModel(t.Context(), name, opts); err != nil {
			t.Fatal(err)
		}
		e := NewEmbedder(name, v, s)
		served := embed(t, srv.Host, name, texts)
		for i, text := range texts {
			want := e.Embed(text)
			got := served[i]
			if len(got) != 104 {
				t.Fatalf("%s: %d dimensions", name, len(got))
			}
			for j := Dims; j < len(got); j++ {
				if math.Abs(got[j]) > 1e-4 {
					t.Errorf("%s %q: dimension %d is %g, want 0", name, text, j, got[j])
				}
			}
			if c := dot(want, got[:Dims]); c < 0.9999 {
				t.Errorf("%s %q: cosine %.6f between the served and the Go embedding", name, text, c)
			} else {
				t.Logf("%s %q: cosine %.7f", name, text, c)
			}
		}
	}
}

func embed(t *testing.T, host, model string, texts []string) [][]float64 {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"model": model, "input": texts})
	resp, err := http.Post(host+"/api/embed", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Embeddings [][]float64
		Error      string
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || out.Error != "" || len(out.Embeddings) != len(texts) {
		t.Fatal(fmt.Errorf("embed with %s: %v %s (%d embeddings)", model, err, out.Error, len(out.Embeddings)))
	}
	return out.Embeddings
}
