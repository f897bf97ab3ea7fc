package library

import (
	"context"
	"database/sql"
	"fmt"
)

// Parent is a passage given to the model with the children it is searched by.
type Parent struct {
	Chunk
	Children []Chunk
}

// insertTree stores parents and their children for docID inside tx (see ReplaceTree).
func insertTree(ctx context.Context, tx *sql.Tx, docID string, parents []Parent) error {
	ps, err := tx.PrepareContext(ctx, `INSERT INTO parents
		(id, doc_id, ord, page_start, page_end, start_off, end_off, section, text)
		VALUES (?,?,?,?,?,?,?,?,?)`)
	if err != nil {
		return fmt.Errorf("store passages of %s: %w", docID, err)
	}
	defer ps.Close()
	cs, err := tx.PrepareContext(ctx, `INSERT INTO chunks
		(id, parent_seq, doc_id, ord, page_start, page_end, start_off, end_off, section, text, embedded)
		VALUES (?,?,?,?,?,?,?,?,?,?,0)`)
	if err != nil {
		return fmt.Errorf("store chunks of %s: %w", docID, err)
	}
	defer cs.Close()
	seenParent, seenChild := map[string]bool{}, map[string]bool{}
	pOrd, cOrd := 0, 0
	for i := range parents {
		p := &parents[i]
		if seenParent[p.ID] {
			p.Children = nil
			continue
		}
		seenParent[p.ID] = true
		p.DocID, p.Ord = docID, pOrd
		pOrd++
		res, err := ps.ExecContext(ctx, p.ID, docID, p.Ord, p.PageStart, p.PageEnd, p.Start, p.End, p.Section, p.Text)
		if err != nil {
			return fmt.Errorf("store passage %d of %s: %w", i, docID, err)
		}
		if p.Seq, err = res.LastInsertId(); err != nil {
			return fmt.Errorf("store passage %d of %s: %w", i, docID, err)
		}
		kept := p.Children[:0]
		for _, c := range p.Children {
			if seenChild[c.ID] {
				continue
			}
			seenChild[c.ID] = true
			c.DocID, c.Ord, c.ParentSeq = docID, cOrd, p.Seq
			cOrd++
			res, err := cs.ExecContext(ctx, c.ID, p.Seq, docID, c.Ord, c.PageStart, c.PageEnd, c.Start, c.End, c.Section, c.Text)
			if err != nil {
				return fmt.Errorf("store chunk %d of %s: %w", c.Ord, docID, err)
			}
			if c.Seq, err = res.LastInsertId(); err != nil {
				return fmt.Errorf("store chunk %d of %s: %w", c.Ord, docID, err)
			}
			kept = append(kept, c)
		}
		p.Children = kept
	}
	return nil
}

const parentColumns = `seq, id, doc_id, ord, page_start, page_end, start_off, end_off, section, text`

func (l *Library) queryParents(ctx context.Context, where string, args ...any) ([]Chunk, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+parentColumns+` FROM parents WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read passages: %w", err)
	}
	defer rows.Close()
	var out []Chunk
	for rows.Next() {
		var c Chunk
		if err := rows.Scan(&c.Seq, &c.ID, &c.DocID, &c.Ord, &c.PageStart, &c.PageEnd, &c.Start, &c.End, &c.Section, &c.Text); err != nil {
			return nil, fmt.Errorf("read passages: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// DocumentParents returns a document's parents in order.
func (l *Library) DocumentParents(ctx context.Context, docID string) ([]Chunk, error) {
	return l.queryParents(ctx, `doc_id = ? ORDER BY ord`, docID)
}

// EachParent calls fn with every parent and its document's title, in seq order.
func (l *Library) EachParent(ctx context.Context, fn func(p Chunk, title string) error) error {
	rows, err := l.db.QueryContext(ctx, `SELECT p.seq, p.id, p.doc_id, p.ord, p.page_start, p.page_end, p.start_off, p.end_off,
		p.section, p.text, d.title FROM parents p JOIN documents d ON d.id = p.doc_id ORDER BY p.seq`)
	if err != nil {
		return fmt.Errorf("read passages: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p Chunk
		var title string
		if err := rows.Scan(&p.Seq, &p.ID, &p.DocID, &p.Ord, &p.PageStart, &p.PageEnd, &p.Start, &p.End, &p.Section, &p.Text, &title); err != nil {
			return fmt.Errorf("read passages: %w", err)
		}
		if err := fn(p, title); err != nil {
			return err
		}
	}
	return rows.Err()
}

// ParentCount returns the number of parents in the library.
func (l *Library) ParentCount(ctx context.Context) (int, error) {
	var n int
	if err := l.db.QueryRowContext(ctx, `SELECT count(*) FROM parents`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count passages: %w", err)
	}
	return n, nil
}

// Unparented lists the documents chunked before parents existed (schema v5 and older):
// their chunks have no parent. The engine re-chunks them from their stored pages.
func (l *Library) Unparented(ctx context.Context) ([]string, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT DISTINCT doc_id FROM chunks WHERE parent_seq IS NULL`)
	if err != nil {
		return nil, fmt.Errorf("find documents to re-chunk: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("find documents to re-chunk: %w", err)
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// PageTexts returns a document's page texts in order (page 1 first); a page missing from
// the store is "".
func (l *Library) PageTexts(ctx context.Context, docID string) ([]string, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT number, text FROM pages WHERE doc_id=? ORDER BY number`, docID)
	if err != nil {
		return nil, fmt.Errorf("read pages of %s: %w", docID, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var n int
		var t string
		if err := rows.Scan(&n, &t); err != nil {
			return nil, fmt.Errorf("read pages of %s: %w", docID, err)
		}
		for len(out) < n-1 {
			out = append(out, "")
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
