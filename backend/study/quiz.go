package study

import (
	"math/rand/v2"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/carrel-app/carrel/backend/library"
)

// Question is one quiz question made from a card: multiple choice when the deck has
// enough answers of the same sort to draw distractors from, else a short answer.
type Question struct {
	CardID  int64    `json:"card_id"`
	Prompt  string   `json:"prompt"`
	Choices []string `json:"choices,omitempty"` // empty: a short answer, graded against the card
	Answer  int      `json:"answer"`            // index of the right choice (-1 for a short answer)
	// Card is the card asked about: its answer, span and source, shown after answering.
	Card library.Card `json:"card"`
}

// answerSort groups cards whose answers can stand in for each other as distractors: a
// term (a cloze's word, a name) or an explanation (a definition, a glossary entry).
func answerSort(c library.Card) string {
	switch c.Kind {
	case KindCloze, KindHeading, KindEmphasis:
		return "term"
	case KindDefinition:
		if len(strings.Fields(c.Back)) <= maxTermWords && !strings.HasPrefix(c.Front, "What is ") && !strings.HasPrefix(c.Front, "What are ") {
			return "term" // "… is called X"
		}
	}
	return "explanation"
}

// MakeQuiz makes up to n questions from a deck's cards (suspended and stale ones left
// out), chosen and shuffled by seed so that a quiz can be made again. A question is
// multiple choice with three distractors drawn from the same material: answers of other
// cards of the same sort, the closest in length first, none equal to the right answer
// (case and spacing ignored). With too few of them it is a short answer.
func MakeQuiz(cards []library.Card, n int, seed uint64) []Question {
	var pool []library.Card
	for _, c := range cards {
		if !c.Suspended && !c.Stale {
			pool = append(pool, c)
		}
	}
	r := rand.New(rand.NewPCG(seed, 17))
	r.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	bySort := map[string][]library.Card{}
	for _, c := range pool {
		bySort[answerSort(c)] = append(bySort[answerSort(c)], c)
	}
	var out []Question
	for _, c := range pool[:min(n, len(pool))] {
		q := Question{CardID: c.ID, Prompt: collapse(c.Front), Answer: -1, Card: c}
		right := collapse(c.Back)
		seen := map[string]bool{strings.ToLower(right): true}
		var others []string
		for _, o := range bySort[answerSort(c)] {
			b := collapse(o.Back)
			if k := strings.ToLower(b); !seen[k] && !strings.Contains(strings.ToLower(c.Front), k) {
				seen[k] = true
				others = append(others, b)
			}
		}
		if len(others) >= 3 {
			// Distractors of about the right answer's length are the hardest to rule out.
			want := utf8.RuneCountInString(right)
			sort.SliceStable(others, func(i, j int) bool {
				return abs(utf8.RuneCountInString(others[i])-want) < abs(utf8.RuneCountInString(others[j])-want)
			})
			choices := append([]string{right}, others[:3]...)
			r.Shuffle(len(choices), func(i, j int) { choices[i], choices[j] = choices[j], choices[i] })
			for i, ch := range choices {
				if ch == right {
					q.Answer = i
				}
			}
			q.Choices = choices
		}
		out = append(out, q)
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Marking is how a short answer was graded.
type Marking struct {
	Correct bool    `json:"correct"`
	Score   float64 `json:"score"` // share of the answer's content words given (0..1)
	// By says which grader decided a right answer: words, meaning or model (ByNone when
	// wrong by every grader asked).
	By MarkBy `json:"by"`
	// Similarity is the cosine between the embeddings of the given and the card's answer
	// (-1: not measured, no embedder), Closest the highest with the deck's other answers.
	Similarity float64 `json:"similarity"`
	Closest    float64 `json:"closest"`
	// Judge is the chat model's verdict, when it was asked; JudgeError says why there is
	// none when it was asked and could not judge (the other graders' marking stands).
	Judge      *Verdict `json:"judge,omitempty"`
	JudgeError string   `json:"judge_error,omitempty"`
}

// minAnswerScore is the share of the right answer's content words a short answer must
// give to count as right.
const minAnswerScore = 0.6

// MarkAnswer grades a short answer against a card: by the share of the card's answer's
// content words (plurals folded) it gives; a one-word answer may be misspelt by a letter.
func MarkAnswer(c library.Card, given string) Marking {
	want := contentTerms(c.Back)
	if len(want) == 0 {
		want = []string{strings.ToLower(collapse(c.Back))}
	}
	have := termSet(given)
	n := 0
	for _, t := range want {
		if have[t] {
			n++
			continue
		}
		for h := range have {
			if len(t) >= 5 && editDistanceAtMost1(t, h) {
				n++
				break
			}
		}
	}
	score := float64(n) / float64(len(want))
	return Marking{Correct: score >= minAnswerScore, Score: score}
}

// editDistanceAtMost1 reports whether a and b differ by at most one letter added,
// dropped or changed.
func editDistanceAtMost1(a, b string) bool {
	if a == b {
		return true
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	if len(ra)-len(rb) > 1 {
		return false
	}
	i, j, diff := 0, 0, 0
	for i < len(ra) && j < len(rb) {
		if ra[i] == rb[j] {
			i++
			j++
			continue
		}
		diff++
		if diff > 1 {
			return false
		}
		if len(ra) == len(rb) {
			j++
		}
		i++
	}
	return diff+(len(ra)-i) <= 1
}
