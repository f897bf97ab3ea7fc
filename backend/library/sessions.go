package library

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/carrel-app/carrel/backend/provider"
)

// MessageStatus is how an answer ended.
type MessageStatus string

// Message states.
const (
	MessageDone      MessageStatus = "done"      // the answer is complete
	MessageStopped   MessageStatus = "stopped"   // the user stopped it; the answer is what arrived
	MessageTruncated MessageStatus = "truncated" // the model or connection cut it short
	MessageFailed    MessageStatus = "failed"    // no answer (the error is in Note)
)

// AnswerMode is how an answer was produced. backend/chat names the same values
// (chat.ModeModel...); they are declared here because the library stores them.
type AnswerMode string

// Answer modes.
const (
	AnswerModel    AnswerMode = "model"     // a chat model wrote it
	AnswerPassages AnswerMode = "passages"  // no model: the best passages, quoted
	AnswerNotFound AnswerMode = "not_found" // nothing in the documents answers it
)

// Session is a study session: a conversation over a scope of documents.
type Session struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// DocIDs is the scope the session asks over; empty means the whole library.
	DocIDs []string `json:"doc_ids"`
	// Provider and Model answered the latest question.
	Provider  provider.Name `json:"provider"`
	Model     string        `json:"model"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
	// Messages and CostUSD are filled by [Library.Sessions] and [Library.Session].
	Messages int     `json:"messages"`
	CostUSD  float64 `json:"cost_usd"`
}

// Message is one exchange of a session: a question and its answer.
type Message struct {
	ID        int64  `json:"id"`
	SessionID string `json:"session_id"`
	// Question is the text as the user typed it.
	Question string `json:"question"`
	// Standalone is the question rewritten to stand alone, as used for retrieval.
	Standalone       string        `json:"standalone"`
	Answer           string        `json:"answer"`
	Status           MessageStatus `json:"status"`
	Mode             AnswerMode    `json:"mode"`
	Note             string        `json:"note"`
	Provider         provider.Name `json:"provider"`
	Model            string        `json:"model"`
	PromptTokens     int           `json:"prompt_tokens"`
	CompletionTokens int           `json:"completion_tokens"`
	CachedTokens     int           `json:"cached_tokens"`
	CostUSD          float64       `json:"cost_usd"`
	DurationMS       int64         `json:"duration_ms"`
	CreatedAt        time.Time     `json:"created_at"`
	Citations        []Citation    `json:"citations"`
}

// Citation is a numbered passage an answer cites, copied at answer time.
type Citation struct {
	N        int    `json:"n"`
	DocID    string `json:"doc_id"`
	DocTitle string `json:"doc_title"`
	DocPath  string `json:"doc_path"`
	Page     int    `json:"page"`
	PageEnd  int    `json:"page_end"`
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Section  string `json:"section"`
	Text     string `json:"text"`
	// FocusPage is the page the citation opens at: where the search matched, in a passage
	// over several pages (0: Page; citations saved before it was kept).
	FocusPage int `json:"focus_page,omitempty"`
}

// CreateSession stores a new session; CreatedAt and UpdatedAt are set when zero.
func (l *Library) CreateSession(ctx context.Context, s *Session) error {
	now := time.Now().UTC()
	if s.CreatedAt.IsZero() {
		s.CreatedAt = now
	}
	if s.UpdatedAt.IsZero() {
		s.UpdatedAt = s.CreatedAt
	}
	if s.DocIDs == nil {
		s.DocIDs = []string{}
	}
	ids, _ := json.Marshal(s.DocIDs)
	_, err := l.db.ExecContext(ctx, `INSERT INTO sessions (id, title, doc_ids, provider, model, created_at, updated_at)
		VALUES (?,?,?,?,?,?,?)`, s.ID, s.Title, string(ids), s.Provider, s.Model, s.CreatedAt.UnixMilli(), s.UpdatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("create session: %w", err)
	}
	return nil
}

const sessionColumns = `s.id, s.title, s.doc_ids, s.provider, s.model, s.created_at, s.updated_at,
	(SELECT count(*) FROM messages m WHERE m.session_id = s.id),
	(SELECT coalesce(sum(c.cost_usd), 0) FROM costs c WHERE c.session_id = s.id)`

func scanSession(row interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var ids string
	var created, updated int64
	if err := row.Scan(&s.ID, &s.Title, &ids, &s.Provider, &s.Model, &created, &updated, &s.Messages, &s.CostUSD); err != nil {
		return s, err
	}
	if err := json.Unmarshal([]byte(ids), &s.DocIDs); err != nil || s.DocIDs == nil {
		if err != nil {
			// Said out loud: the session's questions now search the whole library.
			slog.Warn("library: a session's scope is recorded unreadably; it is the whole library", "session", s.ID, "doc_ids", ids, "err", err)
		}
		s.DocIDs = []string{}
	}
	s.CreatedAt, s.UpdatedAt = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return s, nil
}

// Session returns one session (without its messages; see [Library.Messages]).
func (l *Library) Session(ctx context.Context, id string) (Session, error) {
	s, err := scanSession(l.db.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM sessions s WHERE s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return s, fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return s, fmt.Errorf("read session %s: %w", id, err)
	}
	return s, nil
}

// Sessions lists every session, most recently used first.
func (l *Library) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+sessionColumns+` FROM sessions s ORDER BY s.updated_at DESC, s.id`)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	out := []Session{}
	for rows.Next() {
		s, err := scanSession(rows)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// RenameSession sets a session's title.
func (l *Library) RenameSession(ctx context.Context, id, title string) error {
	return l.updateSession(ctx, id, `UPDATE sessions SET title=? WHERE id=?`, title, id)
}

// SetSessionScope sets the documents a session asks over (empty: the whole library).
func (l *Library) SetSessionScope(ctx context.Context, id string, docIDs []string) error {
	if docIDs == nil {
		docIDs = []string{}
	}
	b, _ := json.Marshal(docIDs)
	return l.updateSession(ctx, id, `UPDATE sessions SET doc_ids=? WHERE id=?`, string(b), id)
}

func (l *Library) updateSession(ctx context.Context, id, q string, args ...any) error {
	res, err := l.db.ExecContext(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("update session %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("session %s: %w", id, ErrNotFound)
	}
	return nil
}

// DeleteSession removes a session with its messages and citations. Its costs stay in the
// ledger (unattached), so the total spent and the budget still count them.
func (l *Library) DeleteSession(ctx context.Context, id string) error {
	return l.updateSession(ctx, id, `DELETE FROM sessions WHERE id=?`, id)
}

// AddMessage stores an exchange with its citations and, when it has a provider, its cost
// in the ledger; it also marks the session as used now by m's provider and model. It fills
// in m.ID and m.CreatedAt.
func (l *Library) AddMessage(ctx context.Context, m *Message) error {
	if m.CreatedAt.IsZero() {
		m.CreatedAt = time.Now().UTC()
	}
	if m.Status == "" {
		m.Status = MessageDone
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("save message: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO messages (session_id, question, standalone, answer, status, mode, note,
		provider, model, prompt_tokens, completion_tokens, cached_tokens, cost_usd, duration_ms, created_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		m.SessionID, m.Question, m.Standalone, m.Answer, m.Status, m.Mode, m.Note, m.Provider, m.Model,
		m.PromptTokens, m.CompletionTokens, m.CachedTokens, m.CostUSD, m.DurationMS, m.CreatedAt.UnixMilli())
	if isForeignKey(err) {
		// The session was deleted while its answer was being written.
		return fmt.Errorf("save message: session %s was deleted meanwhile: %w", m.SessionID, ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("save message: %w", err)
	}
	if m.ID, err = res.LastInsertId(); err != nil {
		return fmt.Errorf("save message: %w", err)
	}
	for _, c := range m.Citations {
		if _, err := tx.ExecContext(ctx, `INSERT INTO citations (message_id, n, doc_id, doc_title, doc_path, page, page_end,
			start_off, end_off, section, text) VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
			m.ID, c.N, c.DocID, c.DocTitle, c.DocPath, c.Page, c.PageEnd, c.Start, c.End, c.Section, c.Text); err != nil {
			return fmt.Errorf("save citation %d: %w", c.N, err)
		}
	}
	if m.Provider != "" && m.PromptTokens+m.CompletionTokens > 0 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO costs (session_id, message_id, provider, model, prompt_tokens,
			completion_tokens, cached_tokens, cost_usd, at) VALUES (?,?,?,?,?,?,?,?,?)`,
			m.SessionID, m.ID, m.Provider, m.Model, m.PromptTokens, m.CompletionTokens, m.CachedTokens, m.CostUSD,
			m.CreatedAt.UnixMilli()); err != nil {
			return fmt.Errorf("record cost: %w", err)
		}
	}
	set, args := `UPDATE sessions SET updated_at=?`, []any{m.CreatedAt.UnixMilli()}
	if m.Model != "" {
		set, args = set+`, provider=?, model=?`, append(args, m.Provider, m.Model)
	}
	res, err = tx.ExecContext(ctx, set+` WHERE id=?`, append(args, m.SessionID)...)
	if err != nil {
		return fmt.Errorf("save message: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("save message: session %s: %w", m.SessionID, ErrNotFound)
	}
	return tx.Commit()
}

// Messages returns a session's exchanges in order, with their citations. limit > 0 keeps
// only the last limit ones.
func (l *Library) Messages(ctx context.Context, sessionID string, limit int) ([]Message, error) {
	q := `SELECT id, session_id, question, standalone, answer, status, mode, note, provider, model, prompt_tokens,
		completion_tokens, cached_tokens, cost_usd, duration_ms, created_at FROM messages WHERE session_id = ? ORDER BY id DESC`
	args := []any{sessionID}
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := l.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	var out []Message
	for rows.Next() {
		var m Message
		var created int64
		if err := rows.Scan(&m.ID, &m.SessionID, &m.Question, &m.Standalone, &m.Answer, &m.Status, &m.Mode, &m.Note,
			&m.Provider, &m.Model, &m.PromptTokens, &m.CompletionTokens, &m.CachedTokens, &m.CostUSD, &m.DurationMS, &created); err != nil {
			rows.Close()
			return nil, fmt.Errorf("read messages: %w", err)
		}
		m.CreatedAt = time.UnixMilli(created).UTC()
		m.Citations = []Citation{}
		out = append(out, m)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read messages: %w", err)
	}
	// Oldest first.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	for i := range out {
		crow, err := l.db.QueryContext(ctx, `SELECT n, doc_id, doc_title, doc_path, page, page_end, start_off, end_off, section, text
			FROM citations WHERE message_id = ? ORDER BY n`, out[i].ID)
		if err != nil {
			return nil, fmt.Errorf("read citations: %w", err)
		}
		for crow.Next() {
			var c Citation
			if err := crow.Scan(&c.N, &c.DocID, &c.DocTitle, &c.DocPath, &c.Page, &c.PageEnd, &c.Start, &c.End, &c.Section, &c.Text); err != nil {
				crow.Close()
				return nil, fmt.Errorf("read citations: %w", err)
			}
			out[i].Citations = append(out[i].Citations, c)
		}
		crow.Close()
	}
	if out == nil {
		out = []Message{}
	}
	return out, nil
}

// Spend is money and tokens spent on cloud answers.
type Spend struct {
	CostUSD          float64 `json:"cost_usd"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Answers          int     `json:"answers"`
}

// Spent sums the cost ledger: of one session, or of everything when sessionID is "".
// Costs of deleted sessions count in the total.
func (l *Library) Spent(ctx context.Context, sessionID string) (Spend, error) {
	// Answers are the entries with tokens: a transcription (AddCost) is paid by the minute.
	q := `SELECT coalesce(sum(cost_usd), 0), coalesce(sum(prompt_tokens), 0), coalesce(sum(completion_tokens), 0),
		coalesce(sum(prompt_tokens + completion_tokens > 0), 0) FROM costs`
	var args []any
	if sessionID != "" {
		q += ` WHERE session_id = ?`
		args = append(args, sessionID)
	}
	var s Spend
	if err := l.db.QueryRowContext(ctx, q, args...).Scan(&s.CostUSD, &s.PromptTokens, &s.CompletionTokens, &s.Answers); err != nil {
		return s, fmt.Errorf("sum costs: %w", err)
	}
	return s, nil
}

// AddCost records money spent outside answers (a cloud transcription of a recording,
// paid by the minute) in the cost ledger: it counts in the total and the budget, not as
// an answer.
func (l *Library) AddCost(ctx context.Context, provider, model string, usd float64) error {
	_, err := l.db.ExecContext(ctx, `INSERT INTO costs (provider, model, cost_usd, at) VALUES (?,?,?,?)`,
		provider, model, usd, time.Now().UnixMilli())
	if err != nil {
		return fmt.Errorf("record the cost of %s: %w", model, err)
	}
	return nil
}
