package rerank_test

import (
	"math"
	"slices"
	"testing"

	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/rerank"
)

// reader returns a Reader analysing text as a real lexical index does (stemmed, English
// stop words out), weighing every term 1.
func reader(t *testing.T) rerank.Reader {
	t.Helper()
	l, err := index.OpenLexical(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return rerank.Reader{Analyze: l.Terms}
}

// verifies each signal: coverage counts the question's words held, proximity the
// question's adjacent word pairs found in order within the window (through stemming), and
// the heading the words in the section path.
func TestScoreSignals(t *testing.T) {
	r := reader(t)
	// Terms: scan, order, chosen; pairs scan→order and order→chosen.
	got := r.Score("how are scan orders chosen", []rerank.Passage{
		{Text: "Nothing related at all."},
		{Text: "The scan runs first; much later, after many other steps, someone has chosen an order."},
		{Text: "The encoder picked the scan order carefully."},
		{Text: "The encoder picked the scan order carefully.", Section: "Scan order"},
	})
	want := []float64{
		0,
		1,                                  // every term, no pair near in order
		2.0/3 + rerank.WeightProximity*0.5, // two terms, one pair of two
		2.0/3 + rerank.WeightProximity*0.5 + rerank.WeightHeading*2.0/3,
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("passage %d scored %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
}

// verifies the window: a question pair counts when its second word follows the first by
// at most Window analysed terms, and not when reversed.
func TestProximityWindow(t *testing.T) {
	r := reader(t)
	q := "quantization table"
	s := r.Score(q, []rerank.Passage{
		{Text: "quantization table"},
		{Text: "quantization of the luminance chroma table"}, // 3 terms apart: luminance, chroma, table
		{Text: "quantization values luminance chroma sample table"},
		{Text: "table of quantization"},
	})
	full := 1 + rerank.WeightProximity
	if math.Abs(s[0]-full) > 1e-9 || math.Abs(s[1]-full) > 1e-9 {
		t.Fatalf("near pairs: %v, %v; want %v", s[0], s[1], full)
	}
	if math.Abs(s[2]-1) > 1e-9 || math.Abs(s[3]-1) > 1e-9 {
		t.Fatalf("far or reversed pairs: %v, %v; want 1 (coverage only)", s[2], s[3])
	}
}

// verifies Order: a passage the reader finds much better moves up past passages it reads
// as worse, equal readings keep retrieval's order, and a question with nothing to read
// changes nothing.
func TestOrder(t *testing.T) {
	r := reader(t)
	q := "arithmetic right shift in lossless prediction"
	ps := []rerank.Passage{
		{Text: "Lossless coding uses a predictor."},
		{Text: "The shift register holds bits."},
		{Text: "Prediction is arithmetic."},
		{Text: "In lossless mode the prediction divides by two with an arithmetic right shift."},
	}
	got := r.Order(q, ps)
	if got[0] != 3 && got[1] != 3 {
		t.Fatalf("the passage stating the phrase stayed at %d: %v", slices.Index(got, 3)+1, got)
	}
	same := []rerank.Passage{{Text: "lossless shift"}, {Text: "lossless shift"}, {Text: "lossless shift"}}
	if got := r.Order(q, same); !slices.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("equal passages reordered: %v", got)
	}
	if got := r.Order("the of and", ps); !slices.Equal(got, []int{0, 1, 2, 3}) {
		t.Fatalf("a stop-word question reordered: %v", got)
	}
}

// verifies that term weights count: holding the rare word beats holding the common one.
func TestWeights(t *testing.T) {
	r := reader(t)
	r.Weight = func(term string) float64 {
		if term == "huffman" {
			return 5
		}
		return 1
	}
	s := r.Score("huffman table", []rerank.Passage{{Text: "a table"}, {Text: "huffman codes"}})
	if !(s[1] > s[0]) || math.Abs(s[1]-5.0/6) > 1e-9 {
		t.Fatalf("weighted coverage: %v, want [1/6, 5/6]", s)
	}
}
