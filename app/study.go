package app

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/study"
)

// Flashcards (backend/study through the engine): each method translates a call and
// nothing more.

// MakeCards makes flashcards with no model: for a study session's deck (sessionID), or
// for the documents' own deck (sessionID "").
func (a *App) MakeCards(sessionID string, docIDs []string) (study.MakeResult, error) {
	defer a.ws.Enter()()
	return a.eng().MakeCards(a.ctx(), sessionID, docIDs)
}

// MakeModelCards asks the local chat model (Ollama, structured outputs) for cards for
// the documents' own deck (sessionID "") or a session's; only cards their passage
// supports are added, and the result's model part counts the others by reason.
// Progress comes as cards:progress events (passages asked of the model so far), and
// Cancel("cards:" + the first document id) stops it, keeping the cards checked so far.
func (a *App) MakeModelCards(sessionID string, docIDs []string) (study.MakeResult, error) {
	defer a.ws.Enter()()
	key := "cards:" + sessionID
	if len(docIDs) > 0 {
		key = "cards:" + docIDs[0]
	}
	ctx, cancel := context.WithCancel(a.ctx())
	a.mu.Lock()
	a.asks[key] = cancel
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.asks, key)
		a.mu.Unlock()
		cancel()
	}()
	return a.eng().MakeModelCards(ctx, sessionID, docIDs, func(p study.Progress) {
		a.emit.Emit(EventCardsProgress, CardsProgress{Key: key, Done: p.Done, Total: p.Total, Kept: p.Kept})
	})
}

// StudyDecks lists the decks with their counts of cards and of cards due now.
func (a *App) StudyDecks() ([]library.Deck, error) {
	defer a.ws.Enter()()
	return a.eng().Decks(a.ctx())
}

// DueCards lists the cards of a deck ("" for every deck) due now, most overdue first, at
// most limit (0 for all).
func (a *App) DueCards(deckID string, limit int) ([]library.Card, error) {
	defer a.ws.Enter()()
	return a.eng().DueCards(a.ctx(), deckID, limit)
}

// DeckCards lists every card of a deck, suspended and stale ones too.
func (a *App) DeckCards(deckID string) ([]library.Card, error) {
	defer a.ws.Enter()()
	return a.eng().DeckCards(a.ctx(), deckID)
}

// DueByDocument counts the cards due now per document id, for the library list.
func (a *App) DueByDocument() (map[string]int, error) {
	defer a.ws.Enter()()
	return a.eng().DueByDocument(a.ctx())
}

// GradeCard records a review: 1 again, 2 hard, 3 good, 4 easy; returns the card with its
// next due date.
func (a *App) GradeCard(cardID int64, grade int) (library.Card, error) {
	defer a.ws.Enter()()
	return a.eng().GradeCard(a.ctx(), cardID, grade)
}

// EditCard sets a card's question and answer.
func (a *App) EditCard(cardID int64, front, back string) (library.Card, error) {
	defer a.ws.Enter()()
	return a.eng().EditCard(a.ctx(), cardID, front, back)
}

// SuspendCard takes a card out of reviews, or puts it back.
func (a *App) SuspendCard(cardID int64, suspended bool) error {
	defer a.ws.Enter()()
	return a.eng().SuspendCard(a.ctx(), cardID, suspended)
}

// DeleteCard removes a card.
func (a *App) DeleteCard(cardID int64) error {
	defer a.ws.Enter()()
	return a.eng().DeleteCard(a.ctx(), cardID)
}

// ExportDeck returns a deck as an Anki package ("apkg", base64: it is a zip), Anki's
// text import ("anki"), CSV ("csv") or Markdown ("md").
func (a *App) ExportDeck(deckID string, format study.ExportFormat) (string, error) {
	defer a.ws.Enter()()
	out, err := a.eng().ExportDeck(a.ctx(), deckID, format)
	if err != nil || format != study.FormatApkg {
		return out, err
	}
	return base64.StdEncoding.EncodeToString([]byte(out)), nil
}

// SaveDeck writes a deck's export (format as for ExportDeck) to a file the user picks in
// the system's save dialog and returns its path ("" when the dialog was cancelled). The
// desktop app's way to export; the browser downloads ExportDeck's text instead.
func (a *App) SaveDeck(deckID string, format study.ExportFormat) (string, error) {
	defer a.ws.Enter()()
	if a.saveDialog == nil {
		return "", errors.New("no save dialog here: export with ExportDeck and download it")
	}
	deck, err := a.eng().Deck(a.ctx(), deckID)
	if err != nil {
		return "", err
	}
	ext := map[study.ExportFormat]string{study.FormatApkg: ".apkg", study.FormatAnki: ".txt", study.FormatCSV: ".csv", study.FormatMD: ".md"}[format]
	if ext == "" {
		return "", study.ErrFormat
	}
	path, err := a.saveDialog(fileName(deck.Title)+ext, ext)
	if err != nil || path == "" {
		return "", err
	}
	out, err := a.eng().ExportDeck(a.ctx(), deckID, format)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return "", fmt.Errorf("save deck: %w", err)
	}
	return path, nil
}

// fileName makes a title a file name: no path separators or control characters.
func fileName(title string) string {
	s := strings.Map(func(r rune) rune {
		if r < 32 || strings.ContainsRune(`\/:*?"<>|`, r) {
			return ' '
		}
		return r
	}, title)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:80])
	}
	if s == "" {
		s = "deck"
	}
	return s
}

// Quiz makes up to n questions from a deck's cards, shuffled anew each time.
func (a *App) Quiz(deckID string, n int) ([]study.Question, error) {
	defer a.ws.Enter()()
	return a.eng().Quiz(a.ctx(), deckID, n)
}

// MarkAnswer grades a short answer to a card's question against the card: by its words,
// by its meaning (the embedding model), and with judge by the local chat model's verdict.
func (a *App) MarkAnswer(cardID int64, given string, judge bool) (study.Marking, error) {
	defer a.ws.Enter()()
	m, _, err := a.eng().MarkAnswer(a.ctx(), cardID, given, judge)
	return m, err
}

// RecordQuiz keeps a quiz's score in its deck's history.
func (a *App) RecordQuiz(deckID string, questions, correct int) (library.QuizScore, error) {
	defer a.ws.Enter()()
	return a.eng().RecordQuiz(a.ctx(), deckID, questions, correct)
}

// QuizScores is a deck's quiz history, oldest first.
func (a *App) QuizScores(deckID string) ([]library.QuizScore, error) {
	defer a.ws.Enter()()
	return a.eng().QuizScores(a.ctx(), deckID)
}

// StudyStats is every deck's record for the stats view: cards, due, reviews per day,
// retention and quizzes.
func (a *App) StudyStats() ([]library.DeckStats, error) {
	defer a.ws.Enter()()
	return a.eng().StudyStats(a.ctx())
}

// StartSummary starts summarising a document, one of its outline sections or a selection
// (req), and returns the summary's id at once. It streams as summary:start, summary:token
// and summary:section events, then summary:done (saved in its study session, a new one
// when req.SessionID is "") or summary:error; Cancel(id) stops it, keeping what was done.
func (a *App) StartSummary(req engine.SummaryRequest) (string, error) {
	defer a.ws.Enter()()
	id, ctx, done := a.track("summary")
	a.ws.Track(func() {
		defer done()
		sum, err := a.eng().Summarize(ctx, req, func(ev engine.SummaryEvent) error {
			switch {
			case ev.Start != nil:
				a.emit.Emit(EventSummaryStart, SummaryStart{ID: id, DocID: ev.Start.DocID, Title: ev.Start.Title,
					Scope: ev.Start.Scope, Steps: ev.Steps, Passages: citations(ev.Start.Passages)})
			case ev.Section != nil:
				a.emit.Emit(EventSummarySection, SummaryPart{ID: id, Section: *ev.Section, Step: ev.Step, Steps: ev.Steps})
			default:
				a.emit.Emit(EventSummaryToken, SummaryToken{ID: id, Text: ev.Token, Step: ev.Step, Steps: ev.Steps, Reducing: ev.Reducing})
			}
			return nil
		})
		if sum != nil && sum.SessionID != "" {
			if s, serr := a.eng().Library().Session(a.ctx(), sum.SessionID); serr == nil {
				a.emit.Emit(EventSessionChanged, s)
			}
		}
		if err != nil {
			msg := err.Error()
			if errors.Is(err, context.Canceled) {
				msg = stoppedMessage
			}
			payload := SummaryError{ID: id, Message: msg}
			if sum != nil {
				payload.SessionID, payload.MessageID = sum.SessionID, sum.MessageID
			}
			a.emit.Emit(EventSummaryError, payload)
			return
		}
		a.emit.Emit(EventSummaryDone, SummaryDone{ID: id, Summary: *sum})
	})
	return id, nil
}

// DocumentSections lists a document's outline sections in reading order, for a summary
// of one of them.
func (a *App) DocumentSections(docID string) ([]string, error) {
	defer a.ws.Enter()()
	return a.eng().Sections(a.ctx(), docID)
}
