package library

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Relocate rewrites the paths of the documents kept inside folder from (files uploaded
// into the library's inbox) to the same place under to, after the library folder moved.
// It returns how many documents it changed.
func (l *Library) Relocate(ctx context.Context, from, to string) (int, error) {
	from, to = filepath.Clean(from)+string(filepath.Separator), filepath.Clean(to)+string(filepath.Separator)
	rows, err := l.db.QueryContext(ctx, `SELECT id, path FROM documents`)
	if err != nil {
		return 0, fmt.Errorf("relocate documents: %w", err)
	}
	moved := map[string]string{}
	for rows.Next() {
		var id, path string
		if err := rows.Scan(&id, &path); err != nil {
			rows.Close()
			return 0, fmt.Errorf("relocate documents: %w", err)
		}
		if rest, ok := strings.CutPrefix(path, from); ok {
			moved[id] = to + rest
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("relocate documents: %w", err)
	}
	if len(moved) == 0 {
		return 0, nil
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("relocate documents: %w", err)
	}
	defer tx.Rollback()
	for id, path := range moved {
		if _, err := tx.ExecContext(ctx, `UPDATE documents SET path = ? WHERE id = ?`, path, id); err != nil {
			return 0, fmt.Errorf("relocate document %s: %w", id, err)
		}
	}
	if err := l.commit(tx, change{}); err != nil {
		return 0, fmt.Errorf("relocate documents: %w", err)
	}
	return len(moved), nil
}
