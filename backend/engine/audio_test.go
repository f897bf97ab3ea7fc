package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testaudio"
)

// verifies a spoken MP3 is ingested as a recording with its transcript kept, and that a
// question about one of its sentences is answered (no model: the best passages) with a
// citation whose time, from its supporting sentence, falls within that sentence's span
// in the recording.
func TestAudioCitesTimestamp(t *testing.T) {
	testaudio.Need(t, "pocketsphinx_continuous")
	f := testaudio.Make(t)
	ctx := context.Background()
	eng := openEngine(t, Config{})
	var progress []string
	res, err := eng.IngestFile(ctx, f.MP3, func(d library.Document) {
		progress = append(progress, fmt.Sprintf("%s %d/%d", d.Status, d.Done, d.Total))
	})
	if err != nil || res.Status != Inserted {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	doc, err := eng.Library().Document(ctx, res.DocID)
	if err != nil || doc.Kind != ingest.KindAudio {
		t.Fatalf("document %+v %v", doc, err)
	}
	if !strings.Contains(strings.Join(progress, ","), "extracting 1/1") {
		t.Errorf("progress %v: want extracting 1/1 (minutes)", progress)
	}
	tr, err := eng.Transcript(ctx, res.DocID)
	if err != nil || tr.Recognizer != ingest.RecognizerPocketSphinx || tr.MediaPath != f.MP3 || len(tr.Segments) < 3 {
		t.Fatalf("transcript %+v %v", tr, err)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "whisper.cpp") {
		t.Errorf("warnings %q: want the advice to get a better recogniser", res.Warnings)
	}

	for _, c := range []struct {
		q        string
		sentence int
	}{
		{"When does the train leave the station?", 4},
		{"Where do the students read their books?", 3},
	} {
		ans, err := eng.Asking().Ask(ctx, c.q, asking.Options{DocIDs: []string{}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ans.Claims) == 0 || len(ans.Claims[0].Spans) == 0 {
			t.Fatalf("%q: no claims in %q", c.q, ans.Text)
		}
		sp := ans.Claims[0].Spans[0]
		p := ans.Citations[sp.N-1]
		at, ok := eng.PassageTime(ctx, p.DocID, p.Page, p.Start, sp.Start)
		span := f.Spans[c.sentence]
		t.Logf("%q cites %q at %s (the sentence is spoken %.1f–%.1f s)", c.q, sp.Quote, ingest.Clock(at), span[0], span[1])
		if !ok || at < span[0]-0.5 || at > span[1] {
			t.Errorf("%q: cited time %.2f s (ok %v), want within the sentence's span %.2f–%.2f s", c.q, at, ok, span[0], span[1])
		}
	}

	// A document that is not a recording has no transcript.
	if _, err := eng.Transcript(ctx, "nope"); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("Transcript of an unknown document: %v", err)
	}
	if err := eng.Remove(ctx, res.DocID); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Transcript(ctx, res.DocID); !errors.Is(err, library.ErrNotFound) {
		t.Errorf("transcript left after Remove: %v", err)
	}
}

// verifies a video without sound fails with a reason the user can act on.
func TestAudioNoTrackFails(t *testing.T) {
	f := testaudio.Make(t)
	eng := openEngine(t, Config{})
	res, err := eng.IngestFile(context.Background(), f.Silent, nil)
	if err != nil || res.Status != Failed || !strings.Contains(res.Error, "no audio track") {
		t.Fatalf("silent video: %+v %v", res, err)
	}
}
