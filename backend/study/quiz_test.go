package study

import (
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/library"
)

func quizCards() []library.Card {
	var ps []Passage
	for _, part := range strings.Split(notes, "\n## ")[1:] {
		ps = append(ps, Passage{Section: part[:strings.IndexByte(part, '\n')], Text: part})
	}
	var cards []library.Card
	for i, d := range Generate(ps) {
		cards = append(cards, library.Card{ID: int64(i + 1), Kind: d.Kind, Front: d.Front, Back: d.Back, Context: d.Context})
	}
	// More terms to draw from, as a real deck has.
	for i, w := range []string{"cytoplasm", "nucleus", "vacuole", "enzyme"} {
		cards = append(cards, library.Card{ID: int64(100 + i), Kind: KindCloze, Front: "The " + Blank + " is part of a cell.", Back: w})
	}
	return cards
}

// verifies quiz questions: each is a card's question; a multiple-choice one has its
// right answer once among four distinct choices, the other three answers of the same
// sort from the same deck (terms for a term, explanations for an explanation); the same
// seed makes the same quiz; suspended cards are never asked.
func TestMakeQuiz(t *testing.T) {
	cards := quizCards()
	cards[0].Suspended = true
	qs := MakeQuiz(cards, 50, 7)
	if len(qs) != len(cards)-1 {
		t.Fatalf("%d questions from %d cards (one suspended)", len(qs), len(cards))
	}
	backs := map[string]string{}
	for _, c := range cards {
		backs[collapse(c.Back)] = answerSort(c)
	}
	choice := 0
	for _, q := range qs {
		if q.CardID == cards[0].ID {
			t.Error("a suspended card was asked")
		}
		if q.Choices == nil {
			if q.Answer != -1 {
				t.Errorf("short answer with a choice index: %+v", q)
			}
			continue
		}
		choice++
		if len(q.Choices) != 4 || q.Choices[q.Answer] != collapse(q.Card.Back) {
			t.Fatalf("choices %q, answer %d, card %q", q.Choices, q.Answer, q.Card.Back)
		}
		seen := map[string]bool{}
		for _, ch := range q.Choices {
			if seen[strings.ToLower(ch)] {
				t.Errorf("choice %q twice in %q", ch, q.Choices)
			}
			seen[strings.ToLower(ch)] = true
			if backs[ch] != answerSort(q.Card) {
				t.Errorf("%q: distractor %q is a %s, the answer a %s", q.Prompt, ch, backs[ch], answerSort(q.Card))
			}
		}
	}
	if choice == 0 {
		t.Fatal("no multiple-choice question")
	}
	again := MakeQuiz(cards, 50, 7)
	for i := range qs {
		if qs[i].CardID != again[i].CardID || strings.Join(qs[i].Choices, "|") != strings.Join(again[i].Choices, "|") {
			t.Fatal("the same seed made another quiz")
		}
	}
}

// verifies short answers are marked by the card's answer's content words: the words in
// another order, plural or with one letter wrong count; a different answer or half of a
// long one does not.
func TestMarkAnswer(t *testing.T) {
	def := library.Card{Back: "a thin layer of lipids and proteins"}
	term := library.Card{Back: "osmosis"}
	for _, c := range []struct {
		card  library.Card
		given string
		right bool
	}{
		{def, "thin layer of protein and lipids", true},
		{def, "a layer of lipids", false},
		{def, "the nucleus", false},
		{term, "Osmosis", true},
		{term, "osmossis", true},
		{term, "diffusion", false},
		{term, "", false},
	} {
		if m := MarkAnswer(c.card, c.given); m.Correct != c.right {
			t.Errorf("%q for %q: %+v, want correct %v", c.given, c.card.Back, m, c.right)
		}
	}
}
