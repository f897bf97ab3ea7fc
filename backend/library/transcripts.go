package library

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/carrel-app/carrel/backend/document"
)

// Transcript is the timed text of a recording (an audio or video file, a video's
// captions): which source made it, where the recording is, and its segments, each a
// time span and the place of its text on the document's pages. See ingest.Transcript,
// which it stores.
type Transcript struct {
	DocID string `json:"doc_id"`
	// Source names what made the text, for the user ("PocketSphinx (en-us)").
	Source string `json:"source"`
	// Recognizer is the machine-readable source ("pocketsphinx", "whisper.cpp",
	// "openai", "captions").
	Recognizer document.Recognizer `json:"recognizer"`
	// MediaKind is document.KindAudio or document.KindVideo.
	MediaKind document.Kind `json:"media_kind"`
	// MediaPath is the local recording, or "" when the recording is on the web (MediaURL).
	MediaPath string `json:"media_path"`
	// MediaURL is a page that plays the recording (a video URL), or "".
	MediaURL string `json:"media_url"`
	// Duration is the recording's length in seconds (0 when unknown).
	Duration float64 `json:"duration"`
	// Segments are in time order.
	Segments []Segment `json:"segments"`
}

// Segment is one stretch of a transcript.
type Segment struct {
	// Start and End are seconds from the start of the recording.
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	// Page (1-based), From and To (byte offsets in the page's text) are where its text is.
	Page int `json:"page"`
	From int `json:"from"`
	To   int `json:"to"`
	// Text is the page text at [From, To); filled in by [Library.Transcript].
	Text string `json:"text"`
}

// TimeAt returns when the text at byte offset off of page was said: the start of the
// segment holding it, or of the next one when off falls between segments. ok is false
// past the last segment.
func (t Transcript) TimeAt(page, off int) (sec float64, ok bool) {
	for _, s := range t.Segments {
		if s.Page > page || (s.Page == page && s.To > off) {
			return s.Start, true
		}
	}
	return 0, false
}

// packedSegment is a segment as stored: [page, from, to, start ms, end ms]. Times in
// whole milliseconds: finer than any recogniser's and a third of the JSON of floats.
type packedSegment [5]int64

// ReplaceTranscript stores a document's transcript, replacing any it had; nil removes it.
func (l *Library) ReplaceTranscript(ctx context.Context, docID string, t *Transcript) error {
	if t == nil {
		if _, err := l.db.ExecContext(ctx, `DELETE FROM transcripts WHERE doc_id=?`, docID); err != nil {
			return fmt.Errorf("remove transcript of %s: %w", docID, err)
		}
		return nil
	}
	packed := make([]packedSegment, len(t.Segments))
	for i, s := range t.Segments {
		if s.Page < 1 || s.From < 0 || s.To < s.From || math.IsNaN(s.Start) || math.IsNaN(s.End) {
			return fmt.Errorf("store transcript of %s: segment %d is out of place (page %d, [%d,%d))", docID, i, s.Page, s.From, s.To)
		}
		packed[i] = packedSegment{int64(s.Page), int64(s.From), int64(s.To), int64(math.Round(s.Start * 1000)), int64(math.Round(s.End * 1000))}
	}
	blob, err := json.Marshal(packed)
	if err != nil {
		return fmt.Errorf("store transcript of %s: %w", docID, err)
	}
	_, err = l.db.ExecContext(ctx, `INSERT INTO transcripts (doc_id, source, recognizer, media_kind, media_path, media_url, duration, segments)
		VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(doc_id) DO UPDATE SET source=excluded.source, recognizer=excluded.recognizer,
		media_kind=excluded.media_kind, media_path=excluded.media_path, media_url=excluded.media_url,
		duration=excluded.duration, segments=excluded.segments`,
		docID, t.Source, t.Recognizer, t.MediaKind, t.MediaPath, t.MediaURL, t.Duration, blob)
	if err != nil {
		return fmt.Errorf("store transcript of %s: %w", docID, err)
	}
	return nil
}

// Transcript returns a document's transcript with each segment's text taken from its
// page. A document without one gives an error matching [ErrNotFound].
func (l *Library) Transcript(ctx context.Context, docID string) (Transcript, error) {
	t := Transcript{DocID: docID}
	var blob []byte
	err := l.db.QueryRowContext(ctx, `SELECT source, recognizer, media_kind, media_path, media_url, duration, segments
		FROM transcripts WHERE doc_id=?`, docID).Scan(&t.Source, &t.Recognizer, &t.MediaKind, &t.MediaPath, &t.MediaURL, &t.Duration, &blob)
	if errors.Is(err, sql.ErrNoRows) {
		return t, fmt.Errorf("transcript of %s: %w", docID, ErrNotFound)
	}
	if err != nil {
		return t, fmt.Errorf("transcript of %s: %w", docID, err)
	}
	var packed []packedSegment
	if err := json.Unmarshal(blob, &packed); err != nil {
		return t, fmt.Errorf("transcript of %s: damaged segments: %w", docID, err)
	}
	pages := map[int]string{}
	rows, err := l.db.QueryContext(ctx, `SELECT number, text FROM pages WHERE doc_id=?`, docID)
	if err != nil {
		return t, fmt.Errorf("transcript of %s: %w", docID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n int
		var text string
		if err := rows.Scan(&n, &text); err != nil {
			return t, fmt.Errorf("transcript of %s: %w", docID, err)
		}
		pages[n] = text
	}
	if err := rows.Err(); err != nil {
		return t, fmt.Errorf("transcript of %s: %w", docID, err)
	}
	t.Segments = make([]Segment, 0, len(packed))
	for _, p := range packed {
		s := Segment{Page: int(p[0]), From: int(p[1]), To: int(p[2]), Start: float64(p[3]) / 1000, End: float64(p[4]) / 1000}
		text := pages[s.Page]
		// Offsets are only worth the text they point to: a segment whose page no longer
		// holds it is dropped rather than shown with another's words.
		if s.From < 0 || s.To < s.From || s.To > len(text) {
			continue
		}
		s.Text = text[s.From:s.To]
		t.Segments = append(t.Segments, s)
	}
	return t, nil
}
