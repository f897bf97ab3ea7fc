package testsites

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The YouTube videos: YouTubeVideo has manual English and German captions and automatic
// English ones; YouTubeAuto only automatic ones; YouTubeNoCaptions none; YouTubeLogin is
// age-restricted (LOGIN_REQUIRED).
const (
	YouTubeVideo      = "bEEs0aBcD12"
	YouTubeAuto       = "aut0Capti0n"
	YouTubeNoCaptions = "n0Capti0ns1"
	YouTubeLogin      = "ageRestr1ct"
	// YouTubeFact is said from 65.5 s to 71.2 s in the manual English captions.
	YouTubeFact      = "A forager visits up to one hundred flowers on a single trip."
	YouTubeFactStart = 65.5
)

// manualEN is the classic timedtext XML (the format baseUrl gives without fmt), with its
// doubly escaped entities.
var manualEN = `<?xml version="1.0" encoding="utf-8" ?><transcript>
<text start="0.5" dur="4.1">Welcome to this lecture on honey bees.</text>
<text start="4.6" dur="5.2">Today we follow a forager from the hive to the flowers &amp;amp; back.</text>
<text start="12" dur="6.3">Bees don&amp;#39;t wander at random: scouts tell them where to go.</text>
` + fillerCues() + `<text start="65.5" dur="5.7">` + YouTubeFact + `</text>
<text start="71.2" dur="4">It comes home with nectar and pollen.</text>
<text start="130" dur="3">Thank you for watching.</text>
</transcript>`

// asrEN is YouTube's json3 format, as automatic captions come (word by word).
const asrEN = `{"wireMagic":"pb3","events":[{"tStartMs":0,"dDurationMs":4000,"id":1,"wpWinPosId":1,"wsWinStyleId":1},
{"tStartMs":500,"dDurationMs":4100,"wWinId":1,"segs":[{"utf8":"welcome"},{"utf8":" to","tOffsetMs":400},{"utf8":" this lecture AUTOMATIC","tOffsetMs":800}]},
{"tStartMs":4600,"dDurationMs":10,"aAppend":1,"segs":[{"utf8":"\n"}]}]}`

// manualDE is srv3.
const manualDE = `<?xml version="1.0" encoding="utf-8" ?><timedtext format="3"><body>
<p t="500" d="4100">Willkommen zur Vorlesung über Honigbienen.</p>
<p t="65500" d="5700">Eine Sammlerin besucht bis zu hundert Blüten auf einem Flug.</p>
</body></timedtext>`

// fillerCues are fifteen lines said between 19 s and 64 s: enough text that the fact
// after them falls in a later passage than the start, so its citation has a time of its own.
func fillerCues() string {
	var b strings.Builder
	for i := range 15 {
		fmt.Fprintf(&b, "<text start=\"%d\" dur=\"3\">Line %d of the middle part: the scouts dance on the comb to share what they found.</text>\n", 19+3*i, i+1)
	}
	return b.String()
}

func track(id, lang, name, kind string) map[string]any {
	t := map[string]any{
		"baseUrl":        fmt.Sprintf("https://www.youtube.com/api/timedtext?v=%s&ei=x&caps=asr&opi=1&xoaf=5&hl=en&ip=0.0.0.0&ipbits=0&expire=1&sparams=ip&signature=AB&key=yt8&lang=%s%s", id, lang, map[string]string{"asr": "&kind=asr"}[kind]),
		"name":           map[string]any{"simpleText": name},
		"vssId":          map[string]string{"asr": "a.", "": "."}[kind] + lang,
		"languageCode":   lang,
		"isTranslatable": true,
		"trackName":      "",
	}
	if kind != "" {
		t["kind"] = kind
	}
	return t
}

func (s *Sites) youtube(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/watch":
		s.watchPage(w, r.URL.Query().Get("v"))
	case "/api/timedtext":
		q := r.URL.Query()
		switch {
		case q.Get("v") == YouTubeVideo && q.Get("lang") == "en" && q.Get("kind") == "":
			w.Header().Set("Content-Type", "text/xml; charset=UTF-8")
			w.Write([]byte(manualEN))
		case (q.Get("v") == YouTubeVideo || q.Get("v") == YouTubeAuto) && q.Get("lang") == "en" && q.Get("kind") == "asr":
			w.Header().Set("Content-Type", "application/json; charset=UTF-8")
			w.Write([]byte(asrEN))
		case q.Get("v") == YouTubeVideo && q.Get("lang") == "de":
			w.Header().Set("Content-Type", "text/xml; charset=UTF-8")
			w.Write([]byte(manualDE))
		default:
			w.WriteHeader(http.StatusOK) // YouTube answers an unknown track with an empty body
		}
	default:
		http.NotFound(w, r)
	}
}

func (s *Sites) watchPage(w http.ResponseWriter, id string) {
	pr := map[string]any{
		"responseContext":   map[string]any{"serviceTrackingParams": []any{}},
		"playabilityStatus": map[string]any{"status": "OK", "playableInEmbed": true},
		"videoDetails": map[string]any{"videoId": id, "title": "How Bees Find Flowers", "lengthSeconds": "142",
			"channelId": "UCbees", "author": "The Bee Lab", "shortDescription": "A lecture.", "isLiveContent": false},
	}
	var tracks []any
	switch id {
	case YouTubeVideo:
		tracks = []any{track(id, "en", "English (auto-generated)", "asr"), track(id, "de", "German", ""), track(id, "en", "English", "")}
	case YouTubeAuto:
		tracks = []any{track(id, "en", "English (auto-generated)", "asr")}
	case YouTubeNoCaptions:
	case YouTubeLogin:
		pr["playabilityStatus"] = map[string]any{"status": "LOGIN_REQUIRED", "reason": "Sign in to confirm your age"}
	default:
		pr["playabilityStatus"] = map[string]any{"status": "ERROR", "reason": "Video unavailable"}
	}
	if tracks != nil {
		pr["captions"] = map[string]any{"playerCaptionsTracklistRenderer": map[string]any{"captionTracks": tracks,
			"audioTracks": []any{map[string]any{"captionTrackIndices": []int{0, 1, 2}}}}}
	}
	b, _ := json.Marshal(pr)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	page := `<!DOCTYPE html><html><head><title>How Bees Find Flowers - YouTube</title>
<script nonce="x">var ytcfg = {"INNERTUBE_API_KEY":"k"};</script></head><body><div id="player"></div>
<script nonce="x">var ytInitialPlayerResponse = ` + string(b) + `;var meta = document.createElement('meta');</script>
<script nonce="x">var ytInitialData = {"contents":{}};</script></body></html>`
	w.Write([]byte(strings.ReplaceAll(page, "\n", "\n")))
}
