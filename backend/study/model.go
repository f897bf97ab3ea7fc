package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/carrel-app/carrel/backend/llm"
)

// cardSchema is the JSON schema a model's cards must follow (Ollama's structured
// outputs constrain sampling to it): for each card a question, a short answer and the
// sentence of the passage it comes from, copied. The lengths bound the reply, so that a
// model that rambles inside a string is cut by the grammar, not by the token limit
// (which would leave JSON unfinished).
const cardSchema = `{"type":"object","properties":{"cards":{"type":"array","minItems":1,"maxItems":%d,"items":{"type":"object",` +
	`"properties":{"question":{"type":"string","minLength":1,"maxLength":200},"answer":{"type":"string","minLength":1,"maxLength":100},` +
	`"quote":{"type":"string","maxLength":300}},"required":["question","answer","quote"]}}},"required":["cards"]}`

const cardPrompt = `You write flashcards for a student from a passage of their documents.
Write up to %d flashcards about the passage's key facts, definitions and terms.
Each card has a question, a short answer (a few words, taken from the passage), and the
quote: the one sentence of the passage the answer comes from, copied exactly.
Use only what the passage says. Answer in JSON.`

// ModelCard is a card as a model proposes it.
type ModelCard struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Quote    string `json:"quote"`
}

// ModelResult counts what models proposed and what the check in code kept.
type ModelResult struct {
	Passages int                `json:"passages"`
	Proposed int                `json:"proposed"`
	Kept     int                `json:"kept"`
	Dropped  int                `json:"dropped"`
	Reasons  map[DropReason]int `json:"reasons"` // dropped cards by reason
	Failed   int                `json:"failed"`  // passages whose reply was not the JSON asked for
}

// DropReason is why a model's card is dropped.
type DropReason string

// Reasons a model's card is dropped.
const (
	DropEmpty       DropReason = "empty"       // no question or no answer
	DropLong        DropReason = "long"        // the answer is not short
	DropUnsupported DropReason = "unsupported" // no sentence of the passage holds the answer's words
	DropTrivial     DropReason = "trivial"     // the question gives the answer away
	DropDuplicate   DropReason = "duplicate"
)

// minSupport is the share of an answer's content words a sentence of the passage must
// hold for the passage to support it.
const minSupport = 0.75

// ModelOptions say which model makes cards and how.
type ModelOptions struct {
	Model      string
	PerPassage int // cards asked for per passage (default 3)
	// Temperature of sampling: 0 (the default) for the same cards each time.
	Temperature float64
	// Progress, when not nil, is told after each passage how many are done.
	Progress func(Progress)
}

// Progress counts the passages asked of a model so far, of Total, and the cards kept.
type Progress struct {
	Done  int `json:"done"`
	Total int `json:"total"`
	Kept  int `json:"kept"`
}

// ModelCards asks a chat model, through structured outputs, for cards from each passage,
// and keeps the cards the passage supports: an answer whose content words are (nearly)
// all in one of its sentences, which becomes the card's span. Dropped cards are counted
// by reason. A passage whose reply is not the JSON asked for, or is cut short (Ollama
// ends a structured reply without a last message when a token repeats 30 times), is
// asked once more at temperature 0.7 and then counts as failed; any other model or
// connection error stops and is returned, as does ctx ending, with the cards kept so far.
func ModelCards(ctx context.Context, chat llm.Provider, opt ModelOptions, passages []Passage) ([]Draft, ModelResult, error) {
	res := ModelResult{Reasons: map[DropReason]int{}}
	seen := map[string]bool{}
	var out []Draft
	perPassage := opt.PerPassage
	if perPassage <= 0 {
		perPassage = 3
	}
	temp := opt.Temperature
	total := 0
	for _, p := range passages {
		if !navigation(p.Text) {
			total++
		}
	}
	for i, p := range passages {
		if navigation(p.Text) {
			continue
		}
		if res.Passages > 0 && opt.Progress != nil {
			opt.Progress(Progress{Done: res.Passages, Total: total, Kept: res.Kept})
		}
		res.Passages++
		proposed, ok, err := askCards(ctx, chat, opt.Model, p.Text, perPassage, temp)
		if err == nil && !ok && temp == 0 {
			// Greedy sampling can loop on a token until the reply is cut: once more, sampled.
			proposed, ok, err = askCards(ctx, chat, opt.Model, p.Text, perPassage, retryTemperature)
		}
		if err != nil {
			return out, res, err
		}
		if !ok {
			res.Failed++
			continue
		}
		drafts, reasons := CheckModelCards(p, proposed)
		res.Proposed += len(proposed)
		for r, n := range reasons {
			res.Reasons[r] += n
			res.Dropped += n
		}
		for _, d := range drafts {
			if k := Dedup(d.Front, d.Back); seen[k] {
				res.Reasons[DropDuplicate]++
				res.Dropped++
				continue
			} else {
				seen[k] = true
			}
			d.Passage = i
			out = append(out, d)
			res.Kept++
		}
	}
	return out, res, nil
}

// retryTemperature samples the second request for a passage whose first reply was
// unusable.
const retryTemperature = 0.7

// askCards asks for one passage's cards; ok is false when the reply is not the JSON asked
// for or was cut short.
func askCards(ctx context.Context, chat llm.Provider, model, text string, n int, temp float64) ([]ModelCard, bool, error) {
	var b strings.Builder
	_, err := chat.Chat(ctx, llm.ChatRequest{
		Model: model,
		Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: fmt.Sprintf(cardPrompt, n)},
			{Role: llm.RoleUser, Content: text},
		},
		Temperature: &temp,
		MaxTokens:   700*n + 50, // the schema's longest reply, a token a byte
		NumCtx:      8192,
		Format:      json.RawMessage(fmt.Sprintf(cardSchema, n)),
	}, func(d llm.Delta) error {
		b.WriteString(d.Text)
		return nil
	})
	if errors.Is(err, llm.ErrTruncated) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("cards from a model: %w", err)
	}
	cards, ok := ParseModelCards(b.String())
	return cards, ok, nil
}

// ParseModelCards reads a model's reply: {"cards": [...]}, at most 20 cards.
func ParseModelCards(reply string) ([]ModelCard, bool) {
	var v struct {
		Cards []ModelCard `json:"cards"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(reply)), &v); err != nil || v.Cards == nil {
		return nil, false
	}
	return v.Cards[:min(len(v.Cards), 20)], true
}

// CheckModelCards keeps the proposed cards passage p supports, each with the sentence
// that supports it as its span, and counts the others by reason.
func CheckModelCards(p Passage, proposed []ModelCard) ([]Draft, map[DropReason]int) {
	reasons := map[DropReason]int{}
	sents := sentences(p.Text)
	var out []Draft
	for _, c := range proposed {
		q, a := collapse(c.Question), collapse(c.Answer)
		if q == "" || a == "" {
			reasons[DropEmpty]++
			continue
		}
		if len(strings.Fields(a)) > 25 {
			reasons[DropLong]++
			continue
		}
		terms := contentTerms(a)
		if len(terms) == 0 {
			reasons[DropUnsupported]++
			continue
		}
		asked := termSet(q)
		given := 0
		for _, t := range terms {
			if asked[t] {
				given++
			}
		}
		if given == len(terms) {
			reasons[DropTrivial]++
			continue
		}
		best, bestShare := sentence{}, 0.0
		for _, s := range sents {
			if crosses(p.Breaks, s) {
				continue // a page's furniture may sit inside it
			}
			have := termSet(p.Text[s.s:s.e])
			n := 0
			for _, t := range terms {
				if have[t] {
					n++
				}
			}
			share := float64(n) / float64(len(terms))
			// The sentence the model quoted wins a tie.
			if share > bestShare || share == bestShare && share > 0 && c.Quote != "" && strings.Contains(collapse(p.Text[s.s:s.e]), collapse(c.Quote)) {
				best, bestShare = s, share
			}
		}
		if bestShare < minSupport {
			reasons[DropUnsupported]++
			continue
		}
		out = append(out, Draft{Kind: KindQA, Front: q, Back: a, SpanStart: best.s, SpanEnd: best.e, Context: p.Text[best.s:best.e]})
	}
	return out, reasons
}

// contentTerms are the words of s that carry its meaning: lower-cased, stop words out,
// plurals folded ("cells" is "cell"). Numbers count: "1845" is an answer.
func contentTerms(s string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range words(s) {
		t := fold(w.text)
		if stopwords[t] || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

func termSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(s) {
		m[fold(w.text)] = true
	}
	return m
}

func fold(w string) string {
	t := strings.ToLower(strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s"))
	if len(t) > 4 && strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss") {
		t = t[:len(t)-1]
	}
	return t
}

func crosses(breaks []int, s sentence) bool {
	for _, b := range breaks {
		if b >= s.s && b < s.e {
			return true
		}
	}
	return false
}
