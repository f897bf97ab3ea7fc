package library

import (
	"context"
	"testing"
)

// verifies parents and children round-trip with their links, identical passages of a
// document are stored once, and removing the document removes both.
func TestReplaceTree(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	if err := l.PutDocument(ctx, &Document{ID: "d", Path: "/d.txt", Status: StatusReady}); err != nil {
		t.Fatal(err)
	}
	child := func(id, text string, start, end int) Chunk {
		return Chunk{ID: id, PageStart: 1, PageEnd: 1, Start: start, End: end, Text: text}
	}
	tree := []Parent{
		{Chunk: Chunk{ID: "p1", PageStart: 1, PageEnd: 1, Start: 0, End: 11, Section: "S", Text: "alpha beta."},
			Children: []Chunk{child("c1", "alpha", 0, 5), child("c2", "beta.", 6, 11)}},
		{Chunk: Chunk{ID: "p2", PageStart: 1, PageEnd: 2, Start: 12, End: 5, Text: "gamma alpha"},
			Children: []Chunk{child("c3", "gamma", 12, 17), child("c1", "alpha", 18, 23)}}, // c1 again
		{Chunk: Chunk{ID: "p1", PageStart: 2, PageEnd: 2, Start: 6, End: 17, Text: "alpha beta."}, // p1 again
			Children: []Chunk{child("c1", "alpha", 6, 11)}},
	}
	if err := l.ReplaceTree(ctx, "d", []string{"alpha beta. gamma alpha", "alpha alpha beta."}, tree); err != nil {
		t.Fatal(err)
	}
	if tree[2].Children != nil || len(tree[1].Children) != 1 || tree[1].Children[0].ID != "c3" {
		t.Fatalf("repeated passages stored again: %+v", tree)
	}
	if tree[1].Children[0].ParentSeq != tree[1].Seq || tree[0].Children[1].ParentSeq != tree[0].Seq || tree[0].Seq == 0 {
		t.Fatalf("children not linked to their parents: %+v", tree)
	}
	parents, err := l.DocumentParents(ctx, "d")
	if err != nil || len(parents) != 2 || parents[1].ID != "p2" || parents[1].PageEnd != 2 || parents[0].Section != "S" {
		t.Fatalf("parents %+v %v", parents, err)
	}
	chunks, err := l.DocumentChunks(ctx, "d")
	if err != nil || len(chunks) != 3 {
		t.Fatalf("chunks %+v %v", chunks, err)
	}
	got, err := l.Parents(ctx, []int64{chunks[2].ParentSeq, 12345})
	if err != nil || len(got) != 1 || got[chunks[2].ParentSeq].Text != "gamma alpha" {
		t.Fatalf("parent of %+v: %+v %v", chunks[2], got, err)
	}
	if n, err := l.ParentCount(ctx); err != nil || n != 2 {
		t.Fatalf("parent count %d %v", n, err)
	}
	if un, err := l.Unparented(ctx); err != nil || len(un) != 0 {
		t.Fatalf("unparented %v %v", un, err)
	}
	if err := l.DeleteDocument(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if n, _ := l.ParentCount(ctx); n != 0 {
		t.Fatalf("%d parents left after removing the document", n)
	}
}

// verifies a library from before parents (the frozen v1 one) migrates with its chunks
// kept and listed for re-chunking, and its page texts readable for it.
func TestMigrateUnparented(t *testing.T) {
	ctx := context.Background()
	l, err := Open(frozenV1(t))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	un, err := l.Unparented(ctx)
	if err != nil || len(un) != 1 || un[0] != "d1" {
		t.Fatalf("unparented after migrating: %v %v", un, err)
	}
	chunks, err := l.DocumentChunks(ctx, "d1")
	if err != nil || len(chunks) != 2 || chunks[0].ParentSeq != 0 {
		t.Fatalf("old chunks: %+v %v", chunks, err)
	}
	pages, err := l.PageTexts(ctx, "d1")
	if err != nil || len(pages) == 0 || pages[0] == "" {
		t.Fatalf("pages %q %v", pages, err)
	}
}
