package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/study"
)

// Study: flashcards of a library (backend/study does the work; these only hand it the
// library and the time, and refuse changes to a read-only library).

// MakeCards makes cards with no model for a study session's deck (sessionID) or for the
// documents' own deck, and returns what was added.
func (e *Engine) MakeCards(ctx context.Context, sessionID string, docIDs []string) (study.MakeResult, error) {
	if e.readOnly {
		return study.MakeResult{}, e.readOnlyError()
	}
	now := time.Now()
	deck, err := study.OpenDeck(ctx, e.lib, sessionID, docIDs, now)
	if err != nil {
		return study.MakeResult{}, err
	}
	return study.Make(ctx, e.lib, deck, nil, now)
}

// MakeModelCards asks the local chat model (Ollama, structured outputs) for cards from
// the deck's documents and adds those their passages support; res.Model counts what was
// proposed, kept and dropped. progress, if not nil, hears after each passage. When ctx
// ends midway (the user stopped it) the cards checked so far are still added, and
// res.Stopped says so.
func (e *Engine) MakeModelCards(ctx context.Context, sessionID string, docIDs []string, progress func(study.Progress)) (study.MakeResult, error) {
	if e.readOnly {
		return study.MakeResult{}, e.readOnlyError()
	}
	now := time.Now()
	deck, err := study.OpenDeck(ctx, e.lib, sessionID, docIDs, now)
	if err != nil {
		return study.MakeResult{}, err
	}
	var mr study.ModelResult
	stopped := false
	res, err := study.MakeWith(context.WithoutCancel(ctx), e.lib, deck, nil, now, func(ps []study.Passage) ([]study.Draft, error) {
		drafts, r, err := study.ModelCards(ctx, e.Ollama(), study.ModelOptions{Model: e.Config().ChatModel, Progress: progress}, ps)
		mr = r
		if err != nil && ctx.Err() != nil {
			stopped = true
			return drafts, nil // keep what was checked before the stop
		}
		return drafts, err
	})
	res.Model, res.Stopped = &mr, stopped
	if err == nil && stopped {
		err = ctx.Err()
	}
	return res, err
}

// Sections lists a document's outline sections (as its passages carry them) in reading
// order, each once.
func (e *Engine) Sections(ctx context.Context, docID string) ([]string, error) {
	parents, err := e.lib.DocumentParents(ctx, docID)
	if err != nil {
		return nil, fmt.Errorf("sections: %w", err)
	}
	out := []string{}
	seen := map[string]bool{}
	for _, p := range parents {
		if p.Section != "" && !seen[p.Section] {
			seen[p.Section] = true
			out = append(out, p.Section)
		}
	}
	return out, nil
}

// Deck returns a deck with its counts now.
func (e *Engine) Deck(ctx context.Context, id string) (library.Deck, error) {
	if err := e.followSessions(ctx); err != nil {
		return library.Deck{}, err
	}
	return e.lib.Deck(ctx, id, time.Now())
}

// Decks lists the decks with their counts now.
func (e *Engine) Decks(ctx context.Context) ([]library.Deck, error) {
	if err := e.followSessions(ctx); err != nil {
		return nil, err
	}
	return e.lib.Decks(ctx, time.Now())
}

// DeckCards lists a deck's cards (every deck's when deckID is empty) in the order made.
func (e *Engine) DeckCards(ctx context.Context, deckID string) ([]library.Card, error) {
	return study.Cards(ctx, e.lib, library.CardFilter{DeckID: deckID})
}

// DueCards lists the cards of a deck (every deck's when deckID is empty) due now, most
// overdue first.
func (e *Engine) DueCards(ctx context.Context, deckID string, limit int) ([]library.Card, error) {
	return study.Due(ctx, e.lib, deckID, time.Now(), limit)
}

// DueByDocument counts the cards due now per document, for the library list.
func (e *Engine) DueByDocument(ctx context.Context) (map[string]int, error) {
	if err := e.followSessions(ctx); err != nil {
		return nil, err
	}
	return e.lib.DueByDocument(ctx, time.Now())
}

// GradeCard records a review of a card (1 again, 2 hard, 3 good, 4 easy) now.
func (e *Engine) GradeCard(ctx context.Context, id int64, grade int) (library.Card, error) {
	if e.readOnly {
		return library.Card{}, e.readOnlyError()
	}
	return study.Grade(ctx, e.lib, id, grade, time.Now())
}

// EditCard sets a card's question and answer.
func (e *Engine) EditCard(ctx context.Context, id int64, front, back string) (library.Card, error) {
	if e.readOnly {
		return library.Card{}, e.readOnlyError()
	}
	return study.Edit(ctx, e.lib, id, front, back)
}

// SuspendCard takes a card out of reviews, or puts it back.
func (e *Engine) SuspendCard(ctx context.Context, id int64, suspended bool) error {
	if e.readOnly {
		return e.readOnlyError()
	}
	return e.lib.SuspendCard(ctx, id, suspended)
}

// DeleteCard removes a card and its reviews.
func (e *Engine) DeleteCard(ctx context.Context, id int64) error {
	if e.readOnly {
		return e.readOnlyError()
	}
	return e.lib.DeleteCard(ctx, id)
}

// ExportDeck writes a deck's cards as an Anki package (bytes of a zip), Anki's text
// import, CSV or Markdown.
func (e *Engine) ExportDeck(ctx context.Context, deckID string, format study.ExportFormat) (string, error) {
	deck, err := e.Deck(ctx, deckID)
	if err != nil {
		return "", err
	}
	cards, err := e.DeckCards(ctx, deckID)
	if err != nil {
		return "", err
	}
	titles := map[string]string{}
	for _, c := range cards {
		if _, ok := titles[c.DocID]; !ok {
			d, err := e.lib.Document(ctx, c.DocID)
			if err != nil {
				return "", fmt.Errorf("export deck: %w", err)
			}
			titles[c.DocID] = d.Title
		}
	}
	var b strings.Builder
	if err := study.Export(&b, deck, cards, titles, format); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Quiz makes up to n questions from a deck's cards, shuffled anew each time.
func (e *Engine) Quiz(ctx context.Context, deckID string, n int) ([]study.Question, error) {
	cards, err := e.DeckCards(ctx, deckID)
	if err != nil {
		return nil, err
	}
	return study.MakeQuiz(cards, n, uint64(time.Now().UnixNano())), nil
}

// MarkAnswer grades a short answer to a card's question: by its words, by its meaning
// with the library's embedding model when Ollama has it (closer to the card's answer
// than to the deck's other answers), and, when judge is set and a local chat model
// answers, by that model's verdict. A grader that fails is left out: the marking of the
// others comes back, with the error only when none could grade beyond the words.
func (e *Engine) MarkAnswer(ctx context.Context, cardID int64, given string, judge bool) (study.Marking, library.Card, error) {
	c, err := e.lib.Card(ctx, cardID)
	if err != nil {
		return study.Marking{}, c, err
	}
	st := e.Status(ctx)
	var opt study.MarkOptions
	if st.embedOK {
		model := e.Config().EmbedModel
		opt.Embed = func(ctx context.Context, texts []string) ([][]float32, error) {
			return e.ollama.Embed(ctx, model, texts)
		}
		deck, err := e.lib.Cards(ctx, library.CardFilter{DeckID: c.DeckID})
		if err != nil {
			return study.Marking{}, c, err
		}
		seen := map[string]bool{strings.ToLower(c.Back): true}
		for _, o := range deck {
			if k := strings.ToLower(o.Back); !seen[k] && len(opt.Others) < maxOtherAnswers {
				seen[k] = true
				opt.Others = append(opt.Others, o.Back)
			}
		}
	}
	if judge && st.chatOK {
		opt.Judge = study.ModelJudge(e.ollama, e.Config().ChatModel)
	}
	m, err := study.Mark(ctx, c, given, opt)
	if err != nil && (m.Similarity >= 0 || m.Judge != nil) {
		err = nil // one grader failed, another answered
	}
	return m, c, err
}

// maxOtherAnswers bounds the deck's answers a short answer is compared with (one
// embedding batch).
const maxOtherAnswers = 40

// RecordQuiz keeps a quiz's score in its deck's history.
func (e *Engine) RecordQuiz(ctx context.Context, deckID string, questions, correct int) (library.QuizScore, error) {
	if e.readOnly {
		return library.QuizScore{}, e.readOnlyError()
	}
	s := library.QuizScore{DeckID: deckID, Questions: questions, Correct: correct}
	return s, e.lib.AddQuizScore(ctx, &s)
}

// QuizScores is a deck's quiz history, oldest first.
func (e *Engine) QuizScores(ctx context.Context, deckID string) ([]library.QuizScore, error) {
	return e.lib.QuizScores(ctx, deckID)
}

// StudyStats is every deck's record: cards, due, reviews per day, retention, quizzes.
func (e *Engine) StudyStats(ctx context.Context) ([]library.DeckStats, error) {
	if err := e.followSessions(ctx); err != nil {
		return nil, err
	}
	return e.lib.StudyStats(ctx, time.Now())
}

// followSessions gives session decks their sessions' scopes before they are counted; a
// read-only library is shown as it was stored.
func (e *Engine) followSessions(ctx context.Context) error {
	if e.readOnly {
		return nil
	}
	return study.FollowSessions(ctx, e.lib, time.Now())
}
