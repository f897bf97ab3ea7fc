package ingest

import (
	"fmt"
	"math"
	"strings"

	"github.com/carrel-app/carrel/backend/document"
)

// Transcript is the timed text of a recording: the one model for every source of timed
// text (a recogniser run on an audio or video file, a video's captions track). The
// document's pages hold the text, one segment a line; each segment knows the time span
// it was said in and where its text is on the pages, so that any passage (a chunk, a
// cited sentence) maps back to a time span with [Transcript.TimeAt].
type Transcript struct {
	// Source names what made the text, for the user: "PocketSphinx (en-us)",
	// "whisper.cpp (ggml-base.en.bin)", "OpenAI whisper-1", "YouTube captions (en, manual)".
	Source string
	// Recognizer is the machine-readable source (document.RecognizerCaptions for text
	// that was not recognised here).
	Recognizer document.Recognizer
	// Media is the recording the times refer to.
	Media Media
	// Duration is the recording's length in seconds (0 when unknown).
	Duration float64
	// Segments are in time order; their text does not overlap on the pages.
	Segments []Segment
}

// Media is where a transcript's recording is: a local file, or a page on the web that
// plays it (a video URL). Exactly one of Path and URL is set.
type Media struct {
	// Kind is document.KindAudio or document.KindVideo: what a player needs to show.
	Kind document.Kind
	// Path is the local recording (the document's own file).
	Path string
	// URL is an external player page (https://www.youtube.com/watch?v=…); a citation
	// offers it at its time.
	URL string
}

// Segment is one stretch of speech: a recogniser's segment or a caption cue.
type Segment struct {
	// Start and End are seconds from the start of the recording, Start <= End.
	Start float64
	End   float64
	// Text is what was said, white space collapsed.
	Text string
	// Page, From and To are where Text is in the document: 1-based page, byte offsets in
	// the page's text [From, To). Set by [LayoutTranscript].
	Page int
	From int
	To   int
}

// paragraphPause is the silence that starts a new paragraph of a transcript: long
// enough that it marks a change of thought more often than a breath.
const paragraphPause = 2.0

// LayoutTranscript sets doc's pages from t's segments: one segment a line, a paragraph
// break after a pause of [paragraphPause] seconds, pages cut like a text file's. It
// records on each segment where its text went, drops segments without text, and sets
// doc.Transcript. Callers (the media reader, a captions reader) fill t's segments and
// media first. It fails with [ErrEmpty] when no segment has text.
func LayoutTranscript(doc *Document, t *Transcript) error {
	var b strings.Builder
	var segs []Segment
	var at []int // byte offset of each kept segment in the whole text
	prevEnd := math.Inf(-1)
	for _, s := range t.Segments {
		s.Text = collapse(cleanLine(validUTF8(s.Text)))
		if s.Text == "" {
			continue
		}
		if s.End < s.Start {
			s.End = s.Start
		}
		if b.Len() > 0 {
			if s.Start-prevEnd >= paragraphPause {
				b.WriteString("\n\n")
			} else {
				b.WriteString("\n")
			}
		}
		at = append(at, b.Len())
		b.WriteString(s.Text)
		segs = append(segs, s)
		prevEnd = max(prevEnd, s.End)
	}
	text := b.String()
	if len(segs) == 0 {
		return newError(ErrEmpty, doc.Path, "no speech was recognised in the recording", nil)
	}
	doc.Pages, _ = pagesOf(text, nil, nil)
	// Pages are slices of text without their edge white space; find where each starts.
	starts := make([]int, len(doc.Pages))
	cur := 0
	for i, p := range doc.Pages {
		k := strings.Index(text[cur:], p.Text)
		if k < 0 {
			return fmt.Errorf("lay out transcript of %s: page %d not found in its text", doc.Path, i+1)
		}
		starts[i] = cur + k
		cur += k + len(p.Text)
	}
	pg := 0
	for i := range segs {
		from := at[i]
		for pg+1 < len(starts) && starts[pg+1] <= from {
			pg++
		}
		ps := starts[pg]
		segs[i].Page = pg + 1
		segs[i].From = min(from-ps, len(doc.Pages[pg].Text))
		segs[i].To = min(from+len(segs[i].Text)-ps, len(doc.Pages[pg].Text))
	}
	t.Segments = segs
	if t.Duration <= 0 && len(segs) > 0 {
		t.Duration = segs[len(segs)-1].End
	}
	doc.Transcript = t
	return nil
}

// TimeAt returns the time (seconds) at which the text at byte offset off of page was
// said: the start of the segment holding it, or of the next segment when off falls
// between segments. ok is false when the position is past every segment.
func (t *Transcript) TimeAt(page, off int) (sec float64, ok bool) {
	return SegmentTime(t.Segments, page, off)
}

// SegmentTime is [Transcript.TimeAt] over a segment list.
func SegmentTime(segs []Segment, page, off int) (float64, bool) {
	for _, s := range segs {
		if s.Page > page || (s.Page == page && s.To > off) {
			return s.Start, true
		}
	}
	return 0, false
}

// Clock formats seconds as m:ss, or h:mm:ss from an hour: how citations show a time.
func Clock(sec float64) string {
	if sec < 0 || math.IsNaN(sec) {
		sec = 0
	}
	n := int(sec)
	if n >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", n/3600, n/60%60, n%60)
	}
	return fmt.Sprintf("%d:%02d", n/60, n%60)
}

// RecognizerAdvice tells the user how to get a better transcript than recognizer gives,
// or "" when there is no better one to suggest.
func RecognizerAdvice(recognizer document.Recognizer) string {
	if recognizer != document.RecognizerPocketSphinx {
		return ""
	}
	return "PocketSphinx is a basic offline recogniser and misses many words. For a much better transcript, install whisper.cpp (its whisper-cli program) and choose a model file in Settings → Audio and video, or, while OpenAI answers, choose OpenAI there (priced per minute); then re-read the recording."
}
