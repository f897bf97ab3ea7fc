package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/study"
)

// SummarySection is the summary of one section of a document: sentences with [n]
// markers numbering the document's passages (Summary.Passages), and the support found
// for each sentence.
type SummarySection struct {
	Section string       `json:"section"`
	Text    string       `json:"text"`
	Claims  []chat.Claim `json:"claims"`
}

// Summary is a document's summary, section by section, saved as a message of a study
// session (so it is kept, resumed and exported like an answer).
type Summary struct {
	DocID     string             `json:"doc_id"`
	Title     string             `json:"title"`
	Mode      library.AnswerMode `json:"mode"` // model, or passages: key sentences quoted with no model
	Sections  []SummarySection   `json:"sections"`
	Passages  []chat.Passage     `json:"passages"`
	SessionID string             `json:"session_id"`
	MessageID int64              `json:"message_id"`
}

// summaryPrompt asks for one section's summary from its numbered passages.
const summaryPrompt = `You summarise one section of a student's document from its numbered passages.
Write 2 to 4 sentences with its main points, in your own words, using only the passages.
After each sentence cite the passage it comes from with its number in square brackets, like [3].`

// summaryPassages is how many passages of a section go to the model at most (with the
// prompt, well inside the 8192-token window asked for).
const summaryPassages = 8

// Summarize summarises a document section by section (map over its outline sections; a
// section whose passages exceed the window is summarised from its first ones), each
// sentence grounded to the passages in code as answers are (chat.Ground). With no chat
// model the summary is each section's key sentences, quoted from their passages. fn, if
// not nil, gets each section as it is done; returning an error stops. The summary is
// saved in sessionID (a new session when empty).
func (e *Engine) Summarize(ctx context.Context, docID, sessionID string, fn func(SummarySection) error) (*Summary, error) {
	if e.readOnly {
		return nil, e.readOnlyError()
	}
	doc, err := e.lib.Document(ctx, docID)
	if err != nil {
		return nil, fmt.Errorf("summarise: %w", err)
	}
	parents, err := e.lib.DocumentParents(ctx, docID)
	if err != nil {
		return nil, fmt.Errorf("summarise: %w", err)
	}
	sum := &Summary{DocID: docID, Title: doc.Title, Mode: library.AnswerPassages}
	useModel := e.Status(ctx).Mode != ModeNoModel
	if useModel {
		sum.Mode = library.AnswerModel
	}
	// Passages numbered across the document; sections in reading order.
	type group struct {
		section string
		idx     []int
	}
	var groups []group
	for _, p := range parents {
		if ingest.NavigationShare(p.Text) >= ingest.NavigationFrom {
			continue
		}
		n := len(sum.Passages) + 1
		sum.Passages = append(sum.Passages, chat.Passage{N: n, DocID: docID, DocTitle: doc.Title, DocPath: doc.Path,
			Page: p.PageStart, PageEnd: p.PageEnd, Start: p.Start, End: p.End, Section: p.Section, Text: p.Text})
		if len(groups) == 0 || groups[len(groups)-1].section != p.Section {
			groups = append(groups, group{section: p.Section})
		}
		groups[len(groups)-1].idx = append(groups[len(groups)-1].idx, n-1)
	}
	if len(groups) == 0 {
		return nil, errors.New("summarise: the document has no text to summarise")
	}
	for _, g := range groups {
		idx := g.idx[:min(len(g.idx), summaryPassages)]
		var text string
		if useModel {
			if text, err = e.summarizeSection(ctx, sum.Passages, idx); err != nil {
				return sum, err
			}
			text = chat.Ground(text, sum.Passages)
		} else {
			ps := make([]study.Passage, len(idx))
			for i, k := range idx {
				ps[i] = study.Passage{Text: sum.Passages[k].Text}
			}
			var b strings.Builder
			for _, x := range study.KeySentences(ps, 2) {
				p := sum.Passages[idx[x.Passage]]
				fmt.Fprintf(&b, "%s [%d] ", strings.Join(strings.Fields(p.Text[x.Start:x.End]), " "), p.N)
			}
			text = strings.TrimSpace(b.String())
		}
		if text == "" {
			continue
		}
		s := SummarySection{Section: g.section, Text: text, Claims: chat.Claims(text, sum.Passages)}
		sum.Sections = append(sum.Sections, s)
		if fn != nil {
			if err := fn(s); err != nil {
				return sum, err
			}
		}
	}
	return sum, e.saveSummary(ctx, sum, sessionID)
}

func (e *Engine) summarizeSection(ctx context.Context, all []chat.Passage, idx []int) (string, error) {
	var user strings.Builder
	for _, k := range idx {
		fmt.Fprintf(&user, "[%d] %s\n\n", all[k].N, all[k].Text)
	}
	temp := 0.0
	var out strings.Builder
	_, err := e.ollama.Chat(ctx, llm.ChatRequest{
		Model:       e.Config().ChatModel,
		Messages:    []llm.Message{{Role: "system", Content: summaryPrompt}, {Role: "user", Content: user.String()}},
		Temperature: &temp,
		MaxTokens:   300,
		NumCtx:      8192,
	}, func(d llm.Delta) error {
		out.WriteString(d.Text)
		return nil
	})
	if err != nil && !errors.Is(err, llm.ErrTruncated) {
		return "", fmt.Errorf("summarise: %w", err)
	}
	return strings.TrimSpace(out.String()), nil
}

// saveSummary keeps a summary as a message of a study session, its cited passages as the
// message's citations, so sessions show, resume and export it.
func (e *Engine) saveSummary(ctx context.Context, sum *Summary, sessionID string) error {
	if sessionID == "" {
		s := library.Session{ID: asking.NewSessionID(), Title: "Summary: " + sum.Title, DocIDs: []string{sum.DocID}}
		if err := e.lib.CreateSession(ctx, &s); err != nil {
			return fmt.Errorf("save summary: %w", err)
		}
		sessionID = s.ID
	}
	var b strings.Builder
	for _, s := range sum.Sections {
		if s.Section != "" {
			fmt.Fprintf(&b, "### %s\n\n", s.Section)
		}
		b.WriteString(s.Text + "\n\n")
	}
	text := strings.TrimSpace(b.String())
	m := library.Message{SessionID: sessionID, Question: "Summarise " + sum.Title, Answer: text, Status: library.MessageDone,
		Mode: sum.Mode, CreatedAt: time.Now().UTC()}
	if sum.Mode == library.AnswerModel {
		m.Provider, m.Model = "ollama", e.Config().ChatModel
	}
	for _, n := range chat.Markers(text, len(sum.Passages)) {
		p := sum.Passages[n-1]
		m.Citations = append(m.Citations, library.Citation{N: n, DocID: p.DocID, DocTitle: p.DocTitle, DocPath: p.DocPath,
			Page: p.Page, PageEnd: p.PageEnd, Start: p.Start, End: p.End, Section: p.Section, Text: p.Text})
	}
	if err := e.lib.AddMessage(ctx, &m); err != nil {
		return fmt.Errorf("save summary: %w", err)
	}
	sum.SessionID, sum.MessageID = sessionID, m.ID
	return nil
}
