package library

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// schemaDiff lists the tables and indexes that differ between two schemas.
func schemaDiff(a, b map[string]string) string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, "- "+k+": "+v+"\n+ "+k+": "+b[k])
		}
	}
	for k, v := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "+ "+k+": "+v)
		}
	}
	return strings.Join(out, "\n")
}

// schemaOf returns every table and index definition, whitespace collapsed, by name.
func schemaOf(t *testing.T, db *sql.DB) map[string]string {
	t.Helper()
	rows, err := db.Query(`SELECT name, coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			t.Fatal(err)
		}
		out[name] = strings.Join(strings.Fields(def), " ")
	}
	return out
}

// frozenV1 writes the frozen v1 library (testdata/schema_v1.sql: a library from before
// sessions and parents) into a new folder and returns the folder.
func frozenV1(t *testing.T) string {
	t.Helper()
	frozen, err := os.ReadFile(filepath.Join("testdata", "schema_v1.sql"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	raw, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(string(frozen)); err != nil {
		t.Fatalf("load frozen v1 library: %v", err)
	}
	return dir
}

// verifies a v1 library (frozen in testdata) migrates to the current schema with its
// documents, pages and chunks intact, ends with the same schema as a fresh library, and
// that opening it again changes nothing.
func TestMigrateV1(t *testing.T) {
	ctx := context.Background()
	dir := frozenV1(t)
	l, err := Open(dir)
	if err != nil {
		t.Fatalf("migrate v1: %v", err)
	}
	var v int
	l.db.QueryRow(`PRAGMA user_version`).Scan(&v)
	if v != schemaVersion {
		t.Fatalf("user_version after migrating = %d, want %d", v, schemaVersion)
	}
	d, err := l.Document(ctx, "d1")
	if err != nil || d.Title != "Walden" || d.Author != "Thoreau" || d.Chunks != 2 || d.Outline != `["Economy"]` {
		t.Fatalf("document after migrating: %+v %v", d, err)
	}
	if p, err := l.PageText(ctx, "d1", 1); err != nil || !strings.Contains(p, "deliberately") {
		t.Fatalf("page after migrating: %q %v", p, err)
	}
	if un, _ := l.Unembedded(ctx, 10); len(un) != 1 || un[0].ID != "c2" {
		t.Fatalf("embedded flags after migrating: %+v", un)
	}
	// The new tables work on the migrated database.
	if err := l.CreateSession(ctx, &Session{ID: "s1", DocIDs: []string{"d1"}}); err != nil {
		t.Fatal(err)
	}
	migrated := schemaOf(t, l.db)
	l.Close()

	fresh := openTemp(t)
	if diff := schemaDiff(migrated, schemaOf(t, fresh.db)); diff != "" {
		t.Fatalf("migrated schema differs from a fresh one (-migrated +fresh):\n%s", diff)
	}

	l, err = Open(dir)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer l.Close()
	if diff := schemaDiff(migrated, schemaOf(t, l.db)); diff != "" {
		t.Fatalf("reopening changed the schema:\n%s", diff)
	}
	if s, err := l.Session(ctx, "s1"); err != nil || len(s.DocIDs) != 1 {
		t.Fatalf("session after reopen: %+v %v", s, err)
	}
}

// verifies sessions keep their messages and citations in order, are listed most recent
// first, renamed and deleted; and that the cost ledger sums per session and in total,
// still counting a deleted session's spending.
func TestSessions(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	for _, id := range []string{"a", "b"} {
		if err := l.CreateSession(ctx, &Session{ID: id, Title: "Session " + id}); err != nil {
			t.Fatal(err)
		}
	}
	m1 := &Message{SessionID: "a", Question: "Why the woods?", Standalone: "Why did Thoreau go to the woods?",
		Answer: "To live deliberately [1].", Provider: "openai", Model: "gpt-4.1-mini", PromptTokens: 1000,
		CompletionTokens: 100, CostUSD: 0.00056,
		Citations: []Citation{{N: 1, DocID: "d1", DocTitle: "Walden", Page: 12, Start: 5, End: 80, Text: "I went to the woods"}}}
	m2 := &Message{SessionID: "a", Question: "And then?", Answer: "He", Status: MessageStopped,
		Provider: "ollama", Model: "llama3.2:3b", PromptTokens: 500, CompletionTokens: 1}
	m3 := &Message{SessionID: "b", Question: "q", Answer: "a", Provider: "anthropic", Model: "claude-haiku-4-5",
		PromptTokens: 10, CompletionTokens: 10, CostUSD: 0.5}
	for _, m := range []*Message{m1, m2, m3} {
		if err := l.AddMessage(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	msgs, err := l.Messages(ctx, "a", 0)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("messages: %d %v", len(msgs), err)
	}
	if msgs[0].Question != "Why the woods?" || msgs[0].Standalone == "" || len(msgs[0].Citations) != 1 ||
		msgs[0].Citations[0].Start != 5 || msgs[1].Status != MessageStopped || len(msgs[1].Citations) != 0 {
		t.Fatalf("messages read back wrong: %+v", msgs)
	}
	if last, _ := l.Messages(ctx, "a", 1); len(last) != 1 || last[0].ID != m2.ID {
		t.Fatalf("last message: %+v", last)
	}
	list, err := l.Sessions(ctx)
	if err != nil || len(list) != 2 || list[0].ID != "b" && list[0].UpdatedAt.Before(list[1].UpdatedAt) {
		t.Fatalf("sessions: %+v %v", list, err)
	}
	a, _ := l.Session(ctx, "a")
	if a.Messages != 2 || a.Model != "llama3.2:3b" || a.CostUSD != 0.00056 {
		t.Fatalf("session a: %+v", a)
	}
	if err := l.RenameSession(ctx, "a", "Walden"); err != nil {
		t.Fatal(err)
	}
	if err := l.RenameSession(ctx, "zz", "x"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("rename missing session: %v", err)
	}
	if a, _ = l.Session(ctx, "a"); a.Title != "Walden" {
		t.Fatalf("renamed title = %q", a.Title)
	}
	total, _ := l.Spent(ctx, "")
	if total.Answers != 3 || total.CostUSD != 0.50056 || total.PromptTokens != 1510 {
		t.Fatalf("total spend: %+v", total)
	}
	if err := l.DeleteSession(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Session(ctx, "b"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted session: %v", err)
	}
	if m, _ := l.Messages(ctx, "b", 0); len(m) != 0 {
		t.Fatalf("messages of a deleted session survive: %+v", m)
	}
	if after, _ := l.Spent(ctx, ""); after != total {
		t.Fatalf("deleting a session changed the total spent: %+v → %+v", total, after)
	}
	if sb, _ := l.Spent(ctx, "b"); sb.CostUSD != 0 {
		t.Fatalf("a deleted session still has spending of its own: %+v", sb)
	}
}
