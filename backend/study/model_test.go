package study

import (
	"context"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies the check of a model's cards on fixed replies with known decisions: an answer
// quoted from the passage and one whose words are there in another form are kept, each
// with the sentence that supports it as its span; an answer the passage does not hold,
// one the question gives away, an empty and a long one are dropped and counted.
func TestCheckModelCards(t *testing.T) {
	p := Passage{Text: strings.Split(notes, "\n## ")[2]}
	reply := `{"cards": [
		{"question": "What separates the inside of a cell from its surroundings?", "answer": "A cell membrane",
		 "quote": "A cell membrane is a thin layer of lipids and proteins that separates the inside of a cell from its surroundings."},
		{"question": "What does diffusion move from higher to lower concentration?", "answer": "molecule", "quote": ""},
		{"question": "Where are ribosomes made?", "answer": "in the nucleolus", "quote": "Ribosomes are made in the nucleolus."},
		{"question": "What is the movement of water across a membrane, osmosis, called?", "answer": "osmosis", "quote": ""},
		{"question": "", "answer": "channels", "quote": ""},
		{"question": "Tell me everything", "answer": "` + strings.Repeat("lipids and proteins ", 10) + `", "quote": ""}
	]}`
	cards, ok := ParseModelCards(reply)
	if !ok || len(cards) != 6 {
		t.Fatalf("parse: %v %d", ok, len(cards))
	}
	kept, dropped := CheckModelCards(p, cards)
	if len(kept) != 2 || kept[0].Back != "A cell membrane" || kept[1].Back != "molecule" {
		t.Fatalf("kept %+v", kept)
	}
	if !strings.HasPrefix(kept[0].Context, "A cell membrane is a thin layer") || !strings.HasPrefix(kept[1].Context, "Diffusion refers to") {
		t.Errorf("spans: %q, %q", kept[0].Context, kept[1].Context)
	}
	for _, d := range kept {
		if p.Text[d.SpanStart:d.SpanEnd] != d.Context || d.Kind != KindQA {
			t.Errorf("span of %+v is not at its offsets", d)
		}
	}
	want := map[DropReason]int{DropUnsupported: 1, DropTrivial: 1, DropEmpty: 1, DropLong: 1}
	for r, n := range want {
		if dropped[r] != n {
			t.Errorf("dropped %v, want %v", dropped, want)
			break
		}
	}
	for _, bad := range []string{"", "not json", `{"cards": null}`, `{"cards": [{"question": "a"`} {
		if _, ok := ParseModelCards(bad); ok {
			t.Errorf("%q parsed as cards", bad)
		}
	}
}

// verifies model cards through a real Ollama server and its tiny random model: the
// request carries the JSON schema (without it the model's random reply is never JSON:
// every passage would count as failed; the schema asks for at least one card, so cards
// come back), every card proposed is kept or dropped with a reason, and the kept ones
// are supported by their span. The tiny model writes random words, so the check is what
// stands between them and the deck: it drops them as unsupported. Sampled at
// temperature 1: at 0 the random model repeats a token until Ollama cuts the reply.
func TestModelCardsWithOllama(t *testing.T) {
	srv := testollama.Start(t)
	var passages []Passage
	for _, part := range strings.Split(notes, "\n## ")[2:5] {
		passages = append(passages, Passage{Text: part})
	}
	drafts, res, err := ModelCards(context.Background(), llm.NewOllama(srv.Host), ModelOptions{Model: srv.ChatModel, PerPassage: 2, Temperature: 1}, passages)
	if err != nil {
		t.Fatalf("%v\nollama log:\n%s", err, srv.LogTail())
	}
	t.Logf("tiny model: %+v", res)
	if res.Passages != 3 || res.Failed == res.Passages || res.Proposed == 0 {
		t.Fatalf("%d passages asked, %d replies not the JSON asked for, %d cards proposed: the schema did not reach the model", res.Passages, res.Failed, res.Proposed)
	}
	if res.Dropped == 0 {
		t.Errorf("no card of the random model was dropped: %+v", res)
	}
	if res.Kept+res.Dropped != res.Proposed || res.Kept != len(drafts) {
		t.Errorf("counts do not add up: %+v, %d kept", res, len(drafts))
	}
	for _, d := range drafts {
		p := passages[d.Passage]
		if p.Text[d.SpanStart:d.SpanEnd] != d.Context {
			t.Errorf("kept card's span is not in its passage: %+v", d)
		}
		if _, dropped := CheckModelCards(p, []ModelCard{{Question: d.Front, Answer: d.Back}}); len(dropped) != 0 {
			t.Errorf("kept card fails the check: %+v", d)
		}
	}
}
