package library

import "fmt"

// schemaVersion is the version migrate brings a database to.
const schemaVersion = 9

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

	// v2: study sessions. A message is one exchange: the question as typed, the
	// standalone question it was rewritten into for retrieval, and the answer with its
	// citations and usage. Citations copy the passage they quote, so a session still reads
	// right after its documents are removed. Costs are a ledger apart from messages, so
	// that deleting a session does not make past spending (and the budget) forget it.
	`CREATE TABLE sessions (
		id         TEXT PRIMARY KEY,
		title      TEXT NOT NULL DEFAULT '',
		doc_ids    TEXT NOT NULL DEFAULT '[]',
		provider   TEXT NOT NULL DEFAULT '',
		model      TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
	CREATE TABLE messages (
		id                INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id        TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
		question          TEXT NOT NULL,
		standalone        TEXT NOT NULL DEFAULT '',
		answer            TEXT NOT NULL DEFAULT '',
		status            TEXT NOT NULL DEFAULT 'done',
		mode              TEXT NOT NULL DEFAULT '',
		note              TEXT NOT NULL DEFAULT '',
		provider          TEXT NOT NULL DEFAULT '',
		model             TEXT NOT NULL DEFAULT '',
		prompt_tokens     INTEGER NOT NULL DEFAULT 0,
		completion_tokens INTEGER NOT NULL DEFAULT 0,
		cached_tokens     INTEGER NOT NULL DEFAULT 0,
		cost_usd          REAL NOT NULL DEFAULT 0,
		duration_ms       INTEGER NOT NULL DEFAULT 0,
		created_at        INTEGER NOT NULL
	);
	CREATE INDEX messages_session ON messages(session_id, id);
	CREATE TABLE citations (
		message_id INTEGER NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
		n          INTEGER NOT NULL,
		doc_id     TEXT NOT NULL,
		doc_title  TEXT NOT NULL DEFAULT '',
		doc_path   TEXT NOT NULL DEFAULT '',
		page       INTEGER NOT NULL DEFAULT 0,
		page_end   INTEGER NOT NULL DEFAULT 0,
		start_off  INTEGER NOT NULL DEFAULT 0,
		end_off    INTEGER NOT NULL DEFAULT 0,
		section    TEXT NOT NULL DEFAULT '',
		text       TEXT NOT NULL,
		PRIMARY KEY (message_id, n)
	) WITHOUT ROWID;
	CREATE TABLE costs (
		id                INTEGER PRIMARY KEY AUTOINCREMENT,
		session_id        TEXT REFERENCES sessions(id) ON DELETE SET NULL,
		message_id        INTEGER REFERENCES messages(id) ON DELETE SET NULL,
		provider          TEXT NOT NULL,
		model             TEXT NOT NULL,
		prompt_tokens     INTEGER NOT NULL DEFAULT 0,
		completion_tokens INTEGER NOT NULL DEFAULT 0,
		cached_tokens     INTEGER NOT NULL DEFAULT 0,
		cost_usd          REAL NOT NULL DEFAULT 0,
		at                INTEGER NOT NULL
	);
	CREATE INDEX costs_session ON costs(session_id);`,

	// v3: answer metrics, one row per answer, kept when sessions are deleted, so that the
	// stats view can say whether the cache and the models pay.
	`CREATE TABLE answer_metrics (
		id                INTEGER PRIMARY KEY AUTOINCREMENT,
		at                INTEGER NOT NULL,
		day               TEXT NOT NULL,
		mode              TEXT NOT NULL,
		provider          TEXT NOT NULL DEFAULT '',
		model             TEXT NOT NULL DEFAULT '',
		cached            INTEGER NOT NULL DEFAULT 0,
		status            TEXT NOT NULL,
		retrieval_ms      REAL NOT NULL DEFAULT 0,
		ttft_ms           REAL NOT NULL DEFAULT 0,
		total_ms          REAL NOT NULL DEFAULT 0,
		prompt_tokens     INTEGER NOT NULL DEFAULT 0,
		completion_tokens INTEGER NOT NULL DEFAULT 0,
		cost_usd          REAL NOT NULL DEFAULT 0,
		saved_usd         REAL NOT NULL DEFAULT 0
	);
	CREATE INDEX answer_metrics_day ON answer_metrics(day);`,

	// v4: the answer cache and long-term memory. A cache entry is a reusable answer keyed
	// by its standalone question (text key here, embedding in DIR/cache/), valid only for
	// its scope, model family and the fingerprint of the documents it searched;
	// cache_docs lists those documents so that changing one drops the entry. cache_hits
	// remembers which saved messages were served from the cache. memories are facts the
	// user told about themselves; prefs holds small settings (memory on/off).
	`CREATE TABLE cache_entries (
		id                INTEGER PRIMARY KEY AUTOINCREMENT,
		question          TEXT NOT NULL,
		text_key          TEXT NOT NULL,
		scope             TEXT NOT NULL DEFAULT '',
		family            TEXT NOT NULL,
		provider          TEXT NOT NULL DEFAULT '',
		model             TEXT NOT NULL DEFAULT '',
		fingerprint       TEXT NOT NULL,
		embed_model       TEXT NOT NULL DEFAULT '',
		answer            TEXT NOT NULL,
		mode              TEXT NOT NULL,
		note              TEXT NOT NULL DEFAULT '',
		citations         TEXT NOT NULL DEFAULT '[]',
		claims            TEXT NOT NULL DEFAULT '[]',
		prompt_tokens     INTEGER NOT NULL DEFAULT 0,
		completion_tokens INTEGER NOT NULL DEFAULT 0,
		cost_usd          REAL NOT NULL DEFAULT 0,
		session_id        TEXT NOT NULL DEFAULT '',
		session_title     TEXT NOT NULL DEFAULT '',
		message_id        INTEGER NOT NULL DEFAULT 0,
		created_at        INTEGER NOT NULL
	);
	CREATE INDEX cache_entries_lookup ON cache_entries(scope, family, text_key);
	CREATE TABLE cache_docs (
		doc_id   TEXT NOT NULL,
		entry_id INTEGER NOT NULL REFERENCES cache_entries(id) ON DELETE CASCADE,
		PRIMARY KEY (doc_id, entry_id)
	) WITHOUT ROWID;
	CREATE INDEX cache_docs_entry ON cache_docs(entry_id);
	CREATE TABLE cache_hits (
		message_id INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
		source     TEXT NOT NULL
	);
	CREATE TABLE memories (
		id         INTEGER PRIMARY KEY AUTOINCREMENT,
		kind       TEXT NOT NULL,
		slot       TEXT NOT NULL DEFAULT '',
		text       TEXT NOT NULL,
		source     TEXT NOT NULL DEFAULT '',
		session_id TEXT NOT NULL DEFAULT '',
		created_at INTEGER NOT NULL,
		updated_at INTEGER NOT NULL
	);
	CREATE TABLE prefs (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	);`,

	// v5: where the words of a page read by OCR are (words.go), so that the viewer can
	// highlight a passage on a scanned page, which has no text layer. One row per page,
	// the words packed in a blob: a scanned book has hundreds of words per page.
	`CREATE TABLE page_words (
		doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
		number INTEGER NOT NULL,
		width  REAL NOT NULL,
		height REAL NOT NULL,
		words  BLOB NOT NULL,
		PRIMARY KEY (doc_id, number)
	) WITHOUT ROWID;`,

	// v6: parents. A chunk (child, searched by vectors) belongs to a parent, the larger
	// passage around it that answers are given. Chunks of older libraries have no parent
	// (parent_seq NULL): the engine re-chunks those documents from their stored pages when
	// it opens the library (library.Unparented), so no file has to be read again.
	`CREATE TABLE parents (
		seq        INTEGER PRIMARY KEY AUTOINCREMENT,
		id         TEXT NOT NULL,
		doc_id     TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
		ord        INTEGER NOT NULL,
		page_start INTEGER NOT NULL,
		page_end   INTEGER NOT NULL,
		start_off  INTEGER NOT NULL,
		end_off    INTEGER NOT NULL,
		section    TEXT NOT NULL DEFAULT '',
		text       TEXT NOT NULL
	);
	CREATE INDEX parents_doc ON parents(doc_id, ord);
	ALTER TABLE chunks ADD COLUMN parent_seq INTEGER REFERENCES parents(seq) ON DELETE CASCADE;
	CREATE INDEX chunks_parent ON chunks(parent_seq);`,

	// v7: study decks, flashcards and their reviews (backend/study). A deck belongs to a
	// study session (or to no session: a document's own deck) and names its document scope.
	// A card ties to the passage it was made from by the passage's content hash (chunk_id;
	// parents' seqs change when a document is re-read, hashes only when its text does) and
	// to the exact span it quotes, both in the passage and in page coordinates for the
	// viewer; passage_page and passage_start are where the passage began when the card was
	// placed, so that a passage of the same text that moved on its pages is seen. Cards go with their document (ON DELETE CASCADE) and with their deck; dedup
	// is unique per deck. The schedule columns are FSRS's card state; reviews its log.
	`CREATE TABLE decks (
		id         TEXT PRIMARY KEY,
		session_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
		title      TEXT NOT NULL DEFAULT '',
		doc_ids    TEXT NOT NULL DEFAULT '[]',
		created_at INTEGER NOT NULL
	);
	CREATE INDEX decks_session ON decks(session_id);
	CREATE TABLE cards (
		id             INTEGER PRIMARY KEY AUTOINCREMENT,
		deck_id        TEXT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
		doc_id         TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
		chunk_id       TEXT NOT NULL,
		kind           TEXT NOT NULL,
		origin         TEXT NOT NULL DEFAULT 'rule',
		front          TEXT NOT NULL,
		back           TEXT NOT NULL,
		context        TEXT NOT NULL,
		dedup          TEXT NOT NULL,
		span_start     INTEGER NOT NULL,
		span_end       INTEGER NOT NULL,
		page           INTEGER NOT NULL,
		page_end       INTEGER NOT NULL,
		start_off      INTEGER NOT NULL,
		end_off        INTEGER NOT NULL,
		section        TEXT NOT NULL DEFAULT '',
		passage_page   INTEGER NOT NULL DEFAULT 0,
		passage_start  INTEGER NOT NULL DEFAULT 0,
		suspended      INTEGER NOT NULL DEFAULT 0,
		stale          INTEGER NOT NULL DEFAULT 0,
		state          INTEGER NOT NULL DEFAULT 0,
		due            INTEGER NOT NULL,
		stability      REAL NOT NULL DEFAULT 0,
		difficulty     REAL NOT NULL DEFAULT 0,
		elapsed_days   INTEGER NOT NULL DEFAULT 0,
		scheduled_days INTEGER NOT NULL DEFAULT 0,
		learning_steps INTEGER NOT NULL DEFAULT 0,
		reps           INTEGER NOT NULL DEFAULT 0,
		lapses         INTEGER NOT NULL DEFAULT 0,
		last_review    INTEGER NOT NULL DEFAULT 0,
		created_at     INTEGER NOT NULL,
		updated_at     INTEGER NOT NULL,
		UNIQUE (deck_id, dedup)
	);
	CREATE INDEX cards_doc ON cards(doc_id);
	CREATE INDEX cards_due ON cards(deck_id, due) WHERE suspended = 0;
	CREATE TABLE reviews (
		id                INTEGER PRIMARY KEY AUTOINCREMENT,
		card_id           INTEGER NOT NULL REFERENCES cards(id) ON DELETE CASCADE,
		grade             INTEGER NOT NULL,
		state             INTEGER NOT NULL,
		due               INTEGER NOT NULL,
		stability         REAL NOT NULL,
		difficulty        REAL NOT NULL,
		elapsed_days      INTEGER NOT NULL,
		last_elapsed_days INTEGER NOT NULL,
		scheduled_days    INTEGER NOT NULL,
		learning_steps    INTEGER NOT NULL,
		reviewed_at       INTEGER NOT NULL,
		day               TEXT NOT NULL
	);
	CREATE INDEX reviews_card ON reviews(card_id, id);
	CREATE INDEX reviews_day ON reviews(day);
	CREATE INDEX parents_hash ON parents(doc_id, id);`,

	// v8: quiz scores, one row per quiz taken, with its deck (backend/study's quizzes).
	`CREATE TABLE quiz_scores (
		id        INTEGER PRIMARY KEY AUTOINCREMENT,
		deck_id   TEXT NOT NULL REFERENCES decks(id) ON DELETE CASCADE,
		questions INTEGER NOT NULL,
		correct   INTEGER NOT NULL,
		taken_at  INTEGER NOT NULL
	);
	CREATE INDEX quiz_scores_deck ON quiz_scores(deck_id, taken_at);`,

	// v9: transcripts (transcripts.go): the timed text of a recording, one row per
	// document, its segments packed in a blob (an hour of speech is about a thousand).
	`CREATE TABLE transcripts (
		doc_id     TEXT PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
		source     TEXT NOT NULL DEFAULT '',
		recognizer TEXT NOT NULL DEFAULT '',
		media_kind TEXT NOT NULL DEFAULT '',
		media_path TEXT NOT NULL DEFAULT '',
		media_url  TEXT NOT NULL DEFAULT '',
		duration   REAL NOT NULL DEFAULT 0,
		segments   BLOB NOT NULL
	) WITHOUT ROWID;`,
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
