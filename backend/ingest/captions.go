package ingest

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
	// Fetched is when the captions were read (RFC 3339).
	Fetched string `json:"fetched,omitempty"`
	// Cues are the captions in time order.
	Cues []Cue `json:"cues"`
}

// Cue is one caption: its text and when it shows, in seconds from the start.
type Cue struct {
	Start float64 `json:"start"`
	End   float64 `json:"end"`
	Text  string  `json:"text"`
}
