package retrieve

import "testing"

// verifies weighted fusion keeps margins: a passage far ahead on words is not overtaken by
// one merely second on both sides, a vector-only passage needs a cosine above the
// threshold, and a cosine at the threshold adds nothing.
func TestFuseWeighted(t *testing.T) {
	lex := []Ranked{{Seq: 1, Score: 20}, {Seq: 2, Score: 6}, {Seq: 5, Score: 5}}
	vec := []Ranked{{Seq: 3, Score: 0.80}, {Seq: 2, Score: 0.70}, {Seq: 5, Score: 0.50}, {Seq: 4, Score: 0.45}}
	hits := FuseWeighted(lex, vec, 0.5, 0.5)
	var order []int64
	for _, h := range hits {
		order = append(order, h.Chunk.Seq)
	}
	// 1: 0.5·1 = 0.5; 3: 0.5·1 = 0.5; 2: 0.5·0.3 + 0.5·(0.2/0.3) = 0.483; 5: 0.125 + 0.
	want := []int64{1, 3, 2, 5}
	if len(order) != len(want) {
		t.Fatalf("order %v, want %v (4 is a vector-only passage under the threshold)", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order %v, want %v", order, want)
		}
	}
	if hits[3].MatchType != MatchFullText || hits[3].VectorRank != 3 {
		t.Errorf("a cosine at the threshold: %s vector rank %d, want full_text keeping its rank 3", hits[3].MatchType, hits[3].VectorRank)
	}
	if hits[2].MatchType != MatchHybrid || hits[1].MatchType != MatchVector {
		t.Errorf("match types %s %s, want hybrid and vector", hits[2].MatchType, hits[1].MatchType)
	}
}

// verifies the question's kind sets the vector side's weight.
func TestVectorWeight(t *testing.T) {
	for q, want := range map[string]float64{
		"What does context.WithCancel return?":         WeightWords,
		"Which flag does T.38 use?":                    WeightWords,
		`Where is "quiet desperation" said?`:           WeightWords,
		"Why did the author go to live in the woods?":  WeightMeaning,
		"What did Thoreau think about his neighbours?": WeightMeaning,
	} {
		if got := VectorWeight(q, nil); got != want {
			t.Errorf("VectorWeight(%q) = %v, want %v", q, got, want)
		}
	}
	// A plain question whose words put one passage far ahead leans on the words.
	plain := "Which ice did the Southern customers prefer?"
	for _, c := range []struct {
		lex  []Ranked
		want float64
	}{
		{[]Ranked{{Seq: 1, Score: 6.4}, {Seq: 2, Score: 1.9}}, WeightWords},   // 3.4×
		{[]Ranked{{Seq: 1, Score: 6.4}, {Seq: 2, Score: 3.2}}, WeightMeaning}, // 2×
		{[]Ranked{{Seq: 1, Score: 6.4}}, WeightMeaning},                       // nothing to lead
		{flatList(10, 0.75), WeightFlat},                                      // ten alike
		{flatList(10, 0.6), WeightMeaning},                                    // the words still rank
		{flatList(9, 0.9), WeightMeaning},                                     // too few to call flat
	} {
		if got := VectorWeight(plain, c.lex); got != c.want {
			t.Errorf("lexical %v: weight %v, want %v", c.lex, got, c.want)
		}
	}
}

// flatList returns n word matches whose scores fall evenly from 10 to last×10.
func flatList(n int, last float64) []Ranked {
	out := make([]Ranked, n)
	for i := range out {
		out[i] = Ranked{Seq: int64(i + 1), Score: 10 * (1 - (1-last)*float64(i)/float64(max(n-1, 1)))}
	}
	return out
}
