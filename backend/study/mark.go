package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
)

// MarkBy is the grader that found a short answer right (Marking.By).
type MarkBy string

// Graders of a short answer.
const (
	ByWords   MarkBy = "words"   // it gives the card's answer's content words
	ByMeaning MarkBy = "meaning" // its embedding is close to the card's answer's, closer than to any other answer of the deck
	ByModel   MarkBy = "model"   // the chat model, asked as a judge, said so
	ByNone    MarkBy = ""        // wrong by every grader asked
)

// MarkOptions are the graders beyond the words: each is optional.
type MarkOptions struct {
	// Embed embeds texts with the library's embedding model (nil: no embedder).
	Embed func(ctx context.Context, texts []string) ([][]float32, error)
	// Others are other answers of the deck: a given answer counts as meaning the card's
	// answer only when it is closer to it than to any of them.
	Others []string
	// Judge asks the chat model whether the answer is right (nil: no judge).
	Judge func(ctx context.Context, c library.Card, given string) (Verdict, error)
}

// Verdict is a judge model's decision on a short answer.
type Verdict struct {
	Correct bool   `json:"correct"`
	Reason  string `json:"reason"`
}

// minMeaning is the least cosine similarity between a given answer and the card's answer
// for the meaning to count, and meaningMargin how much closer to it than to the deck's
// other answers it must be. Measured with all-MiniLM-L6-v2 on TestMarkMeaningWithMiniLM's
// answers: rewordings of the right answer 0.66 to 0.80 (their words gave 0.17 to 0.40),
// wrong answers 0.02 to 0.47, each of them closer to another card's answer than to its
// own.
const (
	minMeaning    = 0.5
	meaningMargin = 0.05
)

// Mark grades a short answer to a card: right when it gives the card's answer's content
// words (MarkAnswer), or, failing that, when it means the same (opt.Embed: closer to the
// card's answer than minMeaning and than to any of opt.Others); when opt.Judge is given,
// the model's verdict decides and its reason is kept. A grader that fails (the embedder
// or the model not reachable) is left out and its error returned beside the marking
// the others gave.
func Mark(ctx context.Context, c library.Card, given string, opt MarkOptions) (Marking, error) {
	m := MarkAnswer(c, given)
	m.Similarity = -1
	if m.Correct {
		m.By = ByWords
	}
	if strings.TrimSpace(given) == "" {
		return m, nil
	}
	var errs []error
	if opt.Embed != nil {
		texts := append([]string{collapse(given), collapse(c.Back)}, opt.Others...)
		vecs, err := opt.Embed(ctx, texts)
		if err != nil || len(vecs) != len(texts) {
			errs = append(errs, fmt.Errorf("mark by meaning: %w", errOr(err, "the embedder returned too few vectors")))
		} else {
			m.Similarity = llm.Cosine(vecs[0], vecs[1])
			closest := -1.0
			for _, v := range vecs[2:] {
				closest = math.Max(closest, llm.Cosine(vecs[0], v))
			}
			m.Closest = closest
			if !m.Correct && m.Similarity >= minMeaning && m.Similarity >= closest+meaningMargin {
				m.Correct, m.By = true, ByMeaning
			}
		}
	}
	if opt.Judge != nil {
		v, err := opt.Judge(ctx, c, given)
		if err != nil {
			errs = append(errs, err)
			m.JudgeError = err.Error()
		} else {
			m.Judge = &v
			m.Correct, m.By = v.Correct, ByModel
		}
	}
	return m, errors.Join(errs...)
}

func errOr(err error, msg string) error {
	if err != nil {
		return err
	}
	return errors.New(msg)
}

// judgeSchema is the verdict a judge model must give (Ollama's structured outputs).
const judgeSchema = `{"type":"object","properties":{"correct":{"type":"boolean"},"reason":{"type":"string","maxLength":160}},"required":["correct","reason"]}`

const judgePrompt = `You mark a student's short answer to a flashcard against the passage it comes from.
The answer is right when it means the same as the expected answer, in any words; spelling
does not matter. It is wrong when it says something else or too little. Reply in JSON: correct
(true or false) and reason (one short sentence).`

// ModelJudge is a Judge asking a chat model through structured outputs, at temperature
// 0, with the card's question, expected answer and passage.
func ModelJudge(chat llm.Provider, model string) func(ctx context.Context, c library.Card, given string) (Verdict, error) {
	return func(ctx context.Context, c library.Card, given string) (Verdict, error) {
		user := fmt.Sprintf("Passage: %s\n\nQuestion: %s\nExpected answer: %s\nStudent's answer: %s",
			collapse(c.Context), collapse(c.Front), collapse(c.Back), collapse(given))
		var reply string
		// Greedy sampling can loop on a token until the reply is cut (as for cards): a
		// reply that is not a verdict is asked for once more, sampled.
		for _, temp := range []float64{0, retryTemperature} {
			var b strings.Builder
			_, err := chat.Chat(ctx, llm.ChatRequest{
				Model:       model,
				Messages:    []llm.Message{{Role: llm.RoleSystem, Content: judgePrompt}, {Role: llm.RoleUser, Content: user}},
				Temperature: &temp,
				MaxTokens:   400,
				NumCtx:      4096,
				Format:      json.RawMessage(judgeSchema),
			}, func(d llm.Delta) error {
				b.WriteString(d.Text)
				return nil
			})
			if err != nil && !errors.Is(err, llm.ErrTruncated) {
				return Verdict{}, fmt.Errorf("mark with the model: %w", err)
			}
			reply = b.String()
			if v, ok := ParseVerdict(reply); ok {
				return v, nil
			}
		}
		return Verdict{}, fmt.Errorf("mark with the model: the reply is not a verdict: %.80q", reply)
	}
}

// ParseVerdict reads a judge's reply: {"correct": bool, "reason": "..."}.
func ParseVerdict(reply string) (Verdict, bool) {
	var v struct {
		Correct *bool  `json:"correct"` // a pointer: a reply without it is not a verdict
		Reason  string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(reply)), &v); err != nil || v.Correct == nil {
		return Verdict{}, false
	}
	return Verdict{Correct: *v.Correct, Reason: collapse(v.Reason)}, true
}
