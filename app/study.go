package app

import (
	"encoding/base64"

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
func (a *App) MakeModelCards(sessionID string, docIDs []string) (study.MakeResult, error) {
	defer a.ws.Enter()()
	return a.eng().MakeModelCards(a.ctx(), sessionID, docIDs)
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
func (a *App) ExportDeck(deckID, format string) (string, error) {
	defer a.ws.Enter()()
	out, err := a.eng().ExportDeck(a.ctx(), deckID, format)
	if err != nil || format != study.FormatApkg {
		return out, err
	}
	return base64.StdEncoding.EncodeToString([]byte(out)), nil
}

// Quiz makes up to n questions from a deck's cards, shuffled anew each time.
func (a *App) Quiz(deckID string, n int) ([]study.Question, error) {
	defer a.ws.Enter()()
	return a.eng().Quiz(a.ctx(), deckID, n)
}

// MarkAnswer grades a short answer to a card's question against the card.
func (a *App) MarkAnswer(cardID int64, given string) (study.Marking, error) {
	defer a.ws.Enter()()
	m, _, err := a.eng().MarkAnswer(a.ctx(), cardID, given)
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

// Summarize summarises a document section by section, every sentence cited (the chat
// model's, grounded in code; with no model its key sentences quoted), and saves it in a
// study session (a new one when sessionID is ""), which the frontend then opens.
func (a *App) Summarize(docID, sessionID string) (engine.Summary, error) {
	defer a.ws.Enter()()
	sum, err := a.eng().Summarize(a.ctx(), docID, sessionID, nil)
	if err != nil {
		return engine.Summary{}, err
	}
	if s, err := a.eng().Library().Session(a.ctx(), sum.SessionID); err == nil {
		a.emit.Emit(EventSessionChanged, s)
	}
	return *sum, nil
}
