package library

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/provider"
)

// CacheEntry is a reusable answer. The answer's citations and claims are kept as JSON
// (the library does not know their shape).
type CacheEntry struct {
	ID int64
	// Question is the standalone question answered; TextKey its normalised form.
	Question, TextKey string
	// Scope is the sorted document ids searched, comma-separated ("" = whole library).
	Scope string
	// Family is the answering model's family (provider/model without tag).
	Family   string
	Provider provider.Name
	Model    string
	// Fingerprint is the hash of the ready documents in scope when it was answered.
	Fingerprint string
	// EmbedModel embedded Question into the cache's vector index ("" = not embedded).
	EmbedModel       string
	Answer           string
	Mode             AnswerMode
	Note             string
	Citations        string // JSON
	Claims           string // JSON
	PromptTokens     int
	CompletionTokens int
	CostUSD          float64
	// Where the answer was first given.
	SessionID, SessionTitle string
	MessageID               int64
	CreatedAt               time.Time
	// DocIDs are the documents the answer searched (for eager invalidation).
	DocIDs []string
}

const cacheColumns = `id, question, text_key, scope, family, provider, model, fingerprint, embed_model, answer, mode, note,
	citations, claims, prompt_tokens, completion_tokens, cost_usd, session_id, session_title, message_id, created_at`

func scanCacheEntry(row interface{ Scan(...any) error }) (CacheEntry, error) {
	var c CacheEntry
	var at int64
	err := row.Scan(&c.ID, &c.Question, &c.TextKey, &c.Scope, &c.Family, &c.Provider, &c.Model, &c.Fingerprint, &c.EmbedModel,
		&c.Answer, &c.Mode, &c.Note, &c.Citations, &c.Claims, &c.PromptTokens, &c.CompletionTokens, &c.CostUSD,
		&c.SessionID, &c.SessionTitle, &c.MessageID, &at)
	c.CreatedAt = time.UnixMilli(at).UTC()
	return c, err
}

// AddCacheEntry stores an entry (setting its ID) with the documents it used.
func (l *Library) AddCacheEntry(ctx context.Context, c *CacheEntry) error {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = time.Now().UTC()
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store cached answer: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO cache_entries (question, text_key, scope, family, provider, model, fingerprint,
		embed_model, answer, mode, note, citations, claims, prompt_tokens, completion_tokens, cost_usd, session_id,
		session_title, message_id, created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		c.Question, c.TextKey, c.Scope, c.Family, c.Provider, c.Model, c.Fingerprint, c.EmbedModel, c.Answer, c.Mode, c.Note,
		c.Citations, c.Claims, c.PromptTokens, c.CompletionTokens, c.CostUSD, c.SessionID, c.SessionTitle, c.MessageID,
		c.CreatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("store cached answer: %w", err)
	}
	if c.ID, err = res.LastInsertId(); err != nil {
		return fmt.Errorf("store cached answer: %w", err)
	}
	for _, d := range c.DocIDs {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO cache_docs (doc_id, entry_id) VALUES (?,?)`, d, c.ID); err != nil {
			return fmt.Errorf("store cached answer's documents: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store cached answer: %w", err)
	}
	return nil
}

// CacheCandidates returns the entries for a text key in a scope and model family, newest
// first, whatever their fingerprint (the caller drops stale ones).
func (l *Library) CacheCandidates(ctx context.Context, scope, family, textKey string) ([]CacheEntry, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+cacheColumns+` FROM cache_entries WHERE scope=? AND family=? AND text_key=?
		ORDER BY id DESC`, scope, family, textKey)
	if err != nil {
		return nil, fmt.Errorf("look up cached answers: %w", err)
	}
	defer rows.Close()
	var out []CacheEntry
	for rows.Next() {
		c, err := scanCacheEntry(rows)
		if err != nil {
			return nil, fmt.Errorf("look up cached answers: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// CacheEntry returns one entry.
func (l *Library) CacheEntry(ctx context.Context, id int64) (CacheEntry, error) {
	c, err := scanCacheEntry(l.db.QueryRowContext(ctx, `SELECT `+cacheColumns+` FROM cache_entries WHERE id=?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return c, fmt.Errorf("cached answer %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return c, fmt.Errorf("read cached answer %d: %w", id, err)
	}
	return c, nil
}

// SetCacheEmbedModel records that an entry's question is now embedded by model.
func (l *Library) SetCacheEmbedModel(ctx context.Context, id int64, model string) error {
	if _, err := l.db.ExecContext(ctx, `UPDATE cache_entries SET embed_model=? WHERE id=?`, model, id); err != nil {
		return fmt.Errorf("update cached answer %d: %w", id, err)
	}
	return nil
}

// DeleteCacheEntries deletes entries by id.
func (l *Library) DeleteCacheEntries(ctx context.Context, ids []int64) error {
	for _, id := range ids {
		if _, err := l.db.ExecContext(ctx, `DELETE FROM cache_entries WHERE id=?`, id); err != nil {
			return fmt.Errorf("delete cached answer %d: %w", id, err)
		}
	}
	return nil
}

// DeleteCacheForDocument deletes every entry that searched the document and returns
// their ids.
func (l *Library) DeleteCacheForDocument(ctx context.Context, docID string) ([]int64, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT entry_id FROM cache_docs WHERE doc_id=?`, docID)
	if err != nil {
		return nil, fmt.Errorf("find cached answers of %s: %w", docID, err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("find cached answers of %s: %w", docID, err)
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find cached answers of %s: %w", docID, err)
	}
	return ids, l.DeleteCacheEntries(ctx, ids)
}

// ClearCache deletes every entry and returns how many there were.
func (l *Library) ClearCache(ctx context.Context) (int, error) {
	res, err := l.db.ExecContext(ctx, `DELETE FROM cache_entries`)
	if err != nil {
		return 0, fmt.Errorf("clear the answer cache: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// CacheIDs lists every entry's id and embedding model (to check the vector index).
func (l *Library) CacheIDs(ctx context.Context) (map[int64]string, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT id, embed_model FROM cache_entries`)
	if err != nil {
		return nil, fmt.Errorf("list cached answers: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var m string
		if err := rows.Scan(&id, &m); err != nil {
			return nil, fmt.Errorf("list cached answers: %w", err)
		}
		out[id] = m
	}
	return out, rows.Err()
}

// MarkCacheHit records that a saved message was served from the cache; source is JSON.
func (l *Library) MarkCacheHit(ctx context.Context, messageID int64, source string) error {
	if _, err := l.db.ExecContext(ctx, `INSERT OR REPLACE INTO cache_hits (message_id, source) VALUES (?,?)`, messageID, source); err != nil {
		return fmt.Errorf("record cache hit: %w", err)
	}
	return nil
}

// CacheHits returns the cache source (JSON) of each message of a session served from the
// cache, by message id.
func (l *Library) CacheHits(ctx context.Context, sessionID string) (map[int64]string, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT h.message_id, h.source FROM cache_hits h JOIN messages m ON m.id = h.message_id
		WHERE m.session_id = ?`, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read cache hits: %w", err)
	}
	defer rows.Close()
	out := map[int64]string{}
	for rows.Next() {
		var id int64
		var s string
		if err := rows.Scan(&id, &s); err != nil {
			return nil, fmt.Errorf("read cache hits: %w", err)
		}
		out[id] = s
	}
	return out, rows.Err()
}

// ScopeKey is the canonical form of a scope: sorted ids, comma-separated.
func ScopeKey(sortedIDs []string) string { return strings.Join(sortedIDs, ",") }

// Pref returns a small setting ("" when unset).
func (l *Library) Pref(ctx context.Context, key string) (string, error) {
	var v string
	err := l.db.QueryRowContext(ctx, `SELECT value FROM prefs WHERE key=?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read setting %s: %w", key, err)
	}
	return v, nil
}

// SetPref stores a small setting.
func (l *Library) SetPref(ctx context.Context, key, value string) error {
	if _, err := l.db.ExecContext(ctx, `INSERT INTO prefs (key, value) VALUES (?,?) ON CONFLICT(key) DO UPDATE SET value=excluded.value`,
		key, value); err != nil {
		return fmt.Errorf("save setting %s: %w", key, err)
	}
	return nil
}
