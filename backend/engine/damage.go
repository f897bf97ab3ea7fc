package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/intake"
	"github.com/carrel-app/carrel/backend/library"
)

// The indexes are derived from SQLite, so a damaged index file (a truncated FAISS file,
// a bleve segment deleted or cut short by a full disk or a careless backup tool) costs
// only the time to rebuild it: it is set aside and rebuilt, and the user is told. The
// database itself is never replaced: a damaged one stops the open with a message naming
// the file (library.DamagedError).

// openLexicalKept opens the lexical index in dir; one that cannot be opened is removed
// and started afresh (reconcile then fills it from SQLite), with a notice.
func openLexicalKept(dir string, readOnly bool, notices *[]string) (*index.Lexical, error) {
	if readOnly {
		lex, err := index.OpenLexicalReadOnly(dir)
		if err != nil {
			return nil, fmt.Errorf("open the word index of a read-only library: %w", err)
		}
		return lex, nil
	}
	lex, err := openLexicalSafe(dir)
	if err == nil || errors.Is(err, fs.ErrPermission) {
		return lex, err
	}
	slog.Warn("engine: the word index is damaged; rebuilding it from the library", "dir", dir, "err", err)
	*notices = append(*notices, fmt.Sprintf("The word index was damaged (%v) and has been rebuilt from the library.", intake.OneLine(err)))
	lex, err = intake.FreshLexical(dir)
	if err != nil {
		return nil, fmt.Errorf("start the damaged word index afresh: %w", err)
	}
	return lex, nil
}

// openLexicalSafe is openLexical with a panic (bleve reading a garbled segment) turned
// into an error.
func openLexicalSafe(dir string) (lex *index.Lexical, err error) {
	defer func() {
		if r := recover(); r != nil {
			lex, err = nil, fmt.Errorf("reading it failed: %v", r)
		}
	}()
	return openLexical(dir)
}

// openVectorsKept opens a vector index (what names it for the user); a damaged one is
// moved aside to *.damaged and replaced by an empty one, with a notice. reconcile then
// marks the passages whose vectors were lost for embedding again.
func openVectorsKept(dir, what string, readOnly bool, notices *[]string) (*index.Vectors, error) {
	vec, err := index.OpenVectors(dir)
	if err == nil || readOnly || errors.Is(err, fs.ErrPermission) {
		return vec, err
	}
	slog.Warn("engine: a vector index is damaged; starting it again", "dir", dir, "err", err)
	for _, name := range []string{"vectors.faiss", "vectors.json"} {
		p := filepath.Join(dir, name)
		if err := os.Rename(p, p+".damaged"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("set the damaged %s aside: %w", what, err)
		}
	}
	vec, err2 := index.OpenVectors(dir)
	if err2 != nil {
		return nil, fmt.Errorf("open %s: %w (after %v)", what, err2, err)
	}
	*notices = append(*notices, fmt.Sprintf("The %s was damaged (%v): it was set aside as vectors.faiss.damaged and is being rebuilt; passages are embedded again when the embedding model is available.", what, intake.OneLine(err)))
	return vec, nil
}

// checkDatabaseKept refuses a library folder whose database is missing or empty while
// its indexes are there: opening it would silently start a new, empty library over the
// user's one (a database lost to a bad copy, say).
func checkDatabaseKept(dir string) error {
	db := filepath.Join(dir, library.DBName)
	if size(db) > 0 || size(db+"-wal") > 0 {
		return nil
	}
	if size(filepath.Join(dir, "vectors", "vectors.faiss")) <= 0 && size(filepath.Join(dir, "bleve", "index_meta.json")) <= 0 {
		return nil // a new library, or one that never got further than its database
	}
	state := "missing"
	if size(db) == 0 {
		state = "empty"
	}
	return fmt.Errorf("the library database %s is %s, but the folder holds the indexes of a library: "+
		"Carrel will not start a new library over it. Restore %s from a backup, or, to start again, move the folder %s away",
		db, state, library.DBName, dir)
}

// size is a file's size, or -1 if it does not exist.
func size(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// readOnlyError is what a change to a read-only library returns.
func (e *Engine) readOnlyError() error {
	return fmt.Errorf("%w: %s is on a read-only disk or folder; copy the library somewhere you can write to change it", library.ErrReadOnly, e.cfg.Dir)
}

// CheckWritable returns nil for a library that can be changed, else the error a change
// gets (library.ErrReadOnly, naming the folder): for callers that queue work, to refuse
// at once rather than fail later where the user does not look.
func (e *Engine) CheckWritable() error {
	if e.readOnly {
		return e.readOnlyError()
	}
	return nil
}

// ReadOnly reports whether the library was opened read-only (its folder cannot be
// written): searching and reading work, changes are refused.
func (e *Engine) ReadOnly() bool { return e.readOnly }

// Notices are the repairs made when the library was opened (a damaged index set aside
// and rebuilt from the database), each a sentence for the user; Status carries them too.
func (e *Engine) Notices() []string { return slices.Clone(e.notices) }

// ReadOnlyReason says what a read-only library means for the user; "" when writable.
func (e *Engine) ReadOnlyReason() string {
	if !e.readOnly {
		return ""
	}
	return "This library is on a read-only disk or folder (" + e.cfg.Dir + "): you can search and read your documents, but not add or remove documents or ask (answers are saved in the library). Copy the folder somewhere you can write to change it."
}

// openStatus fills in the status fields of a read-only library and the notices of
// the open.
func (e *Engine) openStatus(st *Status) {
	st.ReadOnly, st.ReadOnlyReason = e.readOnly, e.ReadOnlyReason()
	st.Notices = e.Notices()
}

// openLexical opens the lexical index, starting a fresh one when the stored one was
// written by an incompatible version (intake's Reconcile then fills it from SQLite).
func openLexical(dir string) (*index.Lexical, error) {
	lex, err := index.OpenLexical(dir)
	if errors.Is(err, index.ErrSchemaMismatch) {
		lex, err = intake.FreshLexical(dir)
	}
	return lex, err
}
