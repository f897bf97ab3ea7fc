// Package library is Carrel's SQLite store: documents with their metadata, page text and
// chunks. The vector and lexical indexes are derived from it and can be rebuilt from it.
package library

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/document"
	_ "github.com/mattn/go-sqlite3" // registers the "sqlite3" driver
)

// DBName is the file name of the library database inside the library folder.
const DBName = "library.db"

// ErrNotFound is returned when a document or chunk does not exist.
var ErrNotFound = errors.New("not found")

// DocStatus is where a document is in its ingest.
type DocStatus string

// Document states, in the order a document goes through them.
const (
	StatusQueued     DocStatus = "queued"
	StatusExtracting DocStatus = "extracting"
	StatusEmbedding  DocStatus = "embedding"
	StatusReady      DocStatus = "ready"
	StatusFailed     DocStatus = "failed"
	// StatusRemoved is never stored: events carry it for a document that left the library.
	StatusRemoved DocStatus = "removed"
	// StatusFetching is never stored: events carry it for a URL being fetched, before
	// its snapshot is a document.
	StatusFetching DocStatus = "fetching"
)

// Library is an open library folder.
type Library struct {
	db       *sql.DB
	dir      string
	memo     memo // what searches read, in memory (memo.go)
	readOnly bool // OpenReadOnly
}

// Document is one source file and what Carrel knows about it.
type Document struct {
	ID        string        `json:"id"` // hex SHA-256 of the file's bytes
	Path      string        `json:"path"`
	Title     string        `json:"title"`
	Author    string        `json:"author"`
	Kind      document.Kind `json:"kind"`
	Pages     int           `json:"pages"`
	Chunks    int           `json:"chunks"`
	Bytes     int64         `json:"bytes"`
	Status    DocStatus     `json:"status"`
	Error     string        `json:"error"`
	Done      int           `json:"-"`
	Total     int           `json:"-"`
	Outline   string        `json:"-"` // JSON array of headings
	AddedAt   time.Time     `json:"added_at"`
	UpdatedAt time.Time     `json:"-"`
}

// Chunk is one passage of a document: a child, searched by vectors (table chunks), or a
// parent, the larger passage around its children that answers are given (table parents).
type Chunk struct {
	Seq       int64  // row id; a child's is also its vector id in the FAISS index
	ID        string // hex SHA-256 of the normalised text
	ParentSeq int64  // a child's parent's Seq; 0 for a parent, or a child of a library from before parents
	DocID     string
	Ord       int // position in the document
	PageStart int
	PageEnd   int
	Start     int // character offset into PageStart's text
	End       int // character offset into PageEnd's text, exclusive
	Section   string
	Text      string
	Embedded  bool
}

// Open opens (creating if needed) the library in dir and brings its schema up to date.
func Open(dir string) (*Library, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create library folder: %w", err)
	}
	path := filepath.Join(dir, DBName)
	dsn := "file:" + path + "?_foreign_keys=on&_journal_mode=WAL&_busy_timeout=5000&_txlock=immediate&_synchronous=NORMAL"
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, Explain(dir, fmt.Errorf("open database %s: %w", path, err))
	}
	l := &Library{db: db, dir: dir}
	if err := l.migrate(); err != nil {
		db.Close()
		return nil, Explain(dir, err)
	}
	return l, nil
}

// Dir is the library folder.
func (l *Library) Dir() string { return l.dir }

// Close closes the database.
func (l *Library) Close() error { return l.db.Close() }

const docColumns = `id, path, title, author, kind, pages, bytes, status, error, done, total, outline, added_at, updated_at,
	(SELECT count(*) FROM chunks c WHERE c.doc_id = documents.id)`

func scanDocument(row interface{ Scan(...any) error }) (Document, error) {
	var d Document
	var added, updated int64
	err := row.Scan(&d.ID, &d.Path, &d.Title, &d.Author, &d.Kind, &d.Pages, &d.Bytes, &d.Status, &d.Error,
		&d.Done, &d.Total, &d.Outline, &added, &updated, &d.Chunks)
	d.AddedAt = time.UnixMilli(added).UTC()
	d.UpdatedAt = time.UnixMilli(updated).UTC()
	return d, err
}

// Document returns one document by id. Documents read since the last write come from
// memory: every search looks up its hits' documents.
func (l *Library) Document(ctx context.Context, id string) (Document, error) {
	m := &l.memo
	m.mu.RLock() // a writer of passages holds mu across its commit and the forgetting
	defer m.mu.RUnlock()
	m.cmu.Lock()
	d, ok := m.docs[id]
	gen := m.gen
	m.cmu.Unlock()
	if ok {
		return d, nil
	}
	d, err := scanDocument(l.db.QueryRowContext(ctx, `SELECT `+docColumns+` FROM documents WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return d, fmt.Errorf("document %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return d, fmt.Errorf("read document %s: %w", id, err)
	}
	m.cmu.Lock()
	if m.gen == gen { // else a write since may have made d stale: do not keep it
		if m.docs == nil {
			m.docs = map[string]Document{}
		}
		m.docs[id] = d
	}
	m.cmu.Unlock()
	return d, nil
}

// Documents lists every document, newest first.
func (l *Library) Documents(ctx context.Context) ([]Document, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+docColumns+` FROM documents ORDER BY added_at DESC, title`)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	defer rows.Close()
	var out []Document
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, fmt.Errorf("list documents: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// PutDocument inserts or updates a document's metadata (not its chunks).
func (l *Library) PutDocument(ctx context.Context, d *Document) error {
	now := time.Now()
	if d.AddedAt.IsZero() {
		d.AddedAt = now
	}
	d.UpdatedAt = now
	defer l.memo.forgetDocs()
	_, err := l.db.ExecContext(ctx, `INSERT INTO documents
		(id, path, title, author, kind, pages, bytes, status, error, done, total, outline, added_at, updated_at)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)
		ON CONFLICT(id) DO UPDATE SET path=excluded.path, title=excluded.title, author=excluded.author,
		kind=excluded.kind, pages=excluded.pages, bytes=excluded.bytes, status=excluded.status,
		error=excluded.error, done=excluded.done, total=excluded.total, outline=excluded.outline,
		updated_at=excluded.updated_at`,
		d.ID, d.Path, d.Title, d.Author, d.Kind, d.Pages, d.Bytes, d.Status, d.Error, d.Done, d.Total,
		d.Outline, d.AddedAt.UnixMilli(), d.UpdatedAt.UnixMilli())
	if err != nil {
		return fmt.Errorf("save document %s: %w", d.ID, err)
	}
	return nil
}

// SetStatus records a document's state and progress.
func (l *Library) SetStatus(ctx context.Context, id string, status DocStatus, errMsg string, done, total int) error {
	defer l.memo.forgetDocs()
	_, err := l.db.ExecContext(ctx, `UPDATE documents SET status=?, error=?, done=?, total=?, updated_at=? WHERE id=?`,
		status, errMsg, done, total, time.Now().UnixMilli(), id)
	if err != nil {
		return fmt.Errorf("set status of %s: %w", id, err)
	}
	return nil
}

// ReplaceContent stores a document's page texts and chunks, replacing any it had, in one
// transaction, each chunk its own parent. It fills in each chunk's Seq, ParentSeq and DocID.
func (l *Library) ReplaceContent(ctx context.Context, docID string, pages []string, chunks []Chunk) error {
	parents := make([]Parent, len(chunks))
	for i, c := range chunks {
		parents[i] = Parent{Chunk: c, Children: []Chunk{c}}
	}
	if err := l.ReplaceTree(ctx, docID, pages, parents); err != nil {
		return err
	}
	for i, p := range parents {
		if len(p.Children) == 1 { // not a duplicate
			chunks[i] = p.Children[0]
		}
	}
	return nil
}

// ReplaceTree stores a document's page texts, parents and children, replacing any it had,
// in one transaction. It fills in Seq, DocID and Ord of each parent and child, and each
// child's ParentSeq. A passage whose text (ID) the document already has is stored once:
// a repeated parent is left out with its children (its Children become nil), a repeated
// child is left out of its parent's Children.
func (l *Library) ReplaceTree(ctx context.Context, docID string, pages []string, parents []Parent) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("store content of %s: %w", docID, err)
	}
	defer tx.Rollback()
	var c change
	if c.goneChildren, c.goneParents, err = docSeqs(ctx, tx, docID); err != nil {
		return fmt.Errorf("store content of %s: %w", docID, err)
	}
	for _, q := range []string{`DELETE FROM chunks WHERE doc_id=?`, `DELETE FROM parents WHERE doc_id=?`, `DELETE FROM pages WHERE doc_id=?`} {
		if _, err := tx.ExecContext(ctx, q, docID); err != nil {
			return fmt.Errorf("store content of %s: %w", docID, err)
		}
	}
	ps, err := tx.PrepareContext(ctx, `INSERT INTO pages (doc_id, number, text) VALUES (?,?,?)`)
	if err != nil {
		return fmt.Errorf("store pages of %s: %w", docID, err)
	}
	defer ps.Close()
	for i, t := range pages {
		if _, err := ps.ExecContext(ctx, docID, i+1, t); err != nil {
			return fmt.Errorf("store page %d of %s: %w", i+1, docID, err)
		}
	}
	if err := insertTree(ctx, tx, docID, parents); err != nil {
		return err
	}
	c.added = parents
	if err := l.commit(tx, c); err != nil {
		return fmt.Errorf("store content of %s: %w", docID, err)
	}
	return nil
}

const chunkColumns = `seq, id, COALESCE(parent_seq, 0), doc_id, ord, page_start, page_end, start_off, end_off, section, text, embedded = 1`

func scanChunk(row interface{ Scan(...any) error }) (Chunk, error) {
	var c Chunk
	err := row.Scan(&c.Seq, &c.ID, &c.ParentSeq, &c.DocID, &c.Ord, &c.PageStart, &c.PageEnd, &c.Start, &c.End, &c.Section, &c.Text, &c.Embedded)
	return c, err
}

func (l *Library) queryChunks(ctx context.Context, where string, args ...any) ([]Chunk, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT `+chunkColumns+` FROM chunks WHERE `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read chunks: %w", err)
	}
	defer rows.Close()
	var out []Chunk
	for rows.Next() {
		c, err := scanChunk(rows)
		if err != nil {
			return nil, fmt.Errorf("read chunks: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Chunks returns the chunks with the given seqs, keyed by seq; unknown seqs are absent.
func (l *Library) Chunks(ctx context.Context, seqs []int64) (map[int64]Chunk, error) {
	return bySeq(ctx, seqs, l.queryChunks)
}

// bySeq runs query over seqs in batches (SQLite caps a statement's parameters) and keys
// the rows by seq.
func bySeq(ctx context.Context, seqs []int64, query func(ctx context.Context, where string, args ...any) ([]Chunk, error)) (map[int64]Chunk, error) {
	out := make(map[int64]Chunk, len(seqs))
	for len(seqs) > 0 {
		n := min(len(seqs), 500)
		args := make([]any, n)
		for i, s := range seqs[:n] {
			args[i] = s
		}
		cs, err := query(ctx, `seq IN (?`+strings.Repeat(",?", n-1)+`)`, args...)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			out[c.Seq] = c
		}
		seqs = seqs[n:]
	}
	return out, nil
}

// DocumentChunks returns a document's chunks in order.
func (l *Library) DocumentChunks(ctx context.Context, docID string) ([]Chunk, error) {
	return l.queryChunks(ctx, `doc_id = ? ORDER BY ord`, docID)
}

// Unembedded returns up to limit chunks of ready or embedding documents that have no vector yet.
func (l *Library) Unembedded(ctx context.Context, limit int) ([]Chunk, error) {
	return l.queryChunks(ctx, `embedded = 0 ORDER BY seq LIMIT ?`, limit)
}

// The chunks.embedded column: a chunk is waiting for its vector (0), has one (1), or
// got none from the embedding model (noVector: a zero or non-finite vector, as a model
// of words gives a text of none it knows). A noVector chunk is not embedded again until
// the model changes (ResetEmbedded), and is found by its words only.
const noVector = 2

// MarkEmbedded records that the chunks with these seqs have vectors (or, false, that
// they are waiting for them again).
func (l *Library) MarkEmbedded(ctx context.Context, seqs []int64, embedded bool) error {
	state := 0
	if embedded {
		state = 1
	}
	return l.markEmbedded(ctx, seqs, state)
}

// MarkNoVector records that the embedding model gave the chunks with these seqs no
// usable vector.
func (l *Library) MarkNoVector(ctx context.Context, seqs []int64) error {
	return l.markEmbedded(ctx, seqs, noVector)
}

func (l *Library) markEmbedded(ctx context.Context, seqs []int64, state int) error {
	if len(seqs) == 0 {
		return nil
	}
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("mark embedded: %w", err)
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `UPDATE chunks SET embedded=? WHERE seq=?`)
	if err != nil {
		return fmt.Errorf("mark embedded: %w", err)
	}
	defer st.Close()
	for _, s := range seqs {
		if _, err := st.ExecContext(ctx, state, s); err != nil {
			return fmt.Errorf("mark embedded: %w", err)
		}
	}
	return tx.Commit()
}

// ResetEmbedded marks every chunk as lacking a vector (used when the embedding model changes).
func (l *Library) ResetEmbedded(ctx context.Context) error {
	_, err := l.db.ExecContext(ctx, `UPDATE chunks SET embedded=0`)
	if err != nil {
		return fmt.Errorf("reset embeddings: %w", err)
	}
	return nil
}

// PageText returns the extracted text of one page (1-based).
func (l *Library) PageText(ctx context.Context, docID string, page int) (string, error) {
	var t string
	err := l.db.QueryRowContext(ctx, `SELECT text FROM pages WHERE doc_id=? AND number=?`, docID, page).Scan(&t)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("page %d of %s: %w", page, docID, ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("read page %d of %s: %w", page, docID, err)
	}
	return t, nil
}

// DeleteDocument removes a document with its pages and chunks.
func (l *Library) DeleteDocument(ctx context.Context, id string) error {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete document %s: %w", id, err)
	}
	defer tx.Rollback()
	var c change
	if c.goneChildren, c.goneParents, err = docSeqs(ctx, tx, id); err != nil {
		return fmt.Errorf("delete document %s: %w", id, err)
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id=?`, id)
	if err != nil {
		return fmt.Errorf("delete document %s: %w", id, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("delete document %s: %w", id, ErrNotFound)
	}
	if err := l.commit(tx, c); err != nil {
		return fmt.Errorf("delete document %s: %w", id, err)
	}
	return nil
}

// docSeqs returns the seqs of a document's children and parents, read inside tx before
// they are replaced or deleted, for the memo.
func docSeqs(ctx context.Context, tx *sql.Tx, docID string) (children, parents []int64, err error) {
	for _, q := range []struct {
		sql string
		out *[]int64
	}{{`SELECT seq FROM chunks WHERE doc_id=?`, &children}, {`SELECT seq FROM parents WHERE doc_id=?`, &parents}} {
		rows, err := tx.QueryContext(ctx, q.sql, docID)
		if err != nil {
			return nil, nil, err
		}
		for rows.Next() {
			var s int64
			if err := rows.Scan(&s); err != nil {
				rows.Close()
				return nil, nil, err
			}
			*q.out = append(*q.out, s)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, nil, err
		}
	}
	return children, parents, nil
}

// Counts returns the number of documents and chunks, from memory until the next write
// (the engine asks for them on every search).
func (l *Library) Counts(ctx context.Context) (docs, chunks int, err error) {
	m := &l.memo
	m.mu.RLock()
	defer m.mu.RUnlock()
	m.cmu.Lock()
	c, ok := m.counts, m.countsOK
	gen := m.gen
	m.cmu.Unlock()
	if ok {
		return c[0], c[1], nil
	}
	err = l.db.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM documents), (SELECT count(*) FROM chunks)`).Scan(&docs, &chunks)
	if err != nil {
		return 0, 0, fmt.Errorf("count library: %w", err)
	}
	m.cmu.Lock()
	if m.gen == gen {
		m.counts, m.countsOK = [2]int{docs, chunks}, true
	}
	m.cmu.Unlock()
	return docs, chunks, nil
}

// Seqs returns the chunk seqs of the given documents. A document's seqs read since the
// last write of passages come from memory: a scoped search asks for them every time.
func (l *Library) Seqs(ctx context.Context, docIDs []string) ([]int64, error) {
	if len(docIDs) == 0 {
		return nil, nil
	}
	m := &l.memo
	m.mu.RLock() // a writer of passages holds mu across its commit and the forgetting
	defer m.mu.RUnlock()
	var out []int64
	for _, id := range docIDs {
		m.cmu.Lock()
		seqs, ok := m.seqs[id]
		m.cmu.Unlock()
		if !ok {
			var err error
			if seqs, err = l.chunkSeqs(ctx, id); err != nil {
				return nil, err
			}
			m.cmu.Lock()
			if m.seqs == nil || m.seqsN+len(seqs) > maxMemoSeqs {
				m.seqs, m.seqsN = map[string][]int64{}, 0
			}
			m.seqs[id] = seqs
			m.seqsN += len(seqs)
			m.cmu.Unlock()
		}
		out = append(out, seqs...)
	}
	return out, nil
}

// maxMemoSeqs caps the seqs Seqs keeps (8 MB); past it they start over.
const maxMemoSeqs = 1 << 20

func (l *Library) chunkSeqs(ctx context.Context, docID string) ([]int64, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT seq FROM chunks WHERE doc_id = ?`, docID)
	if err != nil {
		return nil, fmt.Errorf("read chunk seqs of %s: %w", docID, err)
	}
	defer rows.Close()
	out := []int64{} // not nil: a document without chunks is kept too
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("read chunk seqs of %s: %w", docID, err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// EmbeddedSeqs returns the seqs of every chunk recorded as having a vector.
func (l *Library) EmbeddedSeqs(ctx context.Context) ([]int64, error) {
	rows, err := l.db.QueryContext(ctx, `SELECT seq FROM chunks WHERE embedded = 1`)
	if err != nil {
		return nil, fmt.Errorf("read embedded chunks: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var s int64
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("read embedded chunks: %w", err)
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// EachChunk calls fn with every chunk and its document's title, in seq order.
func (l *Library) EachChunk(ctx context.Context, fn func(c Chunk, title string) error) error {
	rows, err := l.db.QueryContext(ctx, `SELECT c.seq, c.id, COALESCE(c.parent_seq, 0), c.doc_id, c.ord, c.page_start, c.page_end, c.start_off, c.end_off,
		c.section, c.text, c.embedded = 1, d.title FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.seq`)
	if err != nil {
		return fmt.Errorf("read chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c Chunk
		var title string
		if err := rows.Scan(&c.Seq, &c.ID, &c.ParentSeq, &c.DocID, &c.Ord, &c.PageStart, &c.PageEnd, &c.Start, &c.End, &c.Section, &c.Text, &c.Embedded, &title); err != nil {
			return fmt.Errorf("read chunks: %w", err)
		}
		if err := fn(c, title); err != nil {
			return err
		}
	}
	return rows.Err()
}
