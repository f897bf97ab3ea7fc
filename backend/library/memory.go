package library

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// MemoryKind is what a memory says of the user.
type MemoryKind string

// Kinds of memory.
const (
	MemoryPreference MemoryKind = "preference" // how answers should be
	MemoryContext    MemoryKind = "context"    // role, field, course, level
	MemoryGoal       MemoryKind = "goal"
)

// Memory is one durable fact about the user, from their own words.
type Memory struct {
	ID   int64      `json:"id"`
	Kind MemoryKind `json:"kind"`
	// Slot names what a single-valued fact is about ("language", "role", "course"...), so
	// a new value replaces the old one; "" for facts that add up (goals, preferences).
	Slot string `json:"slot"`
	Text string `json:"text"`
	// Source is the user's sentence it came from ("" when added by hand).
	Source    string    `json:"source"`
	SessionID string    `json:"session_id"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Memories lists every memory, oldest first.
func (l *Library) Memories(ctx context.Context) ([]Memory, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT id, kind, slot, text, source, session_id, created_at, updated_at FROM memories ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list memories: %w", err)
	}
	defer rows.Close()
	out := []Memory{}
	for rows.Next() {
		var m Memory
		var c, u int64
		if err := rows.Scan(&m.ID, &m.Kind, &m.Slot, &m.Text, &m.Source, &m.SessionID, &c, &u); err != nil {
			return nil, fmt.Errorf("list memories: %w", err)
		}
		m.CreatedAt, m.UpdatedAt = time.UnixMilli(c).UTC(), time.UnixMilli(u).UTC()
		out = append(out, m)
	}
	return out, rows.Err()
}

// AddMemory stores a memory and sets its ID.
func (l *Library) AddMemory(ctx context.Context, m *Memory) error {
	now := time.Now().UTC()
	m.CreatedAt, m.UpdatedAt = now, now
	res, err := l.db.ExecContext(ctx, `INSERT INTO memories (kind, slot, text, source, session_id, created_at, updated_at)
		VALUES (?,?,?,?,?,?,?)`, m.Kind, m.Slot, m.Text, m.Source, m.SessionID, now.UnixMilli(), now.UnixMilli())
	if err != nil {
		return fmt.Errorf("save memory: %w", err)
	}
	m.ID, err = res.LastInsertId()
	return err
}

// UpdateMemory changes a memory's text (and source, when not "").
func (l *Library) UpdateMemory(ctx context.Context, id int64, text, source string) error {
	q, args := `UPDATE memories SET text=?, updated_at=?`, []any{text, time.Now().UnixMilli()}
	if source != "" {
		q, args = q+`, source=?`, append(args, source)
	}
	res, err := l.db.ExecContext(ctx, q+` WHERE id=?`, append(args, id)...)
	if err != nil {
		return fmt.Errorf("update memory %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	return nil
}

// DeleteMemory deletes a memory.
func (l *Library) DeleteMemory(ctx context.Context, id int64) error {
	res, err := l.db.ExecContext(ctx, `DELETE FROM memories WHERE id=?`, id)
	if err != nil {
		return fmt.Errorf("delete memory %d: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	return nil
}

// Memory returns one memory.
func (l *Library) Memory(ctx context.Context, id int64) (Memory, error) {
	var m Memory
	var c, u int64
	err := l.db.QueryRowContext(ctx, `SELECT id, kind, slot, text, source, session_id, created_at, updated_at FROM memories WHERE id=?`, id).
		Scan(&m.ID, &m.Kind, &m.Slot, &m.Text, &m.Source, &m.SessionID, &c, &u)
	if errors.Is(err, sql.ErrNoRows) {
		return m, fmt.Errorf("memory %d: %w", id, ErrNotFound)
	}
	m.CreatedAt, m.UpdatedAt = time.UnixMilli(c).UTC(), time.UnixMilli(u).UTC()
	return m, err
}
