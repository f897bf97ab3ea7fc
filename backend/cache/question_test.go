package cache

import (
	"testing"
)

// verifies the word check on the calibration pairs: no pair of different questions
// agrees, and most paraphrases do.
func TestAgreeOnPairs(t *testing.T) {
	pairs, err := ReadPairs("testdata/pairs.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	same, agreed := 0, 0
	for _, p := range pairs {
		got := Agree(p.A, p.B)
		if !p.Same && got {
			t.Errorf("different questions agree (%s):\n  %q → %s\n  %q → %s", p.Note, p.A, Parse(p.A).Key(), p.B, Parse(p.B).Key())
		}
		if p.Same {
			same++
			if got {
				agreed++
			} else {
				t.Logf("paraphrase missed: %q → %s | %q → %s", p.A, Parse(p.A).Key(), p.B, Parse(p.B).Key())
			}
		}
	}
	t.Logf("paraphrases agreeing: %d/%d", agreed, same)
	if agreed*10 < same*8 {
		t.Errorf("only %d of %d paraphrases agree; want at least 80%%", agreed, same)
	}
}

// verifies the rules one by one.
func TestAgree(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"What is the capital of France?", "what's the capital of france", true},
		{"capital of France", "capital of Spain", false},
		{"Why?", "Why?", false}, // nothing to match on: never cached
		{"Convert Celsius to Fahrenheit", "Convert Fahrenheit to Celsius", false},
		{"How do I convert Celsius to Fahrenheit?", "how to convert celsius to fahrenheit", true},
		{"Is it safe?", "Is it not safe?", false},
		{"When did the war end?", "Why did the war end?", false},
		{"How many moons does Mars have?", "How do moons of Mars form?", false},
		{"What does RFC 2119 say about MUST?", "What does RFC 2116 say about MUST?", false},
	} {
		if got := Agree(c.a, c.b); got != c.want {
			t.Errorf("Agree(%q, %q) = %v, want %v (%s | %s)", c.a, c.b, got, c.want, Parse(c.a).Key(), Parse(c.b).Key())
		}
	}
}

// verifies the threshold choice and the rates a calibration reports.
func TestCalibrate(t *testing.T) {
	pairs := []Pair{
		{A: "What is a goroutine?", B: "Explain goroutines.", Same: true},
		{A: "What is a slice?", B: "What is an array?", Same: false},
		{A: "What is a map?", B: "What's a map", Same: true},
	}
	c := Calibrate("m", pairs, []float64{0.97, 0.90, 0.88})
	if c.ThresholdAlone < 0.909 || c.ThresholdAlone > 0.911 {
		t.Errorf("threshold alone %v, want just above the highest different pair (0.91)", c.ThresholdAlone)
	}
	// The word check rejects the different pair, so the embedding need not: the floor.
	if c.Threshold != MinThreshold {
		t.Errorf("threshold %v, want the floor %v", c.Threshold, MinThreshold)
	}
	if c.EmbeddingRecall != 1 || c.EmbeddingFalse != 1 || c.WordsRecall != 1 || c.HitRecall != 1 || c.HitFalse != 0 {
		t.Errorf("rates: %+v", c)
	}
	// A different pair the words let through raises the threshold above it.
	pairs = append(pairs, Pair{A: "Does the dog bite the man?", B: "Does the man bite the dog?", Same: false})
	c = Calibrate("m", pairs, []float64{0.97, 0.90, 0.88, 0.95})
	if c.Threshold < 0.959 || c.Threshold > 0.961 || c.HitFalse != 0 || c.HitRecall != 0.5 {
		t.Errorf("with a word-order pair: %+v", c)
	}
	if c.Same.N != 2 || c.Same.Min != 0.88 || c.Different.Max != 0.95 || c.Different.N != 2 {
		t.Errorf("distributions: %+v %+v", c.Same, c.Different)
	}
}

// BenchmarkAgree measures the word check a cache hit needs (two questions parsed).
func BenchmarkAgree(b *testing.B) {
	for b.Loop() {
		Agree("What is the difference between a slice and an array in Go?", "What's the difference between a slice and an array in Go")
	}
}
