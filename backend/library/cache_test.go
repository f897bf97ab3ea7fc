package library

import (
	"context"
	"errors"
	"testing"
)

// verifies the cache store: entries found by scope, family and text key only; deleting
// a document deletes exactly the entries that searched it; a cache hit is listed with its
// session; clearing empties it; prefs round-trip.
func TestCacheStore(t *testing.T) {
	l := openTemp(t)
	ctx := context.Background()
	a := CacheEntry{Question: "Why?", TextKey: "why|x|", Scope: "", Family: "ollama/tiny", Fingerprint: "f", Answer: "A", Mode: "model",
		CostUSD: 0.5, DocIDs: []string{"d1", "d2"}}
	b := CacheEntry{Question: "Why?", TextKey: "why|x|", Scope: "d2", Family: "ollama/tiny", Fingerprint: "g", Answer: "B", Mode: "model",
		DocIDs: []string{"d2"}}
	for _, e := range []*CacheEntry{&a, &b} {
		if err := l.AddCacheEntry(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	got, err := l.CacheCandidates(ctx, "", "ollama/tiny", "why|x|")
	if err != nil || len(got) != 1 || got[0].ID != a.ID || got[0].Answer != "A" || got[0].CostUSD != 0.5 {
		t.Fatalf("candidates: %+v %v", got, err)
	}
	if got, _ := l.CacheCandidates(ctx, "", "openai/gpt", "why|x|"); len(got) != 0 {
		t.Fatalf("another family: %+v", got)
	}
	ids, err := l.DeleteCacheForDocument(ctx, "d1")
	if err != nil || len(ids) != 1 || ids[0] != a.ID {
		t.Fatalf("delete for d1: %v %v", ids, err)
	}
	if left, _ := l.CacheIDs(ctx); len(left) != 1 || left[b.ID] != "" {
		t.Fatalf("left: %v", left)
	}
	if _, err := l.CacheEntry(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted entry: %v", err)
	}
	s := Session{ID: "s1", Title: "t"}
	if err := l.CreateSession(ctx, &s); err != nil {
		t.Fatal(err)
	}
	m := Message{SessionID: "s1", Question: "Why?", Answer: "B"}
	if err := l.AddMessage(ctx, &m); err != nil {
		t.Fatal(err)
	}
	if err := l.MarkCacheHit(ctx, m.ID, `{"session_id":"s0"}`); err != nil {
		t.Fatal(err)
	}
	if hits, err := l.CacheHits(ctx, "s1"); err != nil || hits[m.ID] != `{"session_id":"s0"}` {
		t.Fatalf("hits: %v %v", hits, err)
	}
	if n, err := l.ClearCache(ctx); err != nil || n != 1 {
		t.Fatalf("clear: %d %v", n, err)
	}
	if v, err := l.Pref(ctx, "memory"); err != nil || v != "" {
		t.Fatalf("unset pref: %q %v", v, err)
	}
	l.SetPref(ctx, "memory", "off")
	l.SetPref(ctx, "memory", "on")
	if v, _ := l.Pref(ctx, "memory"); v != "on" {
		t.Fatalf("pref: %q", v)
	}
}

// verifies the memory store: add, list, update, delete, and not-found errors.
func TestMemoryStore(t *testing.T) {
	l := openTemp(t)
	ctx := context.Background()
	m := Memory{Kind: "preference", Slot: "language", Text: "wants answers in French", Source: "Always answer in French"}
	if err := l.AddMemory(ctx, &m); err != nil || m.ID == 0 {
		t.Fatal(m, err)
	}
	if err := l.UpdateMemory(ctx, m.ID, "wants answers in German", "Reply in German from now on"); err != nil {
		t.Fatal(err)
	}
	list, err := l.Memories(ctx)
	if err != nil || len(list) != 1 || list[0].Text != "wants answers in German" || list[0].Source != "Reply in German from now on" || list[0].Slot != "language" {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := l.DeleteMemory(ctx, m.ID); err != nil {
		t.Fatal(err)
	}
	if err := l.UpdateMemory(ctx, m.ID, "x", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update deleted: %v", err)
	}
	if _, err := l.Memory(ctx, m.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read deleted: %v", err)
	}
}
