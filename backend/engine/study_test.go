package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/study"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies cards follow their document through the engine: re-chunked with other sizes,
// the document's passages change (new hashes) and every card is tied to the passage that
// now holds its span, at page offsets that still give its text, none stale; removed, its
// cards go with it.
func TestCardsFollowDocument(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, Config{})
	var b strings.Builder
	b.WriteString("# Cell biology\n\n")
	for _, s := range []string{
		"A cell membrane is a thin layer of lipids and proteins that separates the inside of a cell from its surroundings.",
		"Diffusion refers to the movement of molecules from a region of higher concentration to one of lower concentration.",
		"The movement of water across a membrane is called osmosis.",
		"A ribosome is a small particle of RNA and protein on which the proteins of the cell are assembled.",
		"Photosynthesis refers to the making of glucose from carbon dioxide and water with the energy of light.",
		"A lysosome is a vesicle of enzymes that breaks down the worn-out parts of the cell.",
	} {
		b.WriteString(s + " Cells of every kind depend on it, and the textbook returns to it in later chapters with examples from plants and animals.\n\n")
	}
	path := filepath.Join(t.TempDir(), "cells.md")
	os.WriteFile(path, []byte(b.String()), 0o644)
	res, err := eng.Intake().IngestFile(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	made, err := eng.MakeCards(ctx, "", []string{res.DocID})
	if err != nil || made.Added < 4 {
		t.Fatalf("make cards: %+v %v", made, err)
	}
	before, _ := eng.DeckCards(ctx, made.Deck.ID)
	hashes := map[string]bool{}
	for _, c := range before {
		hashes[c.ChunkID] = true
	}

	// Smaller passages: every card's passage is cut anew.
	prof := `{"general": {"target": 300, "min": 120, "max": 450, "overlap": 0.1, "child_target": 150, "child_min": 60, "child_max": 220}}`
	os.WriteFile(filepath.Join(eng.Config().Dir, chunk.ProfilesFile), []byte(prof), 0o644)
	if _, err := eng.Intake().Rechunk(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := eng.DueCards(ctx, made.Deck.ID, 0)
	if err != nil || len(after) != len(before) {
		t.Fatalf("%d cards due after re-chunking, %d before (%v)", len(after), len(before), err)
	}
	pages, _ := eng.Library().PageTexts(ctx, res.DocID)
	moved := 0
	for _, c := range after {
		if c.Stale {
			t.Errorf("card %d went stale though its text is in the document", c.ID)
		}
		if !hashes[c.ChunkID] {
			moved++
		}
		if c.Page != c.PageEnd || c.End > len(pages[c.Page-1]) || pages[c.Page-1][c.Start:c.End] != c.Context {
			t.Errorf("card %d: page offsets %d:%d-%d do not give its span %q", c.ID, c.Page, c.Start, c.End, c.Context)
		}
	}
	if moved == 0 {
		t.Fatalf("no card moved to a new passage: the re-chunk did not change the passages")
	}

	if err := eng.Intake().Remove(ctx, res.DocID); err != nil {
		t.Fatal(err)
	}
	if left, _ := eng.Library().Cards(ctx, library.CardFilter{DocID: res.DocID}); len(left) != 0 {
		t.Errorf("%d cards left after their document was removed", len(left))
	}
}

// verifies the engine's marking of a short answer with the library's models (the real
// test Ollama: all-MiniLM-L6-v2 as the embedder, the tiny model as the judge): a
// rewording that its words fail passes by meaning, compared with the deck's other
// answers; the same answer with the judge asked comes back with the model's verdict.
func TestMarkAnswerWithModels(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds with a real model")
	}
	ctx := context.Background()
	srv := testollama.Start(t)
	embed := testollama.MiniLM(t, srv)
	eng := openEngine(t, Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: embed})
	path := filepath.Join(t.TempDir(), "cells.md")
	os.WriteFile(path, []byte("# Cell biology\n\n"+
		"Diffusion refers to the movement of molecules from a region of higher concentration to one of lower concentration.\n\n"+
		"A ribosome is a small particle of RNA and protein on which the proteins of the cell are assembled.\n\n"+
		"A lysosome is a vesicle of enzymes that breaks down the worn-out parts of the cell.\n\n"+
		"Photosynthesis refers to the making of glucose from carbon dioxide and water with the energy of light.\n"), 0o644)
	res, err := eng.Intake().IngestFile(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	made, err := eng.MakeCards(ctx, "", []string{res.DocID})
	if err != nil {
		t.Fatal(err)
	}
	cards, _ := eng.DeckCards(ctx, made.Deck.ID)
	var diffusion library.Card
	for _, c := range cards {
		if strings.HasPrefix(c.Back, "the movement of molecules") {
			diffusion = c
		}
	}
	if diffusion.ID == 0 {
		t.Fatalf("no card for diffusion among %+v", cards)
	}
	given := "molecules spreading out from where they are crowded to where there are fewer of them"
	m, _, err := eng.MarkAnswer(ctx, diffusion.ID, given, false)
	if err != nil || !m.Correct || m.By != study.ByMeaning || m.Similarity < 0.5 || m.Closest >= m.Similarity {
		t.Fatalf("a rewording of the answer: %+v %v", m, err)
	}
	wrong, _, _ := eng.MarkAnswer(ctx, diffusion.ID, "a vesicle that breaks down the old parts of the cell", false)
	if wrong.Correct {
		t.Errorf("another card's answer passed: %+v", wrong)
	}
	judged, _, err := eng.MarkAnswer(ctx, diffusion.ID, given, true)
	if err != nil || judged.Judge == nil || judged.By != study.ByModel || judged.Correct != judged.Judge.Correct {
		t.Fatalf("with the judge: %+v %v", judged, err)
	}
}
