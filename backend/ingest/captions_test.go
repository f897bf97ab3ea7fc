package ingest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/carrel-app/carrel/backend/document"
)

// verifies a captions snapshot reads as a timed transcript: one line per cue, each
// segment where its text is, the recording on the web (the watch page), the video's
// title and channel.
func TestCaptions(t *testing.T) {
	c := Captions{Format: CaptionsFormat, URL: "https://www.youtube.com/watch?v=abcdefghijk", VideoID: "abcdefghijk",
		Title: "How  Bees\nFind Flowers", Channel: "The Bee Lab", Duration: 142, Language: "en", Name: "English",
		Cues: []Cue{{0.5, 4.6, "Welcome to this lecture."}, {4.6, 9.8, "  "}, {65.5, 71.2, "A forager visits up to one hundred flowers."}}}
	b, _ := json.Marshal(c)
	p := filepath.Join(t.TempDir(), "video.json")
	os.WriteFile(p, b, 0o644)
	doc, err := File(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := doc.Transcript
	if doc.Kind != document.KindVideo || doc.Title != "How Bees Find Flowers" || doc.Author != "The Bee Lab" || doc.URL != c.URL || tr == nil {
		t.Fatalf("doc %q %q %q %q %v", doc.Kind, doc.Title, doc.Author, doc.URL, tr)
	}
	if tr.Media.URL != c.URL || tr.Media.Path != "" || tr.Recognizer != document.RecognizerCaptions || tr.Source != "YouTube captions (English)" || len(tr.Segments) != 2 {
		t.Fatalf("transcript %+v", tr)
	}
	s := tr.Segments[1]
	if got := doc.Pages[s.Page-1].Text[s.From:s.To]; got != "A forager visits up to one hundred flowers." || s.Start != 65.5 {
		t.Errorf("segment 2 at %v points at %q", s.Start, got)
	}
	if sec, ok := tr.TimeAt(s.Page, s.From+5); !ok || sec != 65.5 {
		t.Errorf("time of its text: %v %v", sec, ok)
	}
}
