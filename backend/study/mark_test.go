package study

import (
	"context"
	"errors"
	"testing"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/internal/testollama"
)

// markCards are a deck's cards, as the notes' definitions and glossary make them.
var markCards = []library.Card{
	{ID: 1, Front: "What is diffusion?", Back: "the movement of molecules from a region of higher concentration to one of lower concentration"},
	{ID: 2, Front: "Mitochondrion", Back: "the organelle where cellular respiration releases energy from glucose"},
	{ID: 3, Front: "Ribosome", Back: "a small particle of RNA and protein on which proteins are assembled"},
	{ID: 4, Front: "What is a cell membrane?", Back: "a thin layer of lipids and proteins that separates the inside of a cell from its surroundings"},
	{ID: 5, Front: "Lysosome", Back: "a vesicle of enzymes that breaks down worn-out parts of the cell"},
	{ID: 6, Front: "What is the movement of water across a membrane called?", Back: "osmosis"},
}

func others(c library.Card) []string {
	var out []string
	for _, o := range markCards {
		if o.ID != c.ID {
			out = append(out, o.Back)
		}
	}
	return out
}

// verifies short answers graded by meaning with a real retrieval-trained embedder
// (all-MiniLM-L6-v2 in the test Ollama): rewordings that share too few of the answer's
// words to pass by words pass by meaning; wrong answers (another card's idea in other
// words, or an unrelated one) fail by both, even where they share a word with the
// right answer. The similarities are logged: they set minMeaning.
func TestMarkMeaningWithMiniLM(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds with a real model")
	}
	srv := testollama.Start(t)
	model := testollama.MiniLM(t, srv)
	ol := llm.NewOllama(srv.Host)
	embed := func(ctx context.Context, texts []string) ([][]float32, error) { return ol.Embed(ctx, model, texts) }
	ctx := context.Background()
	for _, c := range []struct {
		card  library.Card
		given string
		right bool
	}{
		{markCards[0], "molecules spreading out from where they are crowded to where there are fewer of them", true},
		{markCards[1], "the part of the cell that makes energy by respiration", true},
		{markCards[2], "where the cell builds its proteins, a tiny bit made of RNA", true},
		{markCards[3], "the outer boundary of the cell made of fat molecules and protein", true},
		{markCards[4], "a sac that digests old pieces of the cell with enzymes", true},
		{markCards[0], "the part of the cell that makes energy by respiration", false},
		{markCards[1], "where the cell builds its proteins", false},
		{markCards[2], "water moving across a membrane", false},
		{markCards[3], "molecules of higher concentration", false},
		{markCards[4], "the capital city of France", false},
		{markCards[5], "the movement of molecules", false},
	} {
		m, err := Mark(ctx, c.card, c.given, MarkOptions{Embed: embed, Others: others(c.card)})
		if err != nil {
			t.Fatalf("%v\n%s", err, srv.LogTail())
		}
		t.Logf("%-5v words %.2f similarity %.2f closest other %.2f by %q: %q for %q", c.right, m.Score, m.Similarity, m.Closest, m.By, c.given, c.card.Back)
		if m.Correct != c.right {
			t.Errorf("%q for %q: %+v, want correct %v", c.given, c.card.Back, m, c.right)
		}
		if c.right && (m.By != ByMeaning || MarkAnswer(c.card, c.given).Correct) {
			t.Errorf("%q passes by %q: the case does not test meaning", c.given, m.By)
		}
	}
}

// verifies the judge: its verdict decides and its reason is kept, whatever the words
// say (fixed replies: a right answer in other words, a wrong one that shares words); a
// reply that is not a verdict is an error and the words' marking stands; and the real
// structured-output call reaches the tiny test model and comes back as a verdict.
func TestMarkJudge(t *testing.T) {
	ctx := context.Background()
	c := markCards[5]
	for _, tc := range []struct {
		reply, given string
		right, ok    bool
	}{
		{`{"correct": true, "reason": "Osmosis is water moving across a membrane."}`, "it is osmosis, water through a membrane", true, true},
		{`{"correct": false, "reason": "That is diffusion, not osmosis."}`, "osmosis or diffusion, I think diffusion", false, true},
		{`{"reason": "no verdict"}`, "osmosis", true, false},
		{`not json`, "diffusion", false, false},
	} {
		judge := func(ctx context.Context, _ library.Card, _ string) (Verdict, error) {
			v, ok := ParseVerdict(tc.reply)
			if !ok {
				return v, errors.New("not a verdict")
			}
			return v, nil
		}
		m, err := Mark(ctx, c, tc.given, MarkOptions{Judge: judge})
		if (err == nil) != tc.ok || m.Correct != tc.right {
			t.Errorf("reply %s, answer %q: %+v, err %v; want correct %v", tc.reply, tc.given, m, err, tc.right)
		}
		if tc.ok && (m.By != ByModel || m.Judge == nil || m.Judge.Reason == "") {
			t.Errorf("reply %s: the verdict is not kept: %+v", tc.reply, m)
		}
	}

	srv := testollama.Start(t)
	m, err := Mark(ctx, c, "water crossing a membrane", MarkOptions{Judge: ModelJudge(llm.NewOllama(srv.Host), srv.ChatModel)})
	if err != nil {
		t.Fatalf("the tiny model's verdict: %v\n%s", err, srv.LogTail())
	}
	if m.Judge == nil || m.By != ByModel {
		t.Fatalf("no verdict from the tiny model: %+v", m)
	}
	t.Logf("tiny model's verdict (random weights): %+v", *m.Judge)
}
