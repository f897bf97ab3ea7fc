// Package study makes flashcards from a library's documents and schedules their reviews:
// cards made with no model from what the text marks as knowledge (generate.go), kept in
// decks of the library (backend/library's decks, cards and reviews), reviewed on the
// FSRS schedule (study/fsrs), exported for Anki, as CSV or Markdown (export.go). Every
// card keeps the passage (its content hash) and the exact span it stands on, so that it
// opens its source, and follows its document: cards go when the document is removed
// (the database cascades) and are checked against the new text when it is read again
// ([Recheck]).
package study

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/study/fsrs"
)

// ErrNoDocuments is returned when cards are asked for with no document in scope.
var ErrNoDocuments = errors.New("no documents to make cards from")

// DeckID is the id of a study session's deck, or of a document's own deck when
// sessionID is empty (one document in docIDs).
func DeckID(sessionID string, docIDs []string) string {
	if sessionID != "" {
		return "session:" + sessionID
	}
	if len(docIDs) == 1 {
		return "doc:" + docIDs[0]
	}
	return "docs:" + strings.Join(docIDs, ",")
}

// OpenDeck returns the deck of a study session (scope: the session's documents, or the
// whole library when it has none) or of documents outside any session, creating it the
// first time. A session's deck takes the session's scope as it is now.
func OpenDeck(ctx context.Context, lib *library.Library, sessionID string, docIDs []string, now time.Time) (library.Deck, error) {
	title := ""
	if sessionID != "" {
		s, err := lib.Session(ctx, sessionID)
		if err != nil {
			return library.Deck{}, fmt.Errorf("open deck: %w", err)
		}
		if title, docIDs, err = sessionScope(ctx, lib, s); err != nil {
			return library.Deck{}, fmt.Errorf("open deck: %w", err)
		}
	} else if len(docIDs) == 0 {
		return library.Deck{}, ErrNoDocuments
	}
	id := DeckID(sessionID, docIDs)
	if d, err := lib.Deck(ctx, id, now); err == nil {
		if sessionID != "" && (d.Title != title || !sameIDs(d.DocIDs, docIDs)) {
			if err := lib.SetDeckScope(ctx, id, title, docIDs); err != nil {
				return d, fmt.Errorf("open deck: %w", err)
			}
			return lib.Deck(ctx, id, now)
		}
		return d, nil
	} else if !errors.Is(err, library.ErrNotFound) {
		return d, fmt.Errorf("open deck: %w", err)
	}
	if title == "" {
		var names []string
		for _, id := range docIDs {
			d, err := lib.Document(ctx, id)
			if err != nil {
				return library.Deck{}, fmt.Errorf("open deck: %w", err)
			}
			names = append(names, d.Title)
		}
		title = strings.Join(names, ", ")
	}
	d := library.Deck{ID: id, SessionID: sessionID, Title: title, DocIDs: docIDs}
	if err := lib.CreateDeck(ctx, &d); err != nil {
		return d, err
	}
	return lib.Deck(ctx, id, now)
}

// sessionScope is a session's title and documents: those it asks over, or every
// document of the library when it asks over all of them.
func sessionScope(ctx context.Context, lib *library.Library, s library.Session) (string, []string, error) {
	if len(s.DocIDs) > 0 {
		return s.Title, s.DocIDs, nil
	}
	docs, err := lib.Documents(ctx)
	if err != nil {
		return "", nil, err
	}
	ids := []string{}
	for _, d := range docs {
		ids = append(ids, d.ID)
	}
	return s.Title, ids, nil
}

func sameIDs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]bool{}
	for _, x := range a {
		seen[x] = true
	}
	for _, x := range b {
		if !seen[x] {
			return false
		}
	}
	return true
}

// FollowSessions gives every study session's deck its session's scope as it is now (the
// session was renamed, its documents chosen anew, or, over the whole library, documents
// were added or removed), so that its listings and counts cover those documents only.
func FollowSessions(ctx context.Context, lib *library.Library, now time.Time) error {
	decks, err := lib.Decks(ctx, now)
	if err != nil {
		return err
	}
	for _, d := range decks {
		if d.SessionID == "" {
			continue
		}
		s, err := lib.Session(ctx, d.SessionID)
		if errors.Is(err, library.ErrNotFound) {
			continue // deleted meanwhile: its deck goes with it
		}
		if err != nil {
			return fmt.Errorf("follow session %s: %w", d.SessionID, err)
		}
		title, ids, err := sessionScope(ctx, lib, s)
		if err != nil {
			return fmt.Errorf("follow session %s: %w", d.SessionID, err)
		}
		if d.Title != title || !sameIDs(d.DocIDs, ids) {
			if err := lib.SetDeckScope(ctx, d.ID, title, ids); err != nil && !errors.Is(err, library.ErrNotFound) {
				return err
			}
		}
	}
	return nil
}

// MakeResult says what making cards did.
type MakeResult struct {
	Deck     library.Deck             `json:"deck"`
	Passages int                      `json:"passages"` // passages read
	Made     int                      `json:"made"`     // cards made from them
	Added    int                      `json:"added"`    // of which new to the deck
	Existing int                      `json:"existing"` // of which the deck had already
	ByKind   map[library.CardKind]int `json:"by_kind"`  // added cards per kind
	// Model says what a model proposed and what the check kept (cards made with a model).
	Model *ModelResult `json:"model,omitempty"`
	// Stopped is true when the model was stopped midway: the cards checked before are in.
	Stopped bool `json:"stopped,omitempty"`
}

// Make makes cards with no model from the documents of a deck's scope (or only docIDs,
// when given, which must be in it) and adds the new ones to the deck. Word rarity for
// cloze cards is measured over all the passages read together.
func Make(ctx context.Context, lib *library.Library, deck library.Deck, docIDs []string, now time.Time) (MakeResult, error) {
	return MakeWith(ctx, lib, deck, docIDs, now, func(ps []Passage) ([]Draft, error) { return Generate(ps), nil })
}

// MakeWith makes cards with gen (the rules of Generate, or a model through ModelCards)
// from the passages of docIDs (the deck's scope when empty) and adds the new ones.
func MakeWith(ctx context.Context, lib *library.Library, deck library.Deck, docIDs []string, now time.Time, gen func([]Passage) ([]Draft, error)) (MakeResult, error) {
	res := MakeResult{Deck: deck, ByKind: map[library.CardKind]int{}}
	if len(docIDs) == 0 {
		docIDs = deck.DocIDs
	}
	if len(docIDs) == 0 {
		return res, ErrNoDocuments
	}
	var passages []Passage
	var parents []library.Chunk
	pages := map[string][]string{}
	for _, id := range docIDs {
		ps, err := lib.DocumentParents(ctx, id)
		if err != nil {
			return res, fmt.Errorf("make cards: %w", err)
		}
		if pages[id], err = lib.PageTexts(ctx, id); err != nil {
			return res, fmt.Errorf("make cards: %w", err)
		}
		for _, p := range ps {
			passages = append(passages, Passage{ChunkID: p.ID, DocID: id, Section: p.Section, Text: p.Text, Breaks: breaks(p, pages[id])})
			parents = append(parents, p)
		}
	}
	res.Passages = len(passages)
	drafts, err := gen(passages)
	if err != nil {
		return res, err
	}
	cards := make([]library.Card, 0, len(drafts))
	for _, d := range drafts {
		p := parents[d.Passage]
		origin := library.OriginRule
		if d.Kind == KindQA {
			origin = library.OriginModel
		}
		c := library.Card{DeckID: deck.ID, DocID: p.DocID, ChunkID: p.ID, Kind: d.Kind, Origin: origin,
			Front: d.Front, Back: d.Back, Context: d.Context, Dedup: Dedup(d.Front, d.Back),
			SpanStart: d.SpanStart, SpanEnd: d.SpanEnd, Section: p.Section}
		c.Schedule.Due = now
		place(&c, p, pages[p.DocID])
		cards = append(cards, c)
	}
	res.Made = len(cards)
	added, err := lib.AddCards(ctx, cards)
	if err != nil {
		return res, fmt.Errorf("make cards: %w", err)
	}
	res.Added, res.Existing = added, len(cards)-added
	for _, c := range cards {
		if c.ID != 0 {
			res.ByKind[c.Kind]++
		}
	}
	if res.Deck, err = lib.Deck(ctx, deck.ID, now); err != nil {
		return res, fmt.Errorf("make cards: %w", err)
	}
	return res, nil
}

// place sets a card's page coordinates from its span in passage p, whose text is the
// tail of page PageStart from Start, the non-empty pages between, and the head of page
// PageEnd, joined with one "\n" each (backend/chunk's PageSeparator).
func place(c *library.Card, p library.Chunk, pages []string) {
	c.PassagePage, c.PassageStart = p.PageStart, p.Start
	c.Page, c.Start = locate(p, pages, c.SpanStart)
	c.PageEnd, c.End = locate(p, pages, c.SpanEnd)
}

func locate(p library.Chunk, pages []string, off int) (page, pageOff int) {
	pos := 0
	for n := p.PageStart; n <= p.PageEnd && n <= len(pages); n++ {
		from, to := 0, len(pages[n-1])
		if n == p.PageStart {
			from = p.Start
		}
		if n == p.PageEnd {
			to = p.End
		}
		if n != p.PageStart && n != p.PageEnd && to == 0 {
			continue // an empty page adds no separator
		}
		if off <= pos+to-from {
			return n, from + off - pos
		}
		pos += to - from + 1
	}
	return p.PageEnd, p.End
}

// breaks returns the offsets of the page separators in passage p's text.
func breaks(p library.Chunk, pages []string) []int {
	var out []int
	pos := 0
	for n := p.PageStart; n < p.PageEnd && n <= len(pages); n++ {
		from, to := 0, len(pages[n-1])
		if n == p.PageStart {
			from = p.Start
		} else if to == 0 {
			continue
		}
		pos += to - from
		out = append(out, pos)
		pos++
	}
	return out
}

// Recheck ties cards whose passage changed (their document was re-read or re-chunked)
// to where their span is now: the first passage of the document that holds it. Cards
// whose span is gone from the document are marked stale, out of reviews, kept for the
// user to see. It returns how many cards moved and how many went stale.
func Recheck(ctx context.Context, lib *library.Library) (moved, stale int, err error) {
	off, err := lib.CardsOffPassage(ctx)
	if err != nil || len(off) == 0 {
		return 0, 0, err
	}
	byDoc := map[string][]library.Card{}
	for _, c := range off {
		byDoc[c.DocID] = append(byDoc[c.DocID], c)
	}
	for docID, cards := range byDoc {
		ps, err := lib.DocumentParents(ctx, docID)
		if err != nil {
			return moved, stale, fmt.Errorf("re-check cards: %w", err)
		}
		pages, err := lib.PageTexts(ctx, docID)
		if err != nil {
			return moved, stale, fmt.Errorf("re-check cards: %w", err)
		}
		for _, c := range cards {
			found := false
			for _, p := range ps {
				if i := strings.Index(p.Text, c.Context); i >= 0 {
					c.ChunkID, c.SpanStart, c.SpanEnd, c.Section = p.ID, i, i+len(c.Context), p.Section
					place(&c, p, pages)
					found = true
					break
				}
			}
			if err := lib.RelocateCard(ctx, c, !found); err != nil {
				return moved, stale, fmt.Errorf("re-check cards: %w", err)
			}
			if found {
				moved++
			} else {
				stale++
			}
		}
	}
	return moved, stale, nil
}

// Due returns the cards of a deck (or of every deck when deckID is empty) due at now,
// most overdue first, after re-checking cards against their documents and decks
// against their sessions' scopes.
func Due(ctx context.Context, lib *library.Library, deckID string, now time.Time, limit int) ([]library.Card, error) {
	if _, _, err := Recheck(ctx, lib); err != nil {
		return nil, err
	}
	if err := FollowSessions(ctx, lib, now); err != nil {
		return nil, err
	}
	return lib.Cards(ctx, library.CardFilter{DeckID: deckID, DueBy: now, Limit: limit})
}

// Cards returns cards chosen by f after re-checking them against their documents.
func Cards(ctx context.Context, lib *library.Library, f library.CardFilter) ([]library.Card, error) {
	if _, _, err := Recheck(ctx, lib); err != nil {
		return nil, err
	}
	if err := FollowSessions(ctx, lib, time.Now()); err != nil {
		return nil, err
	}
	return lib.Cards(ctx, f)
}

// Grade records a review of a card graded 1 (again) to 4 (easy) at now and returns the
// card with its next schedule (FSRS, default parameters, no fuzz).
func Grade(ctx context.Context, lib *library.Library, cardID int64, grade int, now time.Time) (library.Card, error) {
	c, err := lib.Card(ctx, cardID)
	if err != nil {
		return c, err
	}
	next, log, err := fsrs.Default().Next(toFSRS(c.Schedule), now, fsrs.Rating(grade))
	if err != nil {
		return c, fmt.Errorf("grade card %d: %w", cardID, err)
	}
	r := library.Review{CardID: cardID, Grade: grade, State: int(log.State), Due: log.Due, Stability: log.Stability,
		Difficulty: log.Difficulty, ElapsedDays: log.ElapsedDays, LastElapsedDays: log.LastElapsedDays,
		ScheduledDays: log.ScheduledDays, LearningSteps: log.LearningSteps, ReviewedAt: log.Review}
	if err := lib.RecordReview(ctx, &r, fromFSRS(next)); err != nil {
		return c, err
	}
	return lib.Card(ctx, cardID)
}

func toFSRS(s library.CardSchedule) fsrs.Card {
	return fsrs.Card{Due: s.Due, Stability: s.Stability, Difficulty: s.Difficulty, ElapsedDays: s.ElapsedDays,
		ScheduledDays: s.ScheduledDays, LearningSteps: s.LearningSteps, Reps: s.Reps, Lapses: s.Lapses,
		State: fsrs.State(s.State), LastReview: s.LastReview}
}

func fromFSRS(c fsrs.Card) library.CardSchedule {
	return library.CardSchedule{Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty, ElapsedDays: c.ElapsedDays,
		ScheduledDays: c.ScheduledDays, LearningSteps: c.LearningSteps, Reps: c.Reps, Lapses: c.Lapses,
		State: int(c.State), LastReview: c.LastReview}
}

// Edit sets a card's question and answer; an edit that makes it the same as another card
// of its deck fails with library.ErrDuplicate.
func Edit(ctx context.Context, lib *library.Library, cardID int64, front, back string) (library.Card, error) {
	front, back = strings.TrimSpace(front), strings.TrimSpace(back)
	if front == "" || back == "" {
		return library.Card{}, fmt.Errorf("edit card %d: a card needs a question and an answer", cardID)
	}
	if err := lib.EditCard(ctx, cardID, front, back, Dedup(front, back)); err != nil {
		return library.Card{}, err
	}
	return lib.Card(ctx, cardID)
}
