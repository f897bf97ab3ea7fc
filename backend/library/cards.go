package library

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"
)

// Deck is a set of flashcards: a study session's, over its document scope, or a
// document's own (SessionID empty).
type Deck struct {
	ID        string    `json:"id"`
	SessionID string    `json:"session_id"`
	Title     string    `json:"title"`
	DocIDs    []string  `json:"doc_ids"`
	CreatedAt time.Time `json:"created_at"`
	// Cards and Due are filled by [Library.Decks] and [Library.Deck]: cards not suspended,
	// and those of them due at the time asked.
	Cards int `json:"cards"`
	Due   int `json:"due"`
}

// CardSchedule is a card's spaced-repetition state (FSRS's card fields), stored as is.
type CardSchedule struct {
	State         int       `json:"state"` // 0 new, 1 learning, 2 review, 3 relearning
	Due           time.Time `json:"due"`
	Stability     float64   `json:"stability"`
	Difficulty    float64   `json:"difficulty"`
	ElapsedDays   int       `json:"elapsed_days"`
	ScheduledDays int       `json:"scheduled_days"`
	LearningSteps int       `json:"learning_steps"`
	Reps          int       `json:"reps"`
	Lapses        int       `json:"lapses"`
	LastReview    time.Time `json:"last_review"` // zero before the first review
}

// CardKind is how a card was made from its passage (see backend/study, which makes them).
type CardKind string

// Kinds of card.
const (
	CardDefinition CardKind = "definition" // "X is a …", "X refers to …", "… is called X"
	CardGlossary   CardKind = "glossary"   // "Term: explanation" or "Term — explanation" lines
	CardHeading    CardKind = "heading"    // a term a section heading introduces, blanked in its first sentence
	CardEmphasis   CardKind = "emphasis"   // a term set in emphasis (**term**, _term_), blanked
	CardCloze      CardKind = "cloze"      // a sentence with its rarest word blanked
	CardQA         CardKind = "qa"         // a model's question and answer
)

// CardOrigin is what made a card.
type CardOrigin string

// Origins of a card.
const (
	OriginRule  CardOrigin = "rule"  // Carrel's own rules, no model
	OriginModel CardOrigin = "model" // a chat model, its answer checked against the passage
)

// Card is one flashcard. Context is the span of the passage the card stands on, copied
// verbatim; for cards made without a model Back occurs in it.
type Card struct {
	ID      int64      `json:"id"`
	DeckID  string     `json:"deck_id"`
	DocID   string     `json:"doc_id"`
	ChunkID string     `json:"chunk_id"` // the passage's content hash (parents.id)
	Kind    CardKind   `json:"kind"`
	Origin  CardOrigin `json:"origin"`
	Front   string     `json:"front"`
	Back    string     `json:"back"`
	Context string     `json:"context"`
	// Dedup is the key two cards of a deck may not share (see backend/study).
	Dedup string `json:"-"`
	// SpanStart and SpanEnd are Context's byte offsets in the passage's text.
	SpanStart int `json:"span_start"`
	SpanEnd   int `json:"span_end"`
	// Page, PageEnd, Start and End place Context in the document's page texts, as a
	// citation does, for the viewer to highlight.
	Page    int    `json:"page"`
	PageEnd int    `json:"page_end"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Section string `json:"section"`
	// PassagePage and PassageStart are where the passage began (its PageStart and Start)
	// when the card was placed.
	PassagePage  int          `json:"-"`
	PassageStart int          `json:"-"`
	Suspended    bool         `json:"suspended"`
	Stale        bool         `json:"stale"` // its document was re-read and the span is no longer in it
	Schedule     CardSchedule `json:"schedule"`
	CreatedAt    time.Time    `json:"created_at"`
	UpdatedAt    time.Time    `json:"updated_at"`
}

// Review is one grading of a card and the schedule it led to (FSRS's review log).
type Review struct {
	ID              int64     `json:"id"`
	CardID          int64     `json:"card_id"`
	Grade           int       `json:"grade"` // 1 again, 2 hard, 3 good, 4 easy
	State           int       `json:"state"` // the card's state before the review
	Due             time.Time `json:"due"`   // the card's due date before the review
	Stability       float64   `json:"stability"`
	Difficulty      float64   `json:"difficulty"`
	ElapsedDays     int       `json:"elapsed_days"`
	LastElapsedDays int       `json:"last_elapsed_days"`
	ScheduledDays   int       `json:"scheduled_days"`
	LearningSteps   int       `json:"learning_steps"`
	ReviewedAt      time.Time `json:"reviewed_at"`
}

// CreateDeck stores a new deck; CreatedAt is set when zero.
func (l *Library) CreateDeck(ctx context.Context, d *Deck) error {
	if d.CreatedAt.IsZero() {
		d.CreatedAt = time.Now().UTC()
	}
	if d.DocIDs == nil {
		d.DocIDs = []string{}
	}
	ids, _ := json.Marshal(d.DocIDs)
	var session any
	if d.SessionID != "" {
		session = d.SessionID
	}
	_, err := l.db.ExecContext(ctx, `INSERT INTO decks (id, session_id, title, doc_ids, created_at) VALUES (?,?,?,?,?)`,
		d.ID, session, d.Title, string(ids), d.CreatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("create deck: %w", err)
	}
	return nil
}

// inScope keeps the cards (aliased c) of documents in their deck's scope: a study
// session's deck follows the session's documents, and cards of a document taken out of
// the scope wait, with their reviews, until it is put back.
const inScope = `EXISTS (SELECT 1 FROM decks s, json_each(s.doc_ids) j WHERE s.id = c.deck_id AND j.value = c.doc_id)`

const deckColumns = `d.id, coalesce(d.session_id, ''), d.title, d.doc_ids, d.created_at,
	(SELECT count(*) FROM cards c WHERE c.deck_id = d.id AND c.suspended = 0 AND ` + inScope + `),
	(SELECT count(*) FROM cards c WHERE c.deck_id = d.id AND c.suspended = 0 AND c.stale = 0 AND c.due <= ? AND ` + inScope + `)`

func scanDeck(row interface{ Scan(...any) error }) (Deck, error) {
	var d Deck
	var ids string
	var created int64
	if err := row.Scan(&d.ID, &d.SessionID, &d.Title, &ids, &created, &d.Cards, &d.Due); err != nil {
		return d, err
	}
	if err := json.Unmarshal([]byte(ids), &d.DocIDs); err != nil || d.DocIDs == nil {
		if err != nil {
			// The deck is still listed; its documents are not known any more.
			slog.Warn("library: a deck's documents are recorded unreadably", "deck", d.ID, "doc_ids", ids, "err", err)
		}
		d.DocIDs = []string{}
	}
	d.CreatedAt = time.UnixMilli(created).UTC()
	return d, nil
}

// Deck returns one deck with its counts of cards and of cards due at now.
func (l *Library) Deck(ctx context.Context, id string, now time.Time) (Deck, error) {
	d, err := scanDeck(l.db.QueryRowContext(ctx, `SELECT `+deckColumns+` FROM decks d WHERE d.id = ?`, now.UnixMilli(), id))
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("deck %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("read deck %s: %w", id, err)
	}
	return d, nil
}

// Decks lists every deck, oldest first, with its counts at now.
func (l *Library) Decks(ctx context.Context, now time.Time) ([]Deck, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+deckColumns+` FROM decks d ORDER BY d.created_at, d.id`, now.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("list decks: %w", err)
	}
	defer rows.Close()
	out := []Deck{}
	for rows.Next() {
		d, err := scanDeck(rows)
		if err != nil {
			return nil, fmt.Errorf("list decks: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// SetDeckScope sets a deck's title and the documents it covers: its cards of other
// documents are left out of its listings and counts (not deleted) until they are back.
func (l *Library) SetDeckScope(ctx context.Context, id, title string, docIDs []string) error {
	if docIDs == nil {
		docIDs = []string{}
	}
	b, _ := json.Marshal(docIDs)
	res, err := l.db.ExecContext(ctx, `UPDATE decks SET title=?, doc_ids=? WHERE id=?`, title, string(b), id)
	if err != nil {
		return fmt.Errorf("set deck scope %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("deck %s: %w", id, ErrNotFound)
	}
	return nil
}

// DeleteDeck removes a deck with its cards and their reviews.
func (l *Library) DeleteDeck(ctx context.Context, id string) error {
	res, err := l.db.ExecContext(ctx, `DELETE FROM decks WHERE id=?`, id)
	if err != nil {
		return fmt.Errorf("delete deck %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("deck %s: %w", id, ErrNotFound)
	}
	return nil
}

// AddCards stores new cards in one transaction and returns how many were added: a card
// whose Dedup key its deck already holds is left out (its ID stays 0). New cards are due
// at once (their Schedule.Due, or now when zero).
func (l *Library) AddCards(ctx context.Context, cards []Card) (int, error) {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("add cards: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO cards (deck_id, doc_id, chunk_id, kind, origin, front, back, context, dedup,
		span_start, span_end, page, page_end, start_off, end_off, section, passage_page, passage_start, due, created_at, updated_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT (deck_id, dedup) DO NOTHING`)
	if err != nil {
		return 0, fmt.Errorf("add cards: %w", err)
	}
	defer st.Close()
	now := time.Now().UTC()
	added := 0
	for i := range cards {
		c := &cards[i]
		if c.Schedule.Due.IsZero() {
			c.Schedule.Due = now
		}
		if c.Origin == "" {
			c.Origin = OriginRule
		}
		c.CreatedAt, c.UpdatedAt = now, now
		res, err := st.ExecContext(ctx, c.DeckID, c.DocID, c.ChunkID, c.Kind, c.Origin, c.Front, c.Back, c.Context, c.Dedup,
			c.SpanStart, c.SpanEnd, c.Page, c.PageEnd, c.Start, c.End, c.Section, c.PassagePage, c.PassageStart,
			c.Schedule.Due.UnixMilli(), now.UnixMilli(), now.UnixMilli())
		if err != nil {
			return 0, fmt.Errorf("add card %q: %w", c.Front, err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue
		}
		if c.ID, err = res.LastInsertId(); err != nil {
			return 0, fmt.Errorf("add card %q: %w", c.Front, err)
		}
		added++
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("add cards: %w", err)
	}
	return added, nil
}

const cardColumns = `id, deck_id, doc_id, chunk_id, kind, origin, front, back, context, dedup, span_start, span_end,
	page, page_end, start_off, end_off, section, passage_page, passage_start, suspended, stale, state, due, stability, difficulty, elapsed_days,
	scheduled_days, learning_steps, reps, lapses, last_review, created_at, updated_at`

func scanCard(row interface{ Scan(...any) error }) (Card, error) {
	var c Card
	var due, last, created, updated int64
	s := &c.Schedule
	err := row.Scan(&c.ID, &c.DeckID, &c.DocID, &c.ChunkID, &c.Kind, &c.Origin, &c.Front, &c.Back, &c.Context, &c.Dedup,
		&c.SpanStart, &c.SpanEnd, &c.Page, &c.PageEnd, &c.Start, &c.End, &c.Section, &c.PassagePage, &c.PassageStart,
		&c.Suspended, &c.Stale,
		&s.State, &due, &s.Stability, &s.Difficulty, &s.ElapsedDays, &s.ScheduledDays, &s.LearningSteps, &s.Reps,
		&s.Lapses, &last, &created, &updated)
	s.Due = time.UnixMilli(due).UTC()
	if last > 0 {
		s.LastReview = time.UnixMilli(last).UTC()
	}
	c.CreatedAt, c.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return c, err
}

// CardFilter chooses cards for [Library.Cards]; zero fields do not filter.
type CardFilter struct {
	DeckID string
	DocID  string
	// DueBy keeps cards due at or before it, neither suspended nor stale, most overdue first.
	DueBy time.Time
	// Active leaves suspended and stale cards out.
	Active bool
	Limit  int
}

// Cards returns the cards f chooses, in the order they were made (due order with DueBy).
func (l *Library) Cards(ctx context.Context, f CardFilter) ([]Card, error) {
	var where []string
	var args []any
	if f.DeckID != "" {
		where, args = append(where, "c.deck_id = ?", inScope), append(args, f.DeckID)
	}
	if f.DocID != "" {
		where, args = append(where, "doc_id = ?"), append(args, f.DocID)
	}
	order := "id"
	if !f.DueBy.IsZero() {
		where, args = append(where, "due <= ?"), append(args, f.DueBy.UnixMilli())
		f.Active = true
		order = "due, id"
	}
	if f.Active {
		where = append(where, "suspended = 0 AND stale = 0")
	}
	q := `SELECT ` + cardColumns + ` FROM cards c`
	if len(where) > 0 {
		q += ` WHERE ` + strings.Join(where, " AND ")
	}
	q += ` ORDER BY ` + order
	if f.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", f.Limit)
	}
	rows, err := l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list cards: %w", err)
	}
	defer rows.Close()
	out := []Card{}
	for rows.Next() {
		c, err := scanCard(rows)
		if err != nil {
			return nil, fmt.Errorf("list cards: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Card returns one card.
func (l *Library) Card(ctx context.Context, id int64) (Card, error) {
	c, err := scanCard(l.db.QueryRowContext(ctx, `SELECT `+cardColumns+` FROM cards WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("card %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("read card %d: %w", id, err)
	}
	return c, nil
}

func (l *Library) updateCard(ctx context.Context, id int64, q string, args ...any) error {
	res, err := l.db.ExecContext(ctx, q, args...)
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") {
			return fmt.Errorf("update card %d: %w", id, ErrDuplicate)
		}
		return fmt.Errorf("update card %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("card %d: %w", id, ErrNotFound)
	}
	return nil
}

// ErrDuplicate is returned when an edit would make a card the same as another of its deck.
var ErrDuplicate = errors.New("the deck already has this card")

// EditCard sets a card's front and back and its dedup key (the card keeps its schedule).
func (l *Library) EditCard(ctx context.Context, id int64, front, back, dedup string) error {
	return l.updateCard(ctx, id, `UPDATE cards SET front=?, back=?, dedup=?, updated_at=? WHERE id=?`,
		front, back, dedup, time.Now().UnixMilli(), id)
}

// SuspendCard takes a card out of reviews (or puts it back).
func (l *Library) SuspendCard(ctx context.Context, id int64, suspended bool) error {
	return l.updateCard(ctx, id, `UPDATE cards SET suspended=?, updated_at=? WHERE id=?`, suspended, time.Now().UnixMilli(), id)
}

// DeleteCard removes a card and its reviews.
func (l *Library) DeleteCard(ctx context.Context, id int64) error {
	return l.updateCard(ctx, id, `DELETE FROM cards WHERE id=?`, id)
}

// RelocateCard ties a card to where its span now is in its document's passages (after a
// re-read), or marks it stale when the span is gone (stale true, place unchanged).
func (l *Library) RelocateCard(ctx context.Context, c Card, stale bool) error {
	return l.updateCard(ctx, c.ID, `UPDATE cards SET chunk_id=?, span_start=?, span_end=?, page=?, page_end=?, start_off=?,
		end_off=?, section=?, passage_page=?, passage_start=?, stale=?, updated_at=? WHERE id=?`,
		c.ChunkID, c.SpanStart, c.SpanEnd, c.Page, c.PageEnd, c.Start, c.End, c.Section, c.PassagePage, c.PassageStart,
		stale, time.Now().UnixMilli(), c.ID)
}

// RecordReview stores a review and the card's new schedule together.
func (l *Library) RecordReview(ctx context.Context, r *Review, next CardSchedule) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("record review of card %d: %w", r.CardID, err)
	}
	defer tx.Rollback()
	var last int64
	if !next.LastReview.IsZero() {
		last = next.LastReview.UnixMilli()
	}
	res, err := tx.ExecContext(ctx, `UPDATE cards SET state=?, due=?, stability=?, difficulty=?, elapsed_days=?, scheduled_days=?,
		learning_steps=?, reps=?, lapses=?, last_review=?, updated_at=? WHERE id=?`,
		next.State, next.Due.UnixMilli(), next.Stability, next.Difficulty, next.ElapsedDays, next.ScheduledDays,
		next.LearningSteps, next.Reps, next.Lapses, last, time.Now().UnixMilli(), r.CardID)
	if err != nil {
		return fmt.Errorf("record review of card %d: %w", r.CardID, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("card %d: %w", r.CardID, ErrNotFound)
	}
	res, err = tx.ExecContext(ctx, `INSERT INTO reviews (card_id, grade, state, due, stability, difficulty, elapsed_days,
		last_elapsed_days, scheduled_days, learning_steps, reviewed_at, day) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.CardID, r.Grade, r.State, r.Due.UnixMilli(), r.Stability, r.Difficulty, r.ElapsedDays, r.LastElapsedDays,
		r.ScheduledDays, r.LearningSteps, r.ReviewedAt.UnixMilli(), r.ReviewedAt.Local().Format(time.DateOnly))
	if err != nil {
		return fmt.Errorf("record review of card %d: %w", r.CardID, err)
	}
	if r.ID, err = res.LastInsertId(); err != nil {
		return fmt.Errorf("record review of card %d: %w", r.CardID, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("record review of card %d: %w", r.CardID, err)
	}
	return nil
}

// Reviews returns a card's reviews, oldest first.
func (l *Library) Reviews(ctx context.Context, cardID int64) ([]Review, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT id, card_id, grade, state, due, stability, difficulty, elapsed_days,
		last_elapsed_days, scheduled_days, learning_steps, reviewed_at FROM reviews WHERE card_id = ? ORDER BY id`, cardID)
	if err != nil {
		return nil, fmt.Errorf("read reviews of card %d: %w", cardID, err)
	}
	defer rows.Close()
	out := []Review{}
	for rows.Next() {
		var r Review
		var due, at int64
		if err := rows.Scan(&r.ID, &r.CardID, &r.Grade, &r.State, &due, &r.Stability, &r.Difficulty, &r.ElapsedDays,
			&r.LastElapsedDays, &r.ScheduledDays, &r.LearningSteps, &at); err != nil {
			return nil, fmt.Errorf("read reviews of card %d: %w", cardID, err)
		}
		r.Due, r.ReviewedAt = time.UnixMilli(due).UTC(), time.UnixMilli(at).UTC()
		out = append(out, r)
	}
	return out, rows.Err()
}

// DueByDocument counts, per document, the active cards due at or before now.
func (l *Library) DueByDocument(ctx context.Context, now time.Time) (map[string]int, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT doc_id, count(*) FROM cards c
		WHERE suspended = 0 AND stale = 0 AND due <= ? AND `+inScope+` GROUP BY doc_id`, now.UnixMilli())
	if err != nil {
		return nil, fmt.Errorf("count due cards: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("count due cards: %w", err)
		}
		out[id] = n
	}
	return out, rows.Err()
}

// CardsOffPassage returns the cards, stale ones left out, whose span is no longer at its
// place: no passage of their document has their chunk id, starts where it started, and
// holds their context at their offsets (the document was re-read or re-chunked since).
func (l *Library) CardsOffPassage(ctx context.Context) ([]Card, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+cardColumns+` FROM cards c WHERE c.stale = 0 AND NOT EXISTS (
		SELECT 1 FROM parents p WHERE p.doc_id = c.doc_id AND p.id = c.chunk_id
		AND p.page_start = c.passage_page AND p.start_off = c.passage_start
		AND substr(CAST(p.text AS BLOB), c.span_start + 1, c.span_end - c.span_start) = CAST(c.context AS BLOB))`)
	if err != nil {
		return nil, fmt.Errorf("check cards: %w", err)
	}
	defer rows.Close()
	var out []Card
	for rows.Next() {
		c, err := scanCard(rows)
		if err != nil {
			return nil, fmt.Errorf("check cards: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// QuizScore is one quiz taken on a deck.
type QuizScore struct {
	ID        int64     `json:"id"`
	DeckID    string    `json:"deck_id"`
	Questions int       `json:"questions"`
	Correct   int       `json:"correct"`
	TakenAt   time.Time `json:"taken_at"`
}

// AddQuizScore records a quiz taken on a deck.
func (l *Library) AddQuizScore(ctx context.Context, s *QuizScore) error {
	if s.TakenAt.IsZero() {
		s.TakenAt = time.Now().UTC()
	}
	res, err := l.db.ExecContext(ctx, `INSERT INTO quiz_scores (deck_id, questions, correct, taken_at) VALUES (?,?,?,?)`,
		s.DeckID, s.Questions, s.Correct, s.TakenAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("record quiz score: %w", err)
	}
	s.ID, err = res.LastInsertId()
	return err
}

// QuizScores returns a deck's quiz scores, oldest first.
func (l *Library) QuizScores(ctx context.Context, deckID string) ([]QuizScore, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT id, deck_id, questions, correct, taken_at FROM quiz_scores
		WHERE deck_id = ? ORDER BY taken_at, id`, deckID)
	if err != nil {
		return nil, fmt.Errorf("read quiz scores: %w", err)
	}
	defer rows.Close()
	out := []QuizScore{}
	for rows.Next() {
		var s QuizScore
		var at int64
		if err := rows.Scan(&s.ID, &s.DeckID, &s.Questions, &s.Correct, &at); err != nil {
			return nil, fmt.Errorf("read quiz scores: %w", err)
		}
		s.TakenAt = time.UnixMilli(at).UTC()
		out = append(out, s)
	}
	return out, rows.Err()
}

// DeckStats is a deck's study record for the stats view.
type DeckStats struct {
	DeckID string `json:"deck_id"`
	Title  string `json:"title"`
	Cards  int    `json:"cards"`
	Due    int    `json:"due"`
	// Reviews counts every review; Days the reviews of each day (local dates) with some.
	Reviews int        `json:"reviews"`
	Days    []DayCount `json:"days"`
	// Retention is the share of reviews of cards due for review (not new or learning)
	// that were recalled (graded hard, good or easy); 0 with none (see Recalls).
	Retention float64 `json:"retention"`
	Recalls   int     `json:"recalls"` // reviews Retention is measured on
	// Quizzes taken, and the last one's score.
	Quizzes     int `json:"quizzes"`
	LastCorrect int `json:"last_correct"`
	LastOf      int `json:"last_of"`
}

// DayCount is the reviews of one day.
type DayCount struct {
	Day     string `json:"day"` // YYYY-MM-DD, local
	Reviews int    `json:"reviews"`
	Again   int    `json:"again"` // graded again (forgotten)
}

// StudyStats returns every deck's record, with counts of cards due at now.
func (l *Library) StudyStats(ctx context.Context, now time.Time) ([]DeckStats, error) {
	decks, err := l.Decks(ctx, now)
	if err != nil {
		return nil, err
	}
	out := make([]DeckStats, 0, len(decks))
	for _, d := range decks {
		s := DeckStats{DeckID: d.ID, Title: d.Title, Cards: d.Cards, Due: d.Due, Days: []DayCount{}}
		rows, err := l.db.QueryContext(ctx, `SELECT r.day, count(*), sum(r.grade = 1),
			sum(r.state = 2), sum(r.state = 2 AND r.grade > 1)
			FROM reviews r JOIN cards c ON c.id = r.card_id WHERE c.deck_id = ? GROUP BY r.day ORDER BY r.day`, d.ID)
		if err != nil {
			return nil, fmt.Errorf("study stats: %w", err)
		}
		recalled := 0
		for rows.Next() {
			var dc DayCount
			var due, ok int
			if err := rows.Scan(&dc.Day, &dc.Reviews, &dc.Again, &due, &ok); err != nil {
				rows.Close()
				return nil, fmt.Errorf("study stats: %w", err)
			}
			s.Days = append(s.Days, dc)
			s.Reviews += dc.Reviews
			s.Recalls += due
			recalled += ok
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("study stats: %w", err)
		}
		if s.Recalls > 0 {
			s.Retention = float64(recalled) / float64(s.Recalls)
		}
		err = l.db.QueryRowContext(ctx, `SELECT count(*), coalesce((SELECT correct FROM quiz_scores WHERE deck_id = ?1 ORDER BY taken_at DESC, id DESC LIMIT 1), 0),
			coalesce((SELECT questions FROM quiz_scores WHERE deck_id = ?1 ORDER BY taken_at DESC, id DESC LIMIT 1), 0)
			FROM quiz_scores WHERE deck_id = ?1`, d.ID).Scan(&s.Quizzes, &s.LastCorrect, &s.LastOf)
		if err != nil {
			return nil, fmt.Errorf("study stats: %w", err)
		}
		out = append(out, s)
	}
	return out, nil
}
