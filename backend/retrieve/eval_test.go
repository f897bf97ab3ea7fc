package retrieve

import (
	"strings"
	"testing"
)

// verifies the scoring rules: document by file name, the listed page or the one before,
// every term case- and space-insensitively, multi-hop terms spread over page-matching hits,
// and only the first 10 hits looked at.
func TestFirstCorrect(t *testing.T) {
	q := Question{Doc: "Walden.pdf", Pages: []int{10}, AnswerTerms: []string{"Cambridge  Ice", "blue"}, Kind: "exact-term"}
	good := EvalHit{Doc: "/x/y/Walden.pdf", Page: 9, Text: "the cambridge\nice is BLUE"}
	cases := []struct {
		name string
		q    Question
		hits []EvalHit
		want int
	}{
		{"first", q, []EvalHit{good}, 1},
		{"wrong doc", q, []EvalHit{{Doc: "Other.pdf", Page: 10, Text: good.Text}, good}, 2},
		{"page after", q, []EvalHit{{Doc: "Walden.pdf", Page: 11, Text: good.Text}}, 0},
		{"page two before", q, []EvalHit{{Doc: "Walden.pdf", Page: 8, Text: good.Text}}, 0},
		{"missing term", q, []EvalHit{{Doc: "Walden.pdf", Page: 10, Text: "cambridge ice"}}, 0},
		{"beyond 10", q, append(make([]EvalHit, 10), good), 0},
		{"multi-hop spread", Question{Doc: "W.pdf", Pages: []int{5, 6}, AnswerTerms: []string{"a", "b"}, Kind: "multi-hop"},
			[]EvalHit{{Doc: "W.pdf", Page: 6, Text: "x a"}, {Doc: "Z.pdf", Page: 6, Text: "b"}, {Doc: "W.pdf", Page: 4, Text: "b"}}, 3},
		{"single page not spread", Question{Doc: "W.pdf", Pages: []int{5}, AnswerTerms: []string{"a", "b"}, Kind: "factual"},
			[]EvalHit{{Doc: "W.pdf", Page: 5, Text: "a"}, {Doc: "W.pdf", Page: 5, Text: "b"}}, 0},
		{"unanswerable", Question{Kind: "unanswerable"}, []EvalHit{good}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := FirstCorrect(c.q, c.hits); got != c.want {
				t.Errorf("rank %d, want %d", got, c.want)
			}
		})
	}
}

// verifies the summary: shares over answerable questions, MRR, and unanswerable questions
// counted right only when nothing came back.
func TestScorer(t *testing.T) {
	in := `{"id":"a","doc":"D.pdf","pages":[1],"question":"q1","answer_terms":["x"],"kind":"factual"}

{"id":"b","doc":"D.pdf","pages":[1],"question":"q2","answer_terms":["x"],"kind":"factual"}
{"id":"c","doc":"","pages":[],"question":"q3","answer_terms":[],"kind":"unanswerable"}
{"id":"d","doc":"","pages":[],"question":"q4","answer_terms":[],"kind":"unanswerable"}`
	qs, err := ReadQuestions(strings.NewReader(in))
	if err != nil || len(qs) != 4 {
		t.Fatalf("read %d questions, %v", len(qs), err)
	}
	hit := EvalHit{Doc: "D.pdf", Page: 1, Text: "x"}
	miss := EvalHit{Doc: "D.pdf", Page: 1, Text: "y"}
	var s Scorer
	s.Add(qs[0], []EvalHit{hit})
	s.Add(qs[1], []EvalHit{miss, miss, hit})
	s.Add(qs[2], nil)
	s.Add(qs[3], []EvalHit{miss})
	got := s.Result("lexical")
	want := EvalResult{Mode: "lexical", N: 2, Hit1: 0.5, Hit5: 1, Hit10: 1, MRR10: 0.667, UnanswerableCorrect: 0.5, UnanswerableN: 2}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if _, err := ReadQuestions(strings.NewReader("{not json}\n")); err == nil {
		t.Error("a bad line was accepted")
	}
}
