package online

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/carrel-app/carrel/backend/ingest"
)

// videoID matches a YouTube video id: 11 characters of the URL-safe base64 alphabet.
var videoID = regexp.MustCompile(`^[A-Za-z0-9_-]{11}$`)

// youtubeID is the video id of a YouTube video URL (watch?v=, youtu.be/, shorts/,
// embed/, live/), or "".
func youtubeID(u *url.URL) string {
	h := site(u.Hostname())
	var id string
	switch {
	case h == "youtu.be":
		id = strings.Trim(u.Path, "/")
	case h == "youtube.com" || h == "m.youtube.com" || h == "music.youtube.com" || h == "youtube-nocookie.com":
		if u.Path == "/watch" {
			id = u.Query().Get("v")
			break
		}
		for _, p := range []string{"/shorts/", "/embed/", "/live/", "/v/"} {
			if strings.HasPrefix(u.Path, p) {
				id = strings.Trim(strings.TrimPrefix(u.Path, p), "/")
			}
		}
	}
	if videoID.MatchString(id) {
		return id
	}
	return ""
}

// playerResponse is the part of a watch page's ytInitialPlayerResponse Carrel reads.
type playerResponse struct {
	PlayabilityStatus struct {
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"playabilityStatus"`
	VideoDetails struct {
		VideoID       string `json:"videoId"`
		Title         string `json:"title"`
		Author        string `json:"author"`
		LengthSeconds string `json:"lengthSeconds"`
	} `json:"videoDetails"`
	Captions struct {
		Renderer struct {
			Tracks []captionTrack `json:"captionTracks"`
		} `json:"playerCaptionsTracklistRenderer"`
	} `json:"captions"`
}

type captionTrack struct {
	BaseURL string `json:"baseUrl"`
	Name    struct {
		SimpleText string `json:"simpleText"`
		Runs       []struct {
			Text string `json:"text"`
		} `json:"runs"`
	} `json:"name"`
	VssID        string `json:"vssId"`
	LanguageCode string `json:"languageCode"`
	Kind         string `json:"kind"` // "asr" for automatic captions
}

func (t captionTrack) name() string {
	if t.Name.SimpleText != "" {
		return t.Name.SimpleText
	}
	var b strings.Builder
	for _, r := range t.Name.Runs {
		b.WriteString(r.Text)
	}
	return b.String()
}

// youtube reads a video's captions: the tracks its watch page lists
// (ytInitialPlayerResponse), the best one chosen (manual before automatic, the user's
// language before English before any other), fetched from the timedtext URL the page
// gives. No API key is needed.
func (c *Client) youtube(ctx context.Context, u *url.URL) (*Source, error) {
	id := youtubeID(u)
	watch := "https://www.youtube.com/watch?v=" + id
	wu, _ := url.Parse(watch)
	r, err := c.fetch(ctx, wu, "text/html", c.opts.Limits.MaxBytes)
	if err != nil {
		return nil, err
	}
	pr, err := playerResponseOf(r.Body)
	if err != nil {
		return nil, newError(ErrServer, watch, "the watch page lists no player data", err)
	}
	switch st := pr.PlayabilityStatus; st.Status {
	case "", "OK", "LIVE_STREAM_OFFLINE":
	case "LOGIN_REQUIRED":
		return nil, newError(ErrLogin, watch, strings.TrimSpace("YouTube: "+st.Reason), nil)
	default:
		return nil, newError(ErrNotFound, watch, strings.TrimSpace("YouTube: "+firstNonEmpty(st.Reason, st.Status)), nil)
	}
	track, ok := chooseTrack(pr.Captions.Renderer.Tracks, c.opts.Language)
	if !ok {
		return nil, newError(ErrNoContent, watch, "the video has no captions; Carrel reads a video's captions, not its sound", nil)
	}
	tu, err := wu.Parse(track.BaseURL)
	if err != nil || (tu.Scheme != "https" && tu.Scheme != "http") {
		return nil, newError(ErrServer, watch, "the captions track has no usable address", err)
	}
	tr, err := c.fetch(ctx, tu, "*/*", c.opts.Limits.MaxPageBytes)
	if err != nil {
		return nil, err
	}
	cues, err := parseTimedText(tr.Body)
	if err != nil {
		return nil, newError(ErrServer, watch, "the captions track cannot be read", err)
	}
	if len(cues) == 0 {
		return nil, newError(ErrNoContent, watch, "YouTube sent an empty captions track", nil)
	}
	dur, _ := strconv.ParseFloat(pr.VideoDetails.LengthSeconds, 64)
	capt := ingest.Captions{Format: ingest.CaptionsFormat, URL: watch, VideoID: id, Title: pr.VideoDetails.Title,
		Channel: pr.VideoDetails.Author, Duration: dur, Language: track.LanguageCode, Name: track.name(),
		Automatic: track.Kind == "asr", Cues: cues}
	if capt.Title == "" {
		capt.Title = "YouTube video " + id
	}
	b, err := json.Marshal(capt)
	if err != nil {
		return nil, fmt.Errorf("captions of %s: %w", watch, err)
	}
	return &Source{URL: watch, Kind: KindVideo, Title: capt.Title, Data: b, Ext: ".json"}, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// playerResponseOf finds `ytInitialPlayerResponse = {...}` in a watch page and decodes
// the object (the decoder stops at its end, whatever follows it).
func playerResponseOf(page []byte) (*playerResponse, error) {
	const marker = "ytInitialPlayerResponse"
	i := bytes.Index(page, []byte(marker))
	for i >= 0 {
		rest := page[i+len(marker):]
		if j := bytes.IndexByte(rest, '{'); j >= 0 && len(bytes.TrimSpace(bytes.TrimLeft(bytes.TrimSpace(rest[:j]), "="))) == 0 {
			var pr playerResponse
			if err := json.NewDecoder(bytes.NewReader(rest[j:])).Decode(&pr); err != nil {
				return nil, err
			}
			return &pr, nil
		}
		k := bytes.Index(rest, []byte(marker))
		if k < 0 {
			break
		}
		i += len(marker) + k
	}
	return nil, fmt.Errorf("no %s in the page", marker)
}

// chooseTrack picks the captions to read: manual captions before automatic ones, and
// within each, the user's language, then English, then the first listed.
func chooseTrack(tracks []captionTrack, lang string) (captionTrack, bool) {
	if len(tracks) == 0 {
		return captionTrack{}, false
	}
	base := func(code string) string { b, _, _ := strings.Cut(strings.ToLower(code), "-"); return b }
	score := func(t captionTrack) int {
		s := 0
		if t.Kind != "asr" {
			s += 100
		}
		switch {
		case lang != "" && strings.EqualFold(t.LanguageCode, lang):
			s += 30
		case lang != "" && base(t.LanguageCode) == base(lang):
			s += 20
		case base(t.LanguageCode) == "en":
			s += 10
		}
		return s
	}
	best := tracks[0]
	for _, t := range tracks[1:] {
		if score(t) > score(best) {
			best = t
		}
	}
	return best, true
}

// parseTimedText reads a timedtext answer in any of its formats: json3 ({"events":
// [{"tStartMs","dDurationMs","segs":[{"utf8"}]}]}), srv3 (<timedtext><body><p t d>) or
// the classic XML (<transcript><text start dur>).
func parseTimedText(b []byte) ([]ingest.Cue, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, nil
	}
	if b[0] == '{' {
		var j struct {
			Events []struct {
				TStartMs    float64 `json:"tStartMs"`
				DDurationMs float64 `json:"dDurationMs"`
				Segs        []struct {
					UTF8 string `json:"utf8"`
				} `json:"segs"`
			} `json:"events"`
		}
		if err := json.Unmarshal(b, &j); err != nil {
			return nil, err
		}
		var out []ingest.Cue
		for _, e := range j.Events {
			var t strings.Builder
			for _, s := range e.Segs {
				t.WriteString(s.UTF8)
			}
			out = appendCue(out, e.TStartMs/1000, (e.TStartMs+e.DDurationMs)/1000, t.String())
		}
		return out, nil
	}
	var doc struct {
		Texts []struct {
			Start string `xml:"start,attr"`
			Dur   string `xml:"dur,attr"`
			Body  string `xml:",innerxml"`
		} `xml:"text"`
		Ps []struct {
			T    string `xml:"t,attr"`
			D    string `xml:"d,attr"`
			Body string `xml:",innerxml"`
		} `xml:"body>p"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var out []ingest.Cue
	for _, t := range doc.Texts {
		s, _ := strconv.ParseFloat(t.Start, 64)
		d, _ := strconv.ParseFloat(t.Dur, 64)
		out = appendCue(out, s, s+d, t.Body)
	}
	for _, p := range doc.Ps {
		s, _ := strconv.ParseFloat(p.T, 64)
		d, _ := strconv.ParseFloat(p.D, 64)
		out = appendCue(out, s/1000, (s+d)/1000, p.Body)
	}
	return out, nil
}

var tags = regexp.MustCompile(`<[^>]*>`)

// appendCue adds a cue, its text freed of markup (<s> word timings, <font>) and of the
// entities the classic format escapes twice; empty cues (line breaks) are dropped.
func appendCue(cues []ingest.Cue, start, end float64, text string) []ingest.Cue {
	text = html.UnescapeString(tags.ReplaceAllString(html.UnescapeString(text), ""))
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return cues
	}
	return append(cues, ingest.Cue{Start: start, End: max(end, start), Text: text})
}
