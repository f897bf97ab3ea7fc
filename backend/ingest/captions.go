package ingest

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/carrel-app/carrel/backend/document"
)

// CaptionsFormat marks a video's captions saved by backend/online as JSON (a YouTube
// video's captions track), read back by [File] as a timed transcript.
const CaptionsFormat = "carrel-captions/1"

// Captions is a video's captions track as Carrel keeps it.
type Captions struct {
	// Format is CaptionsFormat; it comes first in the file, where File looks for it.
	Format string `json:"format"`
	// URL is the video's watch page (https://www.youtube.com/watch?v=ID), VideoID its id.
	URL     string `json:"url"`
	VideoID string `json:"video_id"`
	// Title and Channel name the video; Duration is its length in seconds (0: unknown).
	Title    string  `json:"title"`
	Channel  string  `json:"channel,omitempty"`
	Duration float64 `json:"duration,omitempty"`
	// Language is the track's language code ("en"), Name its name as the site shows it,
	// and Automatic is set for captions made by speech recognition (YouTube's "asr").
	Language  string `json:"language"`
	Name      string `json:"name,omitempty"`
	Automatic bool   `json:"automatic,omitempty"`
	// Cues are the captions in time order.
	Cues []Cue `json:"cues"`
}

// Cue is one caption: its text and when it shows, in seconds from the start.
type Cue struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Text  string  `json:"text"`
}

// isCaptions reports whether data is a captions snapshot.
func isCaptions(data []byte) bool {
	head := data[:min(len(data), 64)]
	return bytes.Contains(head, []byte(`"format":"`+CaptionsFormat+`"`)) || bytes.Contains(head, []byte(`"format": "`+CaptionsFormat+`"`))
}

// readCaptions reads a video's captions as a timed transcript (the one model of timed
// text, transcript.go): each cue a segment, so that a citation names when it was said
// and the viewer offers the video at that time on the site (Media.URL).
func readCaptions(ctx context.Context, doc *Document, data []byte) error {
	var c Captions
	if err := json.Unmarshal(data, &c); err != nil {
		return newError(ErrCorrupt, doc.Path, "a captions snapshot that is not valid JSON", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	name := c.Name
	if name == "" {
		name = c.Language
		if c.Automatic {
			name += ", automatic"
		}
	}
	t := &Transcript{Source: "YouTube captions (" + name + ")", Recognizer: document.RecognizerCaptions,
		Media: Media{Kind: document.KindVideo, URL: c.URL}, Duration: c.Duration}
	for _, q := range c.Cues {
		t.Segments = append(t.Segments, Segment{Start: q.Start, End: q.End, Text: q.Text})
	}
	if err := LayoutTranscript(doc, t); err != nil {
		return err
	}
	doc.Title, doc.Author, doc.URL = cleanLine(c.Title), cleanLine(c.Channel), c.URL
	if doc.Title == "" {
		doc.Title = c.URL
	}
	return nil
}
