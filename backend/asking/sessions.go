package asking

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/library"
)

// NewSessionID returns a fresh random session id.
func NewSessionID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// openSession loads (or creates) the session and its recent turns, applying a new scope.
func (a *Asker) openSession(ctx context.Context, question string, opt Options) (library.Session, []chat.Turn, error) {
	if opt.SessionID == "" {
		s := library.Session{ID: NewSessionID(), Title: sessionTitle(question), DocIDs: opt.DocIDs}
		if err := a.lib.CreateSession(ctx, &s); err != nil {
			return s, nil, err
		}
		return s, nil, nil
	}
	s, err := a.lib.Session(ctx, opt.SessionID)
	if err != nil {
		return s, nil, err
	}
	if opt.DocIDs != nil {
		if err := a.lib.SetSessionScope(ctx, s.ID, opt.DocIDs); err != nil {
			return s, nil, err
		}
		s.DocIDs = opt.DocIDs
	}
	msgs, err := a.lib.Messages(ctx, s.ID, chat.RewriteTurns)
	if err != nil {
		return s, nil, err
	}
	var turns []chat.Turn
	for _, m := range msgs {
		if m.Status == library.MessageFailed {
			continue
		}
		turns = append(turns, chat.Turn{Question: m.Question, Standalone: m.Standalone, Answer: m.Answer})
	}
	return s, turns, nil
}

// saveFailure records a question that got no answer at all, so history shows it.
func (a *Asker) saveFailure(sessionID, question, standalone string, err error) {
	if standalone == question {
		standalone = ""
	}
	note := ""
	if err != nil {
		note = err.Error()
	}
	a.lib.AddMessage(context.Background(), &library.Message{SessionID: sessionID, Question: question, Standalone: standalone,
		Status: library.MessageFailed, Note: note})
}

// sessionTitle names a new session after its first question.
func sessionTitle(question string) string {
	t := strings.Join(strings.Fields(question), " ")
	if r := []rune(t); len(r) > 80 {
		t = string(r[:79]) + "…"
	}
	return t
}

// SessionDetail is a session with its exchanges, for resuming or showing it.
type SessionDetail struct {
	library.Session
	Messages []SessionMessage `json:"messages"`
	// Scope names the documents in DocIDs, in order ("" for a removed document).
	Scope []string `json:"scope"`
}

// SessionMessage is a saved exchange with its claims, grounded again from the saved
// answer and citations (grounding is deterministic), for the viewer to highlight.
type SessionMessage struct {
	library.Message
	Claims []chat.Claim `json:"claims"`
	// Cached says where an answer served from the cache came from.
	Cached *chat.CachedFrom `json:"cached,omitempty"`
}

// Session returns a session with every exchange and its citations.
func (a *Asker) Session(ctx context.Context, id string) (SessionDetail, error) {
	s, err := a.lib.Session(ctx, id)
	if err != nil {
		return SessionDetail{}, err
	}
	msgs, err := a.lib.Messages(ctx, id, 0)
	if err != nil {
		return SessionDetail{}, err
	}
	hits, err := a.lib.CacheHits(ctx, id)
	if err != nil {
		return SessionDetail{}, err
	}
	d := SessionDetail{Session: s, Messages: make([]SessionMessage, len(msgs)), Scope: []string{}}
	for i, m := range msgs {
		d.Messages[i] = SessionMessage{Message: m, Claims: []chat.Claim{}}
		if src, ok := hits[m.ID]; ok {
			var from chat.CachedFrom
			if err := json.Unmarshal([]byte(src), &from); err != nil {
				slog.Warn("sessions: where a cached answer came from is recorded unreadably", "session", id, "message", m.ID, "err", err)
			} else {
				d.Messages[i].Cached = &from
			}
		}
		if m.Mode == chat.ModeModel {
			d.Messages[i].Claims = chat.Claims(m.Answer, passagesOf(m.Citations))
		}
	}
	for _, id := range s.DocIDs {
		title := ""
		if doc, err := a.lib.Document(ctx, id); err == nil {
			title = doc.Title
		}
		d.Scope = append(d.Scope, title)
	}
	return d, nil
}

func passagesOf(cs []library.Citation) []chat.Passage {
	ps := make([]chat.Passage, len(cs))
	for i, c := range cs {
		ps[i] = chat.Passage{N: c.N, DocID: c.DocID, DocTitle: c.DocTitle, DocPath: c.DocPath, Page: c.Page, PageEnd: c.PageEnd,
			Start: c.Start, End: c.End, Section: c.Section, Text: c.Text, FocusPage: c.FocusPage}
	}
	return ps
}

// Export renders a session as Markdown with numbered references.
func (a *Asker) Export(ctx context.Context, id string) (string, error) {
	d, err := a.Session(ctx, id)
	if err != nil {
		return "", err
	}
	var scope []string
	for i, t := range d.Scope {
		if t == "" {
			t = "(removed document " + shortID(d.DocIDs[i]) + ")"
		}
		scope = append(scope, t)
	}
	msgs := make([]library.Message, len(d.Messages))
	for i, m := range d.Messages {
		msgs[i] = m.Message
	}
	return chat.ExportMarkdown(d.Session, msgs, scope), nil
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// Rename sets a session's title.
func (a *Asker) Rename(ctx context.Context, id, title string) error {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return errors.New("give the session a name")
	}
	return a.lib.RenameSession(ctx, id, title)
}

// Delete removes a session; its spending stays in the total.
func (a *Asker) Delete(ctx context.Context, id string) error {
	return a.lib.DeleteSession(ctx, id)
}

// Sessions lists the sessions, most recently used first.
func (a *Asker) Sessions(ctx context.Context) ([]library.Session, error) {
	return a.lib.Sessions(ctx)
}
