-- A library written by Carrel with schema v1 (frozen: do not edit). Used by
-- TestMigrateV1 to check that migrations keep old data and end at the fresh schema.
CREATE TABLE documents (
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
CREATE INDEX chunks_unembedded ON chunks(seq) WHERE embedded = 0;
INSERT INTO documents (id, path, title, author, kind, pages, bytes, status, error, done, total, outline, added_at, updated_at)
  VALUES ('d1', '/docs/walden.pdf', 'Walden', 'Thoreau', 'pdf', 2, 1234, 'ready', '', 2, 2, '["Economy"]', 1700000000000, 1700000000500);
INSERT INTO pages (doc_id, number, text) VALUES ('d1', 1, 'I went to the woods because I wished to live deliberately.');
INSERT INTO pages (doc_id, number, text) VALUES ('d1', 2, 'Simplify, simplify.');
INSERT INTO chunks (id, doc_id, ord, page_start, page_end, start_off, end_off, section, text, embedded)
  VALUES ('c1', 'd1', 0, 1, 1, 0, 58, 'Economy', 'I went to the woods because I wished to live deliberately.', 1);
INSERT INTO chunks (id, doc_id, ord, page_start, page_end, start_off, end_off, section, text, embedded)
  VALUES ('c2', 'd1', 1, 2, 2, 0, 19, 'Economy', 'Simplify, simplify.', 0);
PRAGMA user_version = 1;
