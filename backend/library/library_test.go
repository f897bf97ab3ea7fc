package library

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// verifies a document with pages and chunks round-trips, survives reopening, and is removed
// with everything derived from it.
func TestDocumentLifecycle(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	d := &Document{ID: "abc", Path: "/x/a.pdf", Title: "A", Kind: "pdf", Pages: 2, Bytes: 10, Status: StatusExtracting}
	if err := l.PutDocument(ctx, d); err != nil {
		t.Fatal(err)
	}
	chunks := []Chunk{
		{ID: "c1", PageStart: 1, PageEnd: 1, Start: 0, End: 5, Text: "hello"},
		{ID: "c2", PageStart: 1, PageEnd: 2, Start: 5, End: 3, Section: "Intro", Text: "world foo"},
	}
	if err := l.ReplaceContent(ctx, "abc", []string{"hello world", "foo bar"}, chunks); err != nil {
		t.Fatal(err)
	}
	if chunks[0].Seq == 0 || chunks[1].Seq <= chunks[0].Seq {
		t.Fatalf("seqs not assigned in order: %d %d", chunks[0].Seq, chunks[1].Seq)
	}
	if err := l.SetStatus(ctx, "abc", StatusReady, "", 2, 2); err != nil {
		t.Fatal(err)
	}
	l.Close()

	l, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got, err := l.Document(ctx, "abc")
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusReady || got.Chunks != 2 || got.Title != "A" {
		t.Fatalf("document after reopen = %+v", got)
	}
	m, err := l.Chunks(ctx, []int64{chunks[1].Seq, 9999})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 || m[chunks[1].Seq].Section != "Intro" || m[chunks[1].Seq].PageEnd != 2 {
		t.Fatalf("chunks = %+v", m)
	}
	if p, err := l.PageText(ctx, "abc", 2); err != nil || p != "foo bar" {
		t.Fatalf("page 2 = %q, %v", p, err)
	}
	un, _ := l.Unembedded(ctx, 10)
	if len(un) != 2 {
		t.Fatalf("unembedded = %d, want 2", len(un))
	}
	if err := l.MarkEmbedded(ctx, []int64{chunks[0].Seq}, true); err != nil {
		t.Fatal(err)
	}
	if un, _ = l.Unembedded(ctx, 10); len(un) != 1 {
		t.Fatalf("unembedded after mark = %d, want 1", len(un))
	}
	if err := l.DeleteDocument(ctx, "abc"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Document(ctx, "abc"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted document: err = %v", err)
	}
	if n, c, _ := l.Counts(ctx); n != 0 || c != 0 {
		t.Fatalf("counts after delete = %d docs %d chunks", n, c)
	}
	if err := l.DeleteDocument(ctx, "abc"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: err = %v", err)
	}
}

// verifies that a database from a newer Carrel is refused rather than damaged.
func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.db.Exec(`PRAGMA user_version = 99`); err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := Open(dir); err == nil {
		t.Fatal("opening a newer schema succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, DBName)); err != nil {
		t.Fatal(err)
	}
}
