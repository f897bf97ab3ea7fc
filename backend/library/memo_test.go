package library

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
)

// openTemp opens a new library in a temporary folder, closed when the test ends.
func openTemp(t *testing.T) *Library {
	t.Helper()
	l, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// verifies what searches read from memory (children's parents, parents, documents, counts)
// follows every write at once: a re-chunked document's old passages are gone and its new
// ones found, a deleted document's passages are gone, a renamed document reads renamed.
func TestMemoFollowsWrites(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	tree := func(doc string, n int) []Parent {
		var ps []Parent
		for i := range n {
			p := Parent{Chunk: Chunk{ID: fmt.Sprintf("%s-p%d", doc, i), Text: fmt.Sprintf("passage %d of %s", i, doc)}}
			for j := range 2 {
				p.Children = append(p.Children, Chunk{ID: fmt.Sprintf("%s-c%d-%d", doc, i, j), Text: fmt.Sprintf("child %d %d", i, j)})
			}
			ps = append(ps, p)
		}
		return ps
	}
	put := func(t *testing.T, id, title string) {
		t.Helper()
		if err := l.PutDocument(ctx, &Document{ID: id, Path: "/" + id, Title: title, Status: StatusReady}); err != nil {
			t.Fatal(err)
		}
	}
	// check says each child of ps maps to its parent and each parent reads back.
	check := func(t *testing.T, ps []Parent, want bool) {
		t.Helper()
		var children, parents []int64
		for _, p := range ps {
			parents = append(parents, p.Seq)
			for _, c := range p.Children {
				children = append(children, c.Seq)
			}
		}
		got, err := l.PassagesOf(ctx, children)
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		for _, p := range ps {
			for range p.Children {
				if want && got[i] != p.Seq || !want && got[i] != -1 {
					t.Errorf("child %d maps to %d, want parent %d (present %v)", children[i], got[i], p.Seq, want)
				}
				i++
			}
		}
		back, err := l.Parents(ctx, parents)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if q, ok := back[p.Seq]; ok != want || ok && q.Text != p.Text {
				t.Errorf("parent %d read back as %+v (present %v, want %v)", p.Seq, q, ok, want)
			}
		}
	}

	// seqs says the children of ps are exactly the scope of docIDs.
	seqs := func(t *testing.T, ps []Parent, docIDs ...string) {
		t.Helper()
		var want []int64
		for _, p := range ps {
			for _, c := range p.Children {
				want = append(want, c.Seq)
			}
		}
		got, err := l.Seqs(ctx, docIDs)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("seqs of %v: %v, want %v", docIDs, got, want)
		}
	}

	// Each step builds on the library the steps before left.
	a1, a2, b := tree("a", 3), tree("a", 1), tree("b", 2)
	t.Run("written passages read back", func(t *testing.T) {
		put(t, "a", "A")
		put(t, "b", "B")
		for _, w := range []struct {
			id string
			ps []Parent
		}{{"a", a1}, {"b", b}} {
			if err := l.ReplaceTree(ctx, w.id, nil, w.ps); err != nil {
				t.Fatal(err)
			}
		}
		check(t, a1, true)
		check(t, b, true)
		seqs(t, append(slices.Clone(a1), b...), "a", "b")
		if d, c, err := l.Counts(ctx); err != nil || d != 2 || c != 10 {
			t.Errorf("counts %d %d %v, want 2 10", d, c, err)
		}
		if d, err := l.Document(ctx, "a"); err != nil || d.Title != "A" || d.Chunks != 6 {
			t.Errorf("document a: %+v %v", d, err)
		}
	})

	// Re-chunked: new seqs; the old ones, read a moment ago, are gone.
	t.Run("a re-chunked document's old passages are gone", func(t *testing.T) {
		if err := l.ReplaceTree(ctx, "a", nil, a2); err != nil {
			t.Fatal(err)
		}
		check(t, a1, false)
		check(t, a2, true)
		check(t, b, true)
		seqs(t, a2, "a")
		if d, c, err := l.Counts(ctx); err != nil || d != 2 || c != 6 {
			t.Errorf("counts after re-chunking %d %d %v, want 2 6", d, c, err)
		}
		if d, err := l.Document(ctx, "a"); err != nil || d.Chunks != 2 {
			t.Errorf("document a after re-chunking: %+v %v", d, err)
		}
	})

	t.Run("a renamed document reads renamed, a failed one failed", func(t *testing.T) {
		put(t, "a", "A renamed")
		if err := l.SetStatus(ctx, "b", StatusFailed, "gone bad", 1, 2); err != nil {
			t.Fatal(err)
		}
		if d, err := l.Document(ctx, "a"); err != nil || d.Title != "A renamed" {
			t.Errorf("document a after renaming: %+v %v", d, err)
		}
		if d, err := l.Document(ctx, "b"); err != nil || d.Status != StatusFailed || d.Error != "gone bad" {
			t.Errorf("document b after its status changed: %+v %v", d, err)
		}
	})

	t.Run("a deleted document's passages are gone", func(t *testing.T) {
		if err := l.DeleteDocument(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		check(t, b, false)
		check(t, a2, true)
		seqs(t, a2, "a", "b")
		if _, err := l.Document(ctx, "b"); !errors.Is(err, ErrNotFound) {
			t.Errorf("deleted document b read back: %v", err)
		}
		if d, c, err := l.Counts(ctx); err != nil || d != 1 || c != 2 {
			t.Errorf("counts after deleting %d %d %v, want 1 2", d, c, err)
		}
	})

	// A library reopened (or another library opened) starts from its database.
	t.Run("a reopened library reads its database", func(t *testing.T) {
		l2, err := Open(l.Dir())
		if err != nil {
			t.Fatal(err)
		}
		defer l2.Close()
		if got, err := l2.PassagesOf(ctx, []int64{a2[0].Children[0].Seq, b[0].Children[0].Seq, 0, 1 << 40}); err != nil ||
			got[0] != a2[0].Seq || got[1] != -1 || got[2] != -1 || got[3] != -1 {
			t.Errorf("reopened: %v %v", got, err)
		}
	})
}

// verifies a child stored without a parent (a library from before parents) is its own
// passage.
func TestMemoOwnPassage(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	if err := l.PutDocument(ctx, &Document{ID: "d", Path: "/d", Status: StatusReady}); err != nil {
		t.Fatal(err)
	}
	chunks := []Chunk{{ID: "c1", Text: "one"}}
	if err := l.ReplaceContent(ctx, "d", nil, chunks); err != nil {
		t.Fatal(err)
	}
	if _, err := l.db.Exec(`UPDATE chunks SET parent_seq = NULL`); err != nil {
		t.Fatal(err)
	}
	l.memo.mu.Lock()
	l.memo.loaded = false // as if opened now
	l.memo.mu.Unlock()
	if got, err := l.PassagesOf(ctx, []int64{chunks[0].Seq}); err != nil || got[0] != 0 {
		t.Fatalf("own passage: %v %v", got, err)
	}
}

// verifies that writes to documents alone and writes of passages can run at once: a
// document write once held the memo's lock while waiting for SQLite's write lock, and a
// passage write held SQLite's lock while waiting for the memo's, so ingesting two
// documents in parallel failed with "database is locked" after the busy timeout.
func TestConcurrentDocumentAndPassageWrites(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	for _, id := range []string{"a", "b"} {
		if err := l.PutDocument(ctx, &Document{ID: id, Path: "/" + id, Status: StatusReady}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := l.PassagesOf(ctx, []int64{1}); err != nil { // load the memo
		t.Fatal(err)
	}
	const rounds = 300
	errs := make(chan error, 2*rounds)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range rounds {
			text := fmt.Sprintf("passage %d of a", i)
			tree := []Parent{{Chunk: Chunk{ID: text, PageStart: 1, PageEnd: 1, End: len(text), Text: text},
				Children: []Chunk{{ID: "c" + text, PageStart: 1, PageEnd: 1, End: len(text), Text: text}}}}
			errs <- l.ReplaceTree(ctx, "a", []string{text}, tree)
		}
	})
	wg.Go(func() {
		for i := range rounds {
			errs <- l.SetStatus(ctx, "b", StatusReady, "", i, rounds)
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if d, err := l.Document(ctx, "b"); err != nil || d.Done != rounds-1 {
		t.Fatalf("document b: %+v, %v; want done %d", d, err, rounds-1)
	}
}
