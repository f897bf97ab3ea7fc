package library

import (
	"context"
	"errors"
	"testing"
)

// verifies a transcript is stored and read back with each segment's text from its page,
// replaced whole, removed with nil, removed with its document, and that segments whose
// page no longer holds them are dropped.
func TestTranscripts(t *testing.T) {
	ctx := context.Background()
	l := openTemp(t)
	if err := l.PutDocument(ctx, &Document{ID: "d", Path: "/talk.mp3", Status: StatusReady}); err != nil {
		t.Fatal(err)
	}
	if err := l.ReplaceTree(ctx, "d", []string{"the heart pumps\nblood", "rivers run"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Transcript(ctx, "d"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("no transcript yet: %v", err)
	}
	tr := &Transcript{Source: "PocketSphinx (US English)", Recognizer: "pocketsphinx", MediaKind: "audio", MediaPath: "/talk.mp3", Duration: 65.25,
		Segments: []Segment{{Start: 0, End: 1.5, Page: 1, From: 0, To: 15}, {Start: 1.7, End: 2.0004, Page: 1, From: 16, To: 21}, {Start: 61, End: 65.25, Page: 2, From: 0, To: 10}, {Start: 66, End: 67, Page: 2, From: 5, To: 99}}}
	if err := l.ReplaceTranscript(ctx, "d", tr); err != nil {
		t.Fatal(err)
	}
	got, err := l.Transcript(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	want := []Segment{{Start: 0, End: 1.5, Page: 1, From: 0, To: 15, Text: "the heart pumps"}, {Start: 1.7, End: 2, Page: 1, From: 16, To: 21, Text: "blood"}, {Start: 61, End: 65.25, Page: 2, From: 0, To: 10, Text: "rivers run"}}
	if got.Source != tr.Source || got.Recognizer != "pocketsphinx" || got.MediaKind != "audio" || got.MediaPath != "/talk.mp3" || got.Duration != 65.25 || len(got.Segments) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got.Segments[i] != want[i] {
			t.Errorf("segment %d = %+v, want %+v", i, got.Segments[i], want[i])
		}
	}
	if at, ok := got.TimeAt(1, 15); !ok || at != 1.7 {
		t.Errorf("TimeAt(1, 15) = %v %v", at, ok)
	}
	if at, ok := got.TimeAt(2, 3); !ok || at != 61 {
		t.Errorf("TimeAt(2, 3) = %v %v", at, ok)
	}
	// Replaced whole.
	if err := l.ReplaceTranscript(ctx, "d", &Transcript{Source: "whisper.cpp", MediaURL: "https://example.org/v", Segments: []Segment{{Page: 1, From: 0, To: 3}}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := l.Transcript(ctx, "d"); got.Source != "whisper.cpp" || got.MediaPath != "" || len(got.Segments) != 1 || got.Segments[0].Text != "the" {
		t.Errorf("replaced: %+v", got)
	}
	if err := l.ReplaceTranscript(ctx, "d", &Transcript{Segments: []Segment{{Page: 0}}}); err == nil {
		t.Error("a segment on page 0 was stored")
	}
	if err := l.ReplaceTranscript(ctx, "d", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Transcript(ctx, "d"); !errors.Is(err, ErrNotFound) {
		t.Errorf("removed: %v", err)
	}
	l.ReplaceTranscript(ctx, "d", tr)
	if err := l.DeleteDocument(ctx, "d"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Transcript(ctx, "d"); !errors.Is(err, ErrNotFound) {
		t.Errorf("after removing the document: %v", err)
	}
}
