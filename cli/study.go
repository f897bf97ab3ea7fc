package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/study"
)

const studyUsage = `usage: carrel study cards [--json] [--model] (--session ID | DOC...)
                                      make flashcards (with no model, or with the chat model:
                                      cards its passage does not support are dropped and counted)
                                      and list the deck
       carrel study decks [--json]
       carrel study review [--json] [--deck ID | --session ID | DOC...]   the cards due now
       carrel study review [--json] --card ID --grade 1|2|3|4             grade one (again, hard, good, easy)
       carrel study export --format apkg|anki|csv|md [--out FILE] (--deck ID | --session ID | DOC...)
       carrel study quiz [--n 10] [--json] [--model] (--deck ID | --session ID | DOC...)
                                      a quiz on standard input (a letter or your answer per
                                      question; the source after each); short answers are marked
                                      by their words and meaning (the embedding model), with
                                      --model also by the chat model; --json prints it only
       carrel study scores [--json] (--deck ID | --session ID | DOC...)   quiz history
       carrel study summary [--json] [--session ID] [--section TITLE | --pages N[-M] [--text T]] DOC
                                      a summary of the document, one outline section or a selection:
                                      the chat model maps over the sections within its context
                                      window, then reduces them to an overview; every sentence
                                      cited (grounded in code; uncited ones dropped); with no model,
                                      key sentences quoted; saved in a study session (a new one
                                      without --session; carrel sessions export gives Markdown)
       carrel study edit ID --front TEXT --back TEXT
       carrel study suspend|unsuspend|delete ID
DOC is a document id (or the start of one) from carrel search --json or the app.`

// studyCmd makes, reviews and exports flashcards, quizzes on them and summarises
// documents: it reads the flags, then runs the subcommand's method of studyRun.
func studyCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	if len(args) == 0 {
		return usageError{errors.New(studyUsage)}
	}
	sub, args := args[0], args[1:]
	fsg := flag.NewFlagSet("study "+sub, flag.ContinueOnError)
	fsg.SetOutput(env.Stderr)
	r := &studyRun{ctx: ctx, eng: eng, env: env, sub: sub}
	fsg.BoolVar(&r.asJSON, "json", false, "print JSON")
	fsg.StringVar(&r.session, "session", "", "the study session whose deck to use")
	fsg.StringVar(&r.deckID, "deck", "", "deck id (see carrel study decks)")
	fsg.Int64Var(&r.card, "card", 0, "card id to grade")
	fsg.IntVar(&r.grade, "grade", 0, "1 again, 2 hard, 3 good, 4 easy")
	fsg.StringVar(&r.format, "format", "", "export format: apkg (an Anki package), anki (Anki's text import), csv or md")
	fsg.StringVar(&r.out, "out", "", "write the export to this file (default standard output)")
	fsg.StringVar(&r.front, "front", "", "the card's question")
	fsg.StringVar(&r.back, "back", "", "the card's answer")
	fsg.BoolVar(&r.withModel, "model", false, "make cards with the local chat model (Ollama) instead of the rules; in a quiz, the model judges short answers too")
	fsg.IntVar(&r.count, "n", 10, "questions in a quiz")
	fsg.StringVar(&r.section, "section", "", "summarise this outline section only (its title)")
	fsg.StringVar(&r.pages, "pages", "", "summarise a selection: pages N or N-M (with --text, the passages holding that text)")
	fsg.StringVar(&r.selText, "text", "", "the selected text, with --pages")
	var err error
	if r.args, err = parseInterspersed(fsg, args); err != nil {
		return usageError{err}
	}
	switch sub {
	case "cards":
		return r.cards()
	case "decks":
		return r.decks()
	case "review":
		return r.review()
	case "export":
		return r.export()
	case "summary":
		return r.summary()
	case "quiz", "scores":
		return r.quiz()
	case "edit", "suspend", "unsuspend", "delete":
		return r.changeCard()
	}
	return usageError{fmt.Errorf("study: unknown command %q\n%s", sub, studyUsage)}
}

// studyRun is one study subcommand: its flags, the arguments left after them, and where
// it prints.
type studyRun struct {
	ctx  context.Context
	eng  *engine.Engine
	env  Env
	sub  string
	args []string

	asJSON, withModel                    bool
	session, deckID, format, out         string
	front, back, section, pages, selText string
	card                                 int64
	grade, count                         int
}

// print writes v as JSON with --json, else runs text.
func (r *studyRun) print(v any, text func()) error {
	if r.asJSON {
		return json.NewEncoder(r.env.Stdout).Encode(v)
	}
	text()
	return nil
}

// deck names the deck the flags and arguments choose.
func (r *studyRun) deck() (string, error) {
	switch {
	case r.deckID != "":
		return r.deckID, nil
	case r.session != "":
		return study.DeckID(r.session, nil), nil
	case len(r.args) > 0:
		ids, err := docIDs(r.ctx, r.eng, r.args)
		return study.DeckID("", ids), err
	}
	return "", nil
}

// cards makes cards for a session's or documents' deck and lists the deck.
func (r *studyRun) cards() error {
	ctx, eng, env := r.ctx, r.eng, r.env
	if r.session == "" && len(r.args) == 0 {
		return usageError{errors.New("study cards: give --session ID or document ids\n" + studyUsage)}
	}
	var ids []string
	if r.session == "" {
		var err error
		if ids, err = docIDs(ctx, eng, r.args); err != nil {
			return err
		}
	}
	makeCards := eng.MakeCards
	if r.withModel {
		makeCards = func(ctx context.Context, session string, ids []string) (study.MakeResult, error) {
			return eng.MakeModelCards(ctx, session, ids, func(p study.Progress) {
				if !r.asJSON {
					fmt.Fprintf(env.Stderr, "\rasked the model about %d of %d passages, %d cards kept", p.Done, p.Total, p.Kept)
				}
			})
		}
	}
	res, err := makeCards(ctx, r.session, ids)
	if r.withModel && !r.asJSON {
		fmt.Fprintln(env.Stderr)
	}
	if err != nil {
		return err
	}
	cards, err := eng.DeckCards(ctx, res.Deck.ID)
	if err != nil {
		return err
	}
	return r.print(struct {
		study.MakeResult
		Cards []library.Card `json:"cards"`
	}{res, cards}, func() {
		fmt.Fprintf(env.Stdout, "%s: %d passages, %d cards made, %d new, %d already in the deck (%d cards, %d due)\n",
			res.Deck.Title, res.Passages, res.Made, res.Added, res.Existing, res.Deck.Cards, res.Deck.Due)
		if m := res.Model; m != nil {
			fmt.Fprintf(env.Stdout, "the model proposed %d cards from %d passages: %d kept, %d dropped %v, %d replies unusable\n",
				m.Proposed, m.Passages, m.Kept, m.Dropped, m.Reasons, m.Failed)
		}
		for _, c := range cards {
			printCard(env, c)
		}
	})
}

// decks lists the decks.
func (r *studyRun) decks() error {
	decks, err := r.eng.Decks(r.ctx)
	if err != nil {
		return err
	}
	return r.print(decks, func() {
		if len(decks) == 0 {
			fmt.Fprintln(r.env.Stdout, "No decks yet: carrel study cards DOC makes one.")
		}
		for _, d := range decks {
			fmt.Fprintf(r.env.Stdout, "%-40s %4d cards %4d due  %s\n", d.ID, d.Cards, d.Due, d.Title)
		}
	})
}

// review grades one card (--card, --grade), or lists the cards of a deck due now.
func (r *studyRun) review() error {
	if r.card != 0 || r.grade != 0 {
		if r.card <= 0 || r.grade < 1 || r.grade > 4 {
			return usageError{errors.New("study review: --card ID and --grade 1..4 go together")}
		}
		c, err := r.eng.GradeCard(r.ctx, r.card, r.grade)
		if err != nil {
			return err
		}
		return r.print(c, func() {
			fmt.Fprintf(r.env.Stdout, "card %d graded %d: due %s (%d days)\n", c.ID, r.grade,
				c.Schedule.Due.Local().Format("2006-01-02 15:04"), c.Schedule.ScheduledDays)
		})
	}
	id, err := r.deck()
	if err != nil {
		return err
	}
	due, err := r.eng.DueCards(r.ctx, id, 0)
	if err != nil {
		return err
	}
	return r.print(due, func() {
		fmt.Fprintf(r.env.Stdout, "%d cards due\n", len(due))
		for _, c := range due {
			printCard(r.env, c)
		}
	})
}

// export writes a deck in --format to --out or standard output.
func (r *studyRun) export() error {
	id, err := r.deck()
	if err != nil {
		return err
	}
	if id == "" || r.format == "" {
		return usageError{errors.New("study export: give --format and a deck (--deck, --session or document ids)")}
	}
	text, err := r.eng.ExportDeck(r.ctx, id, study.ExportFormat(r.format))
	if err != nil {
		return err
	}
	if r.out != "" {
		return os.WriteFile(r.out, []byte(text), 0o644)
	}
	_, err = fmt.Fprint(r.env.Stdout, text)
	return err
}

// summary summarises one document, one of its sections (--section) or a selection
// (--pages, --text), printing each section as it is done.
func (r *studyRun) summary() error {
	ids, err := docIDs(r.ctx, r.eng, r.args)
	if err != nil {
		return err
	}
	if len(ids) != 1 {
		return usageError{errors.New("study summary: give one document id")}
	}
	req := engine.SummaryRequest{DocID: ids[0], SessionID: r.session, Section: r.section}
	if r.pages != "" {
		var a, b int
		if n, _ := fmt.Sscanf(r.pages, "%d-%d", &a, &b); n == 0 || a < 1 {
			return usageError{errors.New("study summary: --pages N or N-M")}
		} else if n == 1 {
			b = a
		}
		req.Selection = &engine.Selection{Page: a, PageEnd: b, Text: r.selText}
	}
	sum, err := r.eng.Summarize(r.ctx, req, func(ev engine.SummaryEvent) error {
		if r.asJSON || ev.Section == nil {
			return nil
		}
		if ev.Section.Section != "" {
			fmt.Fprintf(r.env.Stdout, "\n## %s\n", ev.Section.Section)
		}
		_, err := fmt.Fprintf(r.env.Stdout, "%s\n", ev.Section.Text)
		return err
	})
	if err != nil {
		return err
	}
	return r.print(sum, func() {
		fmt.Fprintf(r.env.Stdout, "\nSaved in session %s (carrel sessions export %s).\n", sum.SessionID, sum.SessionID)
	})
}

// quiz runs a quiz on a deck on standard input, or prints its questions (--json); as
// "scores", it lists the deck's quiz history.
func (r *studyRun) quiz() error {
	id, err := r.deck()
	if err != nil {
		return err
	}
	if id == "" {
		return usageError{fmt.Errorf("study %s: give a deck (--deck, --session or document ids)", r.sub)}
	}
	if r.sub == "scores" {
		scores, err := r.eng.QuizScores(r.ctx, id)
		if err != nil {
			return err
		}
		return r.print(scores, func() {
			for _, s := range scores {
				fmt.Fprintf(r.env.Stdout, "%s  %d/%d\n", s.TakenAt.Local().Format("2006-01-02 15:04"), s.Correct, s.Questions)
			}
		})
	}
	qs, err := r.eng.Quiz(r.ctx, id, r.count)
	if err != nil {
		return err
	}
	if len(qs) == 0 {
		return errors.New("study quiz: the deck has no cards (carrel study cards DOC makes them)")
	}
	if r.asJSON {
		return json.NewEncoder(r.env.Stdout).Encode(qs)
	}
	return runQuiz(r.ctx, r.eng, id, qs, r.withModel, r.env)
}

// changeCard edits, suspends, unsuspends or deletes the card named by the one argument.
func (r *studyRun) changeCard() error {
	if len(r.args) != 1 {
		return usageError{errors.New(studyUsage)}
	}
	sub := r.sub
	n, err := strconv.ParseInt(r.args[0], 10, 64)
	if err != nil || n <= 0 {
		return usageError{fmt.Errorf("study %s: %q is not a card id", sub, r.args[0])}
	}
	switch sub {
	case "edit":
		c, err := r.eng.EditCard(r.ctx, n, r.front, r.back)
		if err != nil {
			return err
		}
		return r.print(c, func() { printCard(r.env, c) })
	case "delete":
		err = r.eng.DeleteCard(r.ctx, n)
	default:
		err = r.eng.SuspendCard(r.ctx, n, sub == "suspend")
	}
	if err != nil {
		return err
	}
	return r.print(map[string]any{"id": n, "done": sub}, func() {
		fmt.Fprintf(r.env.Stdout, "card %d: %sed\n", n, strings.TrimSuffix(sub, "e"))
	})
}

// runQuiz asks the questions on standard input and output, says after each whether it
// was right with the card's answer and source, and records the score.
func runQuiz(ctx context.Context, eng *engine.Engine, deckID string, qs []study.Question, judge bool, env Env) error {
	in := env.Stdin
	if in == nil {
		in = os.Stdin
	}
	sc := bufio.NewScanner(in)
	right, asked := 0, 0
	titles := map[string]string{}
	for i, q := range qs {
		fmt.Fprintf(env.Stdout, "\n%d/%d  %s\n", i+1, len(qs), q.Prompt)
		for k, ch := range q.Choices {
			fmt.Fprintf(env.Stdout, "   %c) %s\n", 'a'+k, ch)
		}
		fmt.Fprint(env.Stdout, "> ")
		if !sc.Scan() {
			break
		}
		given := strings.TrimSpace(sc.Text())
		asked++
		ok, how := false, ""
		if len(q.Choices) > 0 {
			if len(given) == 1 && given[0] >= 'a' && int(given[0]-'a') < len(q.Choices) {
				ok = int(given[0]-'a') == q.Answer
			} else {
				ok = strings.EqualFold(given, q.Choices[q.Answer])
			}
		} else {
			m, _, err := eng.MarkAnswer(ctx, q.CardID, given, judge)
			if err != nil {
				return err
			}
			ok = m.Correct
			if m.By != study.ByNone && m.By != study.ByWords {
				how = " (by " + string(m.By) + ")"
			}
			if m.Judge != nil && m.Judge.Reason != "" {
				how += " " + m.Judge.Reason
			}
		}
		if ok {
			right++
		}
		if _, seen := titles[q.Card.DocID]; !seen {
			if d, err := eng.Library().Document(ctx, q.Card.DocID); err == nil {
				titles[q.Card.DocID] = d.Title
			}
		}
		verdict := "Right." + how
		if !ok {
			verdict = "Not quite: " + strings.Join(strings.Fields(q.Card.Back), " ") + how
		}
		fmt.Fprintf(env.Stdout, "%s  (%s)\n   \"%s\"\n", verdict, study.Source(q.Card, titles[q.Card.DocID]), strings.Join(strings.Fields(q.Card.Context), " "))
	}
	s, err := eng.RecordQuiz(ctx, deckID, asked, right)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nScore: %d/%d\n", s.Correct, s.Questions)
	return nil
}

// parseInterspersed parses flags that may come after the arguments ("edit 12 --front Q"),
// returning the arguments.
func parseInterspersed(fsg *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fsg.Parse(args); err != nil {
			return nil, err
		}
		if fsg.NArg() == 0 {
			return rest, nil
		}
		rest = append(rest, fsg.Arg(0))
		args = fsg.Args()[1:]
	}
}

func printCard(env Env, c library.Card) {
	flags := ""
	if c.Suspended {
		flags += " (suspended)"
	}
	if c.Stale {
		flags += " (stale: its text is gone from the document)"
	}
	fmt.Fprintf(env.Stdout, "%5d  [%s] p.%d%s\n       Q: %s\n       A: %s\n", c.ID, c.Kind, c.Page, flags, c.Front, strings.Join(strings.Fields(c.Back), " "))
}

// docIDs resolves document ids or unique starts of them.
func docIDs(ctx context.Context, eng *engine.Engine, args []string) ([]string, error) {
	docs, err := eng.Library().Documents(ctx)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, a := range args {
		var match []string
		for _, d := range docs {
			if strings.HasPrefix(d.ID, a) {
				match = append(match, d.ID)
			}
		}
		switch len(match) {
		case 0:
			return nil, usageError{fmt.Errorf("no document %q in the library", a)}
		case 1:
			out = append(out, match[0])
		default:
			return nil, usageError{fmt.Errorf("%q starts %d document ids: give more of it", a, len(match))}
		}
	}
	return out, nil
}
