package study

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/library"
)

const notes = `# Cell biology notes

## Contents

Membranes 1
Organelles 4
Energy 9
Index 12

## Membranes

A cell membrane is a thin layer of lipids and proteins that separates the inside of a cell from its surroundings.
Diffusion refers to the movement of molecules from a region of higher concentration to one of lower concentration.
The movement of water across a membrane is called osmosis.
Proteins in the membrane act as **channels** for ions that cannot cross the lipid layer on their own.

## Organelles

Mitochondrion: the organelle where cellular respiration releases energy from glucose.
Ribosome: a small particle of RNA and protein on which proteins are assembled.
Lysosome: a vesicle of enzymes that breaks down worn-out parts of the cell.

## Photosynthesis

Plants capture light in their chloroplasts, where photosynthesis turns carbon dioxide and water into glucose and oxygen.
The glucose made by photosynthesis feeds the plant and, through food chains, the animals that eat it.
Chloroplasts hold chlorophyll, the pigment that absorbs red and blue light and reflects green light.
`

// verifies each kind of card made with no model from a small text: definitions in their
// three forms, glossary lines, an emphasised term, the term a heading introduces, a
// cloze of a rare word; and that the contents list makes none.
func TestGenerateKinds(t *testing.T) {
	var passages []Passage
	for i, part := range strings.Split(notes, "\n## ") {
		section := ""
		if i > 0 {
			section = part[:strings.IndexByte(part, '\n')]
		}
		passages = append(passages, Passage{ChunkID: section, Section: section, Text: part})
	}
	got := Generate(passages)
	want := []struct {
		kind        library.CardKind
		front, back string
	}{
		{KindDefinition, "What is a cell membrane?", "a thin layer of lipids and proteins that separates the inside of a cell from its surroundings"},
		{KindDefinition, "What does Diffusion refer to?", "the movement of molecules from a region of higher concentration to one of lower concentration"},
		{KindDefinition, "What is the movement of water across a membrane called?", "osmosis"},
		{KindEmphasis, "Proteins in the membrane act as " + Blank + " for ions that cannot cross the lipid layer on their own.", "channels"},
		{KindGlossary, "Mitochondrion", "the organelle where cellular respiration releases energy from glucose."},
		{KindGlossary, "Ribosome", "a small particle of RNA and protein on which proteins are assembled."},
		{KindGlossary, "Lysosome", "a vesicle of enzymes that breaks down worn-out parts of the cell."},
		{KindHeading, "Plants capture light in their chloroplasts, where " + Blank + " turns carbon dioxide and water into glucose and oxygen.", "photosynthesis"},
	}
	have := map[string]Draft{}
	for _, d := range got {
		have[d.Front] = d
		p := passages[d.Passage]
		if p.Text[d.SpanStart:d.SpanEnd] != d.Context || !strings.Contains(d.Context, d.Back) {
			t.Errorf("%q: answer %q not verbatim in its span %q", d.Front, d.Back, d.Context)
		}
		if p.Section == "Contents" {
			t.Errorf("a card from the contents list: %+v", d)
		}
	}
	for _, w := range want {
		d, ok := have[w.front]
		if !ok || d.Kind != w.kind || d.Back != w.back {
			t.Errorf("missing %s card %q → %q; got %+v", w.kind, w.front, w.back, d)
		}
	}
	clozes := 0
	for _, d := range got {
		if d.Kind == KindCloze {
			clozes++
			if !strings.Contains(d.Front, Blank) || strings.Contains(d.Front, d.Back+" ") && !strings.Contains(d.Context, d.Back+" ") {
				t.Errorf("bad cloze %+v", d)
			}
		}
	}
	if clozes == 0 {
		t.Errorf("no cloze card; got %d cards: %+v", len(got), got)
	}
}

func writeNotes(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "notes.md")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// verifies a deck in SQLite: making cards twice adds none the second time; edit,
// suspend and delete; an edit into a duplicate is refused; grading moves the card's due
// date by FSRS and keeps the review; a session's deck goes with its session, and a
// document's cards go with the document.
func TestDeckLifecycle(t *testing.T) {
	ctx := context.Background()
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	src, ok := addDocument(t, lib, writeNotes(t, notes))
	if !ok {
		t.Fatal("ingest notes")
	}
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	if err := lib.CreateSession(ctx, &library.Session{ID: "s1", Title: "Biology", DocIDs: []string{src.SHA256}}); err != nil {
		t.Fatal(err)
	}
	deck, err := OpenDeck(ctx, lib, "s1", nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if deck.Title != "Biology" || len(deck.DocIDs) != 1 {
		t.Fatalf("session deck %+v", deck)
	}
	res, err := Make(ctx, lib, deck, nil, now)
	if err != nil || res.Added < 6 || res.Deck.Cards != res.Added || res.Deck.Due != res.Added {
		t.Fatalf("make: %+v %v", res, err)
	}
	again, _ := Make(ctx, lib, deck, nil, now)
	if again.Added != 0 || again.Existing != res.Made {
		t.Fatalf("made again: %+v", again)
	}
	cards, err := Cards(ctx, lib, library.CardFilter{DeckID: deck.ID})
	if err != nil || len(cards) != res.Added {
		t.Fatalf("cards %d %v", len(cards), err)
	}
	a, b := cards[0], cards[1]

	// Each step works on the deck the steps before left.
	t.Run("an edit into a duplicate is refused, another kept", func(t *testing.T) {
		if _, err := Edit(ctx, lib, a.ID, b.Front, b.Back); !errors.Is(err, library.ErrDuplicate) {
			t.Errorf("edit into a duplicate: %v", err)
		}
		e, err := Edit(ctx, lib, a.ID, "What separates a cell from its surroundings?", a.Back)
		if err != nil || e.Front != "What separates a cell from its surroundings?" || e.Back != a.Back {
			t.Errorf("edit: %+v %v", e, err)
		}
	})

	t.Run("a suspended card is not due", func(t *testing.T) {
		if err := lib.SuspendCard(ctx, b.ID, true); err != nil {
			t.Fatal(err)
		}
		due, err := Due(ctx, lib, deck.ID, now, 0)
		if err != nil || len(due) != res.Added-1 {
			t.Fatalf("due with one suspended: %d %v", len(due), err)
		}
		for _, c := range due {
			if c.ID == b.ID {
				t.Error("a suspended card is due")
			}
		}
	})

	t.Run("grading moves the due date by FSRS and keeps the reviews", func(t *testing.T) {
		g, err := Grade(ctx, lib, a.ID, 3, now)
		if err != nil {
			t.Fatal(err)
		}
		if g.Schedule.State != 1 || !g.Schedule.Due.Equal(now.Add(10*time.Minute)) || g.Schedule.Reps != 1 {
			t.Errorf("after good on a new card: %+v (want learning, due in 10 minutes)", g.Schedule)
		}
		g, err = Grade(ctx, lib, a.ID, 3, now.Add(10*time.Minute))
		if err != nil || g.Schedule.State != 2 || g.Schedule.ScheduledDays < 1 {
			t.Errorf("after good again: %+v %v (want review, a day or more)", g.Schedule, err)
		}
		if rs, _ := lib.Reviews(ctx, a.ID); len(rs) != 2 || rs[0].Grade != 3 || rs[1].State != 1 {
			t.Errorf("reviews: %+v", rs)
		}
		if due2, _ := Due(ctx, lib, deck.ID, now.Add(time.Hour), 0); len(due2) != res.Added-2 {
			t.Errorf("due after grading one to days ahead: %d, want %d", len(due2), res.Added-2)
		}
		if _, err := Grade(ctx, lib, a.ID, 7, now.Add(2*time.Hour)); err == nil {
			t.Error("grade 7 accepted")
		}
		// Due for review days later and forgotten: a lapse, the one review retention counts.
		if g, err = Grade(ctx, lib, a.ID, 1, g.Schedule.Due.Add(time.Hour)); err != nil || g.Schedule.State != 3 || g.Schedule.Lapses != 1 {
			t.Fatalf("again on a review card: %+v %v", g.Schedule, err)
		}
	})

	t.Run("the deck's stats count its reviews and quizzes", func(t *testing.T) {
		if err := lib.AddQuizScore(ctx, &library.QuizScore{DeckID: deck.ID, Questions: 5, Correct: 4}); err != nil {
			t.Fatal(err)
		}
		stats, err := lib.StudyStats(ctx, now)
		if err != nil || len(stats) != 1 {
			t.Fatalf("stats %+v %v", stats, err)
		}
		st := stats[0]
		if st.Reviews != 3 || st.Recalls != 1 || st.Retention != 0 || len(st.Days) != 2 || st.Days[1].Again != 1 || st.Quizzes != 1 || st.LastCorrect != 4 || st.LastOf != 5 {
			t.Errorf("deck stats %+v", st)
		}
	})

	t.Run("a deleted card is gone", func(t *testing.T) {
		if err := lib.DeleteCard(ctx, b.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := lib.Card(ctx, b.ID); !errors.Is(err, library.ErrNotFound) {
			t.Errorf("deleted card: %v", err)
		}
	})

	// The same document in its own deck, then removed: its cards go with it.
	t.Run("a deck goes with its session, cards with their document", func(t *testing.T) {
		own, err := OpenDeck(ctx, lib, "", []string{src.SHA256}, now)
		if err != nil {
			t.Fatal(err)
		}
		if r, err := Make(ctx, lib, own, nil, now); err != nil || r.Added != res.Made {
			t.Fatalf("own deck: %+v %v (duplicates are per deck)", r, err)
		}
		if err := lib.DeleteSession(ctx, "s1"); err != nil {
			t.Fatal(err)
		}
		if _, err := lib.Deck(ctx, deck.ID, now); !errors.Is(err, library.ErrNotFound) {
			t.Errorf("session deck after the session was deleted: %v", err)
		}
		if err := lib.DeleteDocument(ctx, src.SHA256); err != nil {
			t.Fatal(err)
		}
		if left, _ := lib.Cards(ctx, library.CardFilter{}); len(left) != 0 {
			t.Errorf("%d cards left after their document was removed", len(left))
		}
		if d, _ := lib.DueByDocument(ctx, now); len(d) != 0 {
			t.Errorf("due counts after removal: %v", d)
		}
	})
}

// verifies cards follow a document read again: a card whose sentence moved is tied to
// its new passage and page offsets; a card whose sentence is gone goes stale, out of
// the reviews.
func TestRecheckAfterReread(t *testing.T) {
	ctx := context.Background()
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	path := writeNotes(t, notes)
	src, _ := addDocument(t, lib, path)
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	deck, _ := OpenDeck(ctx, lib, "", []string{src.SHA256}, now)
	if _, err := Make(ctx, lib, deck, nil, now); err != nil {
		t.Fatal(err)
	}
	before, _ := lib.Cards(ctx, library.CardFilter{DeckID: deck.ID})
	var gone library.Card
	for _, c := range before {
		if c.Kind == KindDefinition {
			gone = c
			break
		}
	}
	if gone.ID == 0 || len(before) < 4 {
		t.Fatalf("cards made: %+v", before)
	}

	// The same document id read again with different text: a paragraph added in front,
	// one definition's sentence gone (as a new extractor might read it).
	changed := strings.Replace(notes, gone.Context, "", 1)
	changed = strings.Replace(changed, "## Membranes\n", "## Membranes\n\nMembranes were first seen under the electron microscope in the 1950s, long after cells.\n\n", 1)
	re, _ := addDocumentAs(t, lib, writeNotes(t, changed), src.SHA256)

	due, err := Due(ctx, lib, deck.ID, now, 0)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := lib.Cards(ctx, library.CardFilter{DeckID: deck.ID})
	pages, _ := lib.PageTexts(ctx, src.SHA256)
	stale := 0
	for _, c := range after {
		if c.Stale {
			stale++
			if c.ID != gone.ID {
				t.Errorf("stale card whose sentence is still there: %+v", c)
			}
			continue
		}
		if got := pageSpan(pages, c); got != c.Context {
			t.Errorf("card %d after re-read: page offsets give %q, want %q", c.ID, got, c.Context)
		}
	}
	if stale != 1 || len(due) != len(before)-1 {
		t.Errorf("%d stale, %d due of %d; want the card of the removed sentence stale and the rest due", stale, len(due), len(before))
	}
	_ = re
}

// addDocumentAs stores a file's content under an existing document id, as a re-read does.
func addDocumentAs(t *testing.T, lib *library.Library, path, id string) (int, bool) {
	t.Helper()
	tmp, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	src, ok := addDocument(t, tmp, path)
	if !ok {
		t.Fatal("ingest")
	}
	ctx := context.Background()
	ps, _ := tmp.DocumentParents(ctx, src.SHA256)
	pages, _ := tmp.PageTexts(ctx, src.SHA256)
	parents := make([]library.Parent, len(ps))
	for i, p := range ps {
		p.Seq = 0
		parents[i] = library.Parent{Chunk: p, Children: []library.Chunk{p}}
	}
	if err := lib.ReplaceTree(ctx, id, pages, parents); err != nil {
		t.Fatal(err)
	}
	return len(parents), true
}

// verifies the key sentences of a summary with no model: prose sentences in reading
// order, none from the contents list, none twice when passages overlap.
func TestKeySentences(t *testing.T) {
	parts := strings.Split(notes, "\n## ")
	ps := []Passage{{Text: parts[1]}, {Text: parts[2]}, {Text: parts[2]}, {Text: parts[4]}}
	got := KeySentences(ps, 3)
	if len(got) != 3 {
		t.Fatalf("%d sentences", len(got))
	}
	seen := map[string]bool{}
	for i, x := range got {
		s := ps[x.Passage].Text[x.Start:x.End]
		if x.Passage == 0 || seen[s] || !strings.HasSuffix(s, ".") {
			t.Errorf("sentence %q from passage %d", s, x.Passage)
		}
		seen[s] = true
		if i > 0 && (x.Passage < got[i-1].Passage || x.Passage == got[i-1].Passage && x.Start < got[i-1].Start) {
			t.Errorf("not in reading order: %+v", got)
		}
	}
}

// verifies a session's deck follows the session's document scope: cards made over two
// documents; the scope narrowed to one leaves the other's cards out of the deck's
// listing, due cards and counts (kept with their reviews), widened again brings them
// back; a session over the whole library takes in a document added later.
func TestDeckFollowsSessionScope(t *testing.T) {
	ctx := context.Background()
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	a, _ := addDocument(t, lib, writeNotes(t, notes))
	other := strings.ReplaceAll(notes, "Cell biology notes", "Plant notes")
	other += "\nA stoma is a small pore in the surface of a leaf that lets gases in and out.\n"
	b, _ := addDocument(t, lib, writeNotes(t, other))
	now := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	if err := lib.CreateSession(ctx, &library.Session{ID: "s1", Title: "Biology", DocIDs: []string{a.SHA256, b.SHA256}}); err != nil {
		t.Fatal(err)
	}
	deck, err := OpenDeck(ctx, lib, "s1", nil, now)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Make(ctx, lib, deck, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	perDoc := map[string]int{}
	all, _ := Cards(ctx, lib, library.CardFilter{DeckID: deck.ID})
	for _, c := range all {
		perDoc[c.DocID]++
	}
	if perDoc[a.SHA256] == 0 || perDoc[b.SHA256] == 0 || len(all) != res.Added {
		t.Fatalf("cards per document %v of %d", perDoc, res.Added)
	}
	graded := all[len(all)-1] // one of b's, reviewed once
	if graded.DocID != b.SHA256 {
		t.Fatalf("the last card is not of the second document")
	}
	if _, err := Grade(ctx, lib, graded.ID, 3, now); err != nil {
		t.Fatal(err)
	}

	// Each step changes the scope the steps before left.
	t.Run("narrowed: the other document's cards leave the deck", func(t *testing.T) {
		// Narrowed to a: b's cards are out of the deck's listing, due list and counts.
		if err := lib.SetSessionScope(ctx, "s1", []string{a.SHA256}); err != nil {
			t.Fatal(err)
		}
		if err := lib.RenameSession(ctx, "s1", "Cells only"); err != nil {
			t.Fatal(err)
		}
		due, err := Due(ctx, lib, deck.ID, now, 0)
		if err != nil || len(due) != perDoc[a.SHA256] {
			t.Fatalf("due after narrowing: %d, want %d (%v)", len(due), perDoc[a.SHA256], err)
		}
		for _, c := range due {
			if c.DocID != a.SHA256 {
				t.Errorf("card %d of a document out of scope is due", c.ID)
			}
		}
		d, _ := lib.Deck(ctx, deck.ID, now)
		if d.Cards != perDoc[a.SHA256] || d.Due != perDoc[a.SHA256] || d.Title != "Cells only" || len(d.DocIDs) != 1 {
			t.Errorf("deck after narrowing: %+v", d)
		}
		if byDoc, _ := lib.DueByDocument(ctx, now); byDoc[b.SHA256] != 0 {
			t.Errorf("due counts still count the document out of scope: %v", byDoc)
		}
	})

	t.Run("widened: they come back with their reviews", func(t *testing.T) {
		// Widened again: b's cards come back with their reviews.
		if err := lib.SetSessionScope(ctx, "s1", []string{a.SHA256, b.SHA256}); err != nil {
			t.Fatal(err)
		}
		back, _ := Cards(ctx, lib, library.CardFilter{DeckID: deck.ID})
		if len(back) != len(all) {
			t.Fatalf("%d cards after widening, %d before", len(back), len(all))
		}
		if rs, _ := lib.Reviews(ctx, graded.ID); len(rs) != 1 {
			t.Errorf("the graded card's review: %d", len(rs))
		}
	})

	t.Run("a whole-library deck takes in a document added later", func(t *testing.T) {
		// A session over the whole library takes in a document added after its deck was made.
		if err := lib.CreateSession(ctx, &library.Session{ID: "s2", Title: "Everything"}); err != nil {
			t.Fatal(err)
		}
		whole, err := OpenDeck(ctx, lib, "s2", nil, now)
		if err != nil || len(whole.DocIDs) != 2 {
			t.Fatalf("whole-library deck %+v %v", whole, err)
		}
		c, _ := addDocument(t, lib, writeNotes(t, strings.ReplaceAll(other, "Plant notes", "Leaf notes")+"\nXylem is the tissue that carries water up from the roots.\n"))
		if err := FollowSessions(ctx, lib, now); err != nil {
			t.Fatal(err)
		}
		if d, _ := lib.Deck(ctx, whole.ID, now); len(d.DocIDs) != 3 || !sameIDs(d.DocIDs, []string{a.SHA256, b.SHA256, c.SHA256}) {
			t.Errorf("whole-library deck after an add: %v", d.DocIDs)
		}
	})
}
