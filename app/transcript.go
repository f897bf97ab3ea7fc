package app

import (
	"net/url"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
)

// Transcript is what the viewer shows of a recording: its timed lines, which source made
// them (and how to get better ones), and where to play it.
type Transcript struct {
	DocID string `json:"doc_id"`
	// Source names what made the text ("PocketSphinx (en-us)"); Recognizer is its short
	// machine name ("pocketsphinx", "whisper.cpp", "openai", "captions").
	Source     string              `json:"source"`
	Recognizer document.Recognizer `json:"recognizer"`
	// Advice tells how to get a better transcript, when there is a better recogniser
	// than the one used; "" otherwise.
	Advice string `json:"advice"`
	// MediaKind is document.KindAudio or document.KindVideo; MediaURL is what a player plays: the library's
	// files/ route for a local recording, or a page on the web (External true).
	MediaKind document.Kind `json:"media_kind"`
	MediaURL  string        `json:"media_url"`
	External  bool          `json:"external"`
	Duration  float64       `json:"duration"`
	// Segments are the timed lines in time order, each with its text and its place
	// (page, byte offsets) in the document.
	Segments []library.Segment `json:"segments"`
}

// Transcript returns the timed text of a recording in the library.
func (a *App) Transcript(docID string) (Transcript, error) {
	defer a.ws.Enter()()
	t, err := a.eng().Transcript(a.ctx(), docID)
	if err != nil {
		return Transcript{}, err
	}
	out := Transcript{DocID: docID, Source: t.Source, Recognizer: t.Recognizer, Advice: ingest.RecognizerAdvice(t.Recognizer),
		MediaKind: t.MediaKind, Duration: t.Duration, Segments: t.Segments}
	switch {
	case t.MediaURL != "":
		out.MediaURL, out.External = t.MediaURL, true
	case t.MediaPath != "":
		out.MediaURL = "files/" + url.PathEscape(docID)
	}
	if out.Segments == nil {
		out.Segments = []library.Segment{}
	}
	return out, nil
}

// MediaSettings returns how recordings are transcribed (the recogniser chosen,
// whisper.cpp's model) and which programs are installed.
func (a *App) MediaSettings() engine.MediaSettings {
	defer a.ws.Enter()()
	return a.eng().MediaSettings()
}

// SetMediaSettings saves new transcription settings and returns them as now in force.
func (a *App) SetMediaSettings(s engine.MediaSettings) (engine.MediaSettings, error) {
	defer a.ws.Enter()()
	if err := a.eng().SetMediaSettings(s); err != nil {
		return engine.MediaSettings{}, err
	}
	return a.eng().MediaSettings(), nil
}
