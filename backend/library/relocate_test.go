package library

import (
	"context"
	"testing"
)

// verifies Relocate moves only the paths inside the old folder (not a sibling folder that
// merely shares its name as a prefix) and leaves the others.
func TestRelocate(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	for _, d := range []*Document{
		{ID: "in", Path: "/old/lib/inbox/a.pdf", Title: "A", Kind: "pdf", Status: StatusReady},
		{ID: "sibling", Path: "/old/library2/b.pdf", Title: "B", Kind: "pdf", Status: StatusReady},
		{ID: "out", Path: "/home/me/c.md", Title: "C", Kind: "text", Status: StatusReady},
	} {
		if err := l.PutDocument(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	n, err := l.Relocate(ctx, "/old/lib", "/new/place/")
	if err != nil || n != 1 {
		t.Fatalf("Relocate = %d, %v; want 1 document", n, err)
	}
	want := map[string]string{"in": "/new/place/inbox/a.pdf", "sibling": "/old/library2/b.pdf", "out": "/home/me/c.md"}
	for id, p := range want {
		d, err := l.Document(ctx, id)
		if err != nil || d.Path != p {
			t.Errorf("%s: path %q (%v), want %q", id, d.Path, err, p)
		}
	}
}
