package library

import "fmt"

// schemaVersion is the version migrate brings a database to.
const schemaVersion = 1

// migrations[i] moves a database from version i to i+1.
var migrations = []string{
	`CREATE TABLE documents (
		id         TEXT PRIMARY KEY,
		path       TEXT NOT NULL,
		title      TEXT NOT NULL DEFAULT '',
		author     TEXT NOT NULL DEFAULT '',
		kind       TEXT NOT NULL DEFAULT '',
		pages      INTEGER NOT NULL DEFAULT 0,
		bytes      INTEGER NOT NULL DEFAULT 0,
		status     TEXT NOT NULL,
		error      TEXT NOT NULL DEFAULT '',
		done       INTEGER NOT NULL DEFAULT 0,
		total      INTEGER NOT NULL DEFAULT 0,
		outline    TEXT NOT NULL DEFAULT '[]',
		added_at   INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
	CREATE TABLE pages (
		doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
		number INTEGER NOT NULL,
		text   TEXT NOT NULL,
		PRIMARY KEY (doc_id, number)
	) WITHOUT ROWID;
	CREATE TABLE chunks (
		seq        INTEGER PRIMARY KEY AUTOINCREMENT,
		id         TEXT NOT NULL,
		doc_id     TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
		ord        INTEGER NOT NULL,
		page_start INTEGER NOT NULL,
		page_end   INTEGER NOT NULL,
		start_off  INTEGER NOT NULL,
		end_off    INTEGER NOT NULL,
		section    TEXT NOT NULL DEFAULT '',
		text       TEXT NOT NULL,
		embedded   INTEGER NOT NULL DEFAULT 0
	);
	CREATE INDEX chunks_doc ON chunks(doc_id, ord);
	CREATE INDEX chunks_unembedded ON chunks(seq) WHERE embedded = 0;`,
}

func (l *Library) migrate() error {
	var v int
	if err := l.db.QueryRow(`PRAGMA user_version`).Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v > schemaVersion {
		return fmt.Errorf("library schema version %d is newer than this Carrel understands (%d): update Carrel", v, schemaVersion)
	}
	for ; v < schemaVersion; v++ {
		tx, err := l.db.Begin()
		if err != nil {
			return fmt.Errorf("migrate to v%d: %w", v+1, err)
		}
		if _, err := tx.Exec(migrations[v]); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to v%d: %w", v+1, err)
		}
		if _, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, v+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate to v%d: %w", v+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate to v%d: %w", v+1, err)
		}
	}
	return nil
}
