package library

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// DamagedError is a library database SQLite cannot read (damaged pages, or a file that
// is not a database). Carrel leaves such a file as it is and never starts a new library
// in its place: the user's sessions and documents are in it.
type DamagedError struct {
	Path string
	Err  error
}

func (e *DamagedError) Error() string {
	return fmt.Sprintf("the library database %s is damaged (%v). Carrel has not changed it. "+
		"Restore the file (or the whole library folder) from a backup, or, to start again, move the folder %s "+
		"away and add your documents to a new library", e.Path, e.Err, filepath.Dir(e.Path))
}

func (e *DamagedError) Unwrap() error { return e.Err }

// Explain turns an error that SQLite raised because the database in dir is damaged
// into a [DamagedError] naming the file and what to do; other errors pass unchanged.
func Explain(dir string, err error) error {
	var se sqlite3.Error
	var de *DamagedError
	if err == nil || errors.As(err, &de) || !errors.As(err, &se) {
		return err
	}
	if se.Code == sqlite3.ErrCorrupt || se.Code == sqlite3.ErrNotADB {
		return &DamagedError{Path: filepath.Join(dir, DBName), Err: err}
	}
	return err
}

// ErrReadOnly is returned by changes to a library opened read-only.
var ErrReadOnly = errors.New("the library is read-only")

// Writable reports whether Carrel can write in the library folder dir (creating it if
// needed): false on a read-only disk or a folder the user may not write in.
func Writable(dir string) bool {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false
	}
	f, err := os.CreateTemp(dir, ".carrel-write-check-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}

// OpenReadOnly opens the library in dir without writing anything: for a library on a
// read-only disk or folder. SQLite is told the file cannot change (immutable), which
// holds for a read-only disk; the schema must be the current one, as it cannot be
// migrated here.
func OpenReadOnly(dir string) (*Library, error) {
	path := filepath.Join(dir, DBName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open the read-only library %s: %w", dir, err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro&immutable=1&_foreign_keys=on")
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	var v int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		db.Close()
		return nil, Explain(dir, fmt.Errorf("open database %s: %w", path, err))
	}
	if v != schemaVersion {
		db.Close()
		return nil, fmt.Errorf("the library %s was written by another version of Carrel (schema %d, this one reads %d) and is on a read-only folder, so it cannot be upgraded: open it once where it can be written", dir, v, schemaVersion)
	}
	return &Library{db: db, dir: dir, readOnly: true}, nil
}

// ReadOnly reports whether the library was opened read-only.
func (l *Library) ReadOnly() bool { return l.readOnly }

// DiskFull reports whether err is a write that failed for want of disk space (SQLite's
// "database or disk is full", or ENOSPC from any file).
func DiskFull(err error) bool {
	var se sqlite3.Error
	return errors.Is(err, syscall.ENOSPC) || (errors.As(err, &se) && se.Code == sqlite3.ErrFull)
}

// isForeignKey says whether err is SQLite refusing a row whose parent is gone.
func isForeignKey(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && se.ExtendedCode == sqlite3.ErrConstraintForeignKey
}
