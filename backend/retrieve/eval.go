package retrieve

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Question is one line of a question-answering evaluation file (JSON lines, such as the
// 60-question dev set over the pdfcpu corpus kept beside the repository): the document
// (a file name) and physical 1-based pages (pdftotext's -f N) that answer it, and terms
// that appear literally (case-insensitively) on those pages. An unanswerable question
// has no document, pages or terms, and kind "unanswerable".
type Question struct {
	ID          string       `json:"id"`
	Doc         string       `json:"doc"`
	Pages       []int        `json:"pages"`
	Question    string       `json:"question"`
	AnswerTerms []string     `json:"answer_terms"`
	Kind        QuestionKind `json:"kind"`
}

// QuestionKind is what an evaluation question tests.
type QuestionKind string

// Kinds of evaluation question, as the dev set spells them.
const (
	ExactTerm    QuestionKind = "exact-term"   // a term that appears literally on the pages
	Factual      QuestionKind = "factual"      // a fact stated on one page
	Paraphrase   QuestionKind = "paraphrase"   // asked in other words than the page's
	MultiHop     QuestionKind = "multi-hop"    // answered by more than one page together
	Unanswerable QuestionKind = "unanswerable" // not answered anywhere in the corpus
)

// Answerable reports whether the question has an answer in the corpus.
func (q Question) Answerable() bool {
	return q.Kind != Unanswerable && q.Doc != "" && len(q.AnswerTerms) > 0
}

// ReadQuestions reads an evaluation file: one JSON object per line, blank lines skipped.
func ReadQuestions(r io.Reader) ([]Question, error) {
	var qs []Question
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var q Question
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if strings.TrimSpace(q.Question) == "" {
			return nil, fmt.Errorf("line %d: no question", n)
		}
		qs = append(qs, q)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return qs, nil
}

// EvalHit is what scoring needs of one ranked hit.
type EvalHit struct {
	Doc  string // the document's file name or path (only the base name is compared)
	Page int    // the physical 1-based page the passage starts on
	Text string
}

// evalDepth is how many hits scoring looks at (hit@10, MRR@10).
const evalDepth = 10

// normTerm lowercases s and collapses runs of white space to one space.
func normTerm(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// FirstCorrect returns the 1-based rank of the first hit that answers q, or 0 when none of
// the first 10 does. A hit counts when it is from the right document (compared by file
// name), starts on a listed page or the page just before one, and contains every answer
// term (case-insensitive, white space normalised). For a multi-hop question the terms may
// be spread over the hits up to that rank that satisfy the document and page rules.
func FirstCorrect(q Question, hits []EvalHit) int { return FirstCorrectWithin(q, hits, evalDepth) }

// FirstCorrectWithin is FirstCorrect looking at the first depth hits (a diagnosis reads
// where an answer ranks beyond the scored ten).
func FirstCorrectWithin(q Question, hits []EvalHit, depth int) int {
	if !q.Answerable() {
		return 0
	}
	pages := map[int]bool{}
	for _, p := range q.Pages {
		pages[p], pages[p-1] = true, true
	}
	var terms []string
	for _, t := range q.AnswerTerms {
		if t = normTerm(t); t != "" {
			terms = append(terms, t)
		}
	}
	doc := filepath.Base(q.Doc)
	multi := q.Kind == MultiHop
	seen := ""
	for r, h := range hits {
		if r >= depth {
			break
		}
		if filepath.Base(h.Doc) != doc || !pages[h.Page] {
			continue
		}
		text := normTerm(h.Text)
		if multi {
			seen += "\n" + text
			text = seen
		}
		all := true
		for _, t := range terms {
			if !strings.Contains(text, t) {
				all = false
				break
			}
		}
		if all {
			return r + 1
		}
	}
	return 0
}

// EvalResult is the summary printed by `carrel eval --json`; field order is the output's.
type EvalResult struct {
	Mode                string  `json:"mode"`
	N                   int     `json:"n"` // answerable questions
	Hit1                float64 `json:"hit@1"`
	Hit5                float64 `json:"hit@5"`
	Hit10               float64 `json:"hit@10"`
	MRR10               float64 `json:"mrr@10"`
	UnanswerableCorrect float64 `json:"unanswerable_correct"` // share that returned no hit
	UnanswerableN       int     `json:"unanswerable_n"`
}

// Scorer accumulates per-question outcomes into an [EvalResult].
type Scorer struct {
	res               EvalResult
	unansweredRight   int
	hit1, hit5, h10   int
	reciprocalRankSum float64
}

// Add records one question's hits and returns the rank of its first counting hit (0 for
// none, and always 0 for an unanswerable question).
func (s *Scorer) Add(q Question, hits []EvalHit) int {
	if !q.Answerable() {
		s.res.UnanswerableN++
		if len(hits) == 0 {
			s.unansweredRight++
		}
		return 0
	}
	s.res.N++
	r := FirstCorrect(q, hits)
	if r > 0 {
		s.reciprocalRankSum += 1 / float64(r)
		if r <= 1 {
			s.hit1++
		}
		if r <= 5 {
			s.hit5++
		}
		s.h10++
	}
	return r
}

// Result returns the summary so far for mode.
func (s *Scorer) Result(mode string) EvalResult {
	res := s.res
	res.Mode = mode
	if res.N > 0 {
		n := float64(res.N)
		res.Hit1, res.Hit5, res.Hit10 = round3(float64(s.hit1)/n), round3(float64(s.hit5)/n), round3(float64(s.h10)/n)
		res.MRR10 = round3(s.reciprocalRankSum / n)
	}
	if res.UnanswerableN > 0 {
		res.UnanswerableCorrect = round3(float64(s.unansweredRight) / float64(res.UnanswerableN))
	}
	return res
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
