package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testaudio"
	"github.com/zalando/go-keyring"
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
	res, err := eng.Intake().IngestFile(ctx, f.MP3, func(d library.Document) {
		progress = append(progress, fmt.Sprintf("%s %d/%d", d.Status, d.Done, d.Total))
	})
	if err != nil || res.Status != Inserted {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	doc, err := eng.Library().Document(ctx, res.DocID)
	if err != nil || doc.Kind != document.KindAudio {
		t.Fatalf("document %+v %v", doc, err)
	}
	if !strings.Contains(strings.Join(progress, ","), "extracting 1/1") {
		t.Errorf("progress %v: want extracting 1/1 (minutes)", progress)
	}
	tr, err := eng.Transcript(ctx, res.DocID)
	if err != nil || tr.Recognizer != document.RecognizerPocketSphinx || tr.MediaPath != f.MP3 || len(tr.Segments) < 3 {
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
	if err := eng.Intake().Remove(ctx, res.DocID); err != nil {
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
	res, err := eng.Intake().IngestFile(context.Background(), f.Silent, nil)
	if err != nil || res.Status != Failed || !strings.Contains(res.Error, "no audio track") {
		t.Fatalf("silent video: %+v %v", res, err)
	}
}

// fakeTranscriptions is a local server speaking OpenAI's POST /audio/transcriptions
// (multipart in, verbose_json out): it checks the key and the form, measures the WAV it
// was sent, and answers with the spoken sentences at their times.
func fakeTranscriptions(t *testing.T, f testaudio.Files) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/audio/transcriptions" || r.Header.Get("Authorization") != "Bearer sk-test-audio" {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`)
			return
		}
		if err := r.ParseMultipartForm(64 << 20); err != nil {
			http.Error(w, `{"error":{"message":"bad form","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		file, hdr, err := r.FormFile("file")
		if err != nil || r.FormValue("model") != "whisper-1" || r.FormValue("response_format") != "verbose_json" ||
			r.FormValue("timestamp_granularities[]") != "segment" || !strings.HasSuffix(hdr.Filename, ".wav") {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"unexpected request: %v %q","type":"invalid_request_error"}}`, err, r.MultipartForm.Value)
			return
		}
		b, _ := io.ReadAll(file)
		if len(b) < 44 || string(b[:4]) != "RIFF" || binary.LittleEndian.Uint32(b[24:]) != 16000 {
			http.Error(w, `{"error":{"message":"not 16 kHz WAV","type":"invalid_request_error"}}`, http.StatusBadRequest)
			return
		}
		dur := float64(len(b)-44) / 32000
		type seg struct {
			ID    int     `json:"id"`
			Start float64 `json:"start"`
			End   float64 `json:"end"`
			Text  string  `json:"text"`
		}
		var segs []seg
		for i, s := range testaudio.Sentences {
			segs = append(segs, seg{ID: i, Start: f.Spans[i][0], End: f.Spans[i][1], Text: " " + s})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"task": "transcribe", "language": "english", "duration": dur,
			"text": strings.Join(testaudio.Sentences, " "), "segments": segs})
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// verifies recordings go to OpenAI's transcription endpoint only when the user chose it
// and OpenAI is turned on; that its segments become the transcript, and that the minutes
// are priced into the cost ledger (the meter's total, not as an answer).
func TestAudioOpenAITranscription(t *testing.T) {
	keyring.MockInit()
	t.Setenv("OPENAI_API_KEY", "sk-test-audio")
	f := testaudio.Make(t)
	srv, calls := fakeTranscriptions(t, f)
	ctx := context.Background()

	// Chosen for recordings, but OpenAI does not answer: nothing is sent.
	eng := openEngine(t, Config{AnswerConfig: AnswerConfig{OpenAIBaseURL: srv.URL}, MediaConfig: MediaConfig{Transcriber: "openai"}})
	res, err := eng.Intake().IngestFile(ctx, f.MP3, nil)
	if err != nil || res.Status != Failed || !strings.Contains(res.Error, "OpenAI is not turned on") || calls.Load() != 0 {
		t.Fatalf("openai off: %+v %v (calls %d)", res, err, calls.Load())
	}

	eng = openEngine(t, Config{AnswerConfig: AnswerConfig{Provider: ProviderOpenAI, OpenAIBaseURL: srv.URL}, MediaConfig: MediaConfig{Transcriber: "openai"}})
	res, err = eng.Intake().IngestFile(ctx, f.MP3, nil)
	if err != nil || res.Status != Inserted {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	tr, err := eng.Transcript(ctx, res.DocID)
	if err != nil || tr.Recognizer != "openai" || tr.Source != "OpenAI whisper-1" || len(tr.Segments) != len(testaudio.Sentences) || calls.Load() != 1 {
		t.Fatalf("transcript %+v %v (calls %d)", tr, err, calls.Load())
	}
	for i, s := range tr.Segments {
		if s.Text != testaudio.Sentences[i] || math.Abs(s.Start-f.Spans[i][0]) > 0.01 {
			t.Errorf("segment %d: %+v", i, s)
		}
	}
	m, err := eng.Meter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.006 * math.Ceil(f.Spans[len(f.Spans)-1][1]) / 60
	t.Logf("meter after %.1f s of audio: $%.5f (%d answers)", f.Spans[len(f.Spans)-1][1], m.TotalUSD, m.Answers)
	if math.Abs(m.TotalUSD-want) > 0.0002 || m.Answers != 0 {
		t.Errorf("meter total $%.5f, answers %d; want $%.5f (whisper-1 at $0.006 a minute) and no answer", m.TotalUSD, m.Answers, want)
	}

	// A wrong key is a clear error, and costs nothing.
	t.Setenv("OPENAI_API_KEY", "sk-wrong")
	res, err = eng.Intake().IngestFile(ctx, f.MP4, nil)
	if err != nil || res.Status != Failed || !strings.Contains(strings.ToLower(res.Error), "key") {
		t.Fatalf("wrong key: %+v %v", res, err)
	}
	if m2, _ := eng.Meter(ctx); m2.TotalUSD != m.TotalUSD {
		t.Errorf("a refused transcription was charged: $%.5f → $%.5f", m.TotalUSD, m2.TotalUSD)
	}
}

// verifies the transcription settings are checked, saved in config.json (a reopened
// library has them) and used, and that the programs found are reported.
func TestMediaSettings(t *testing.T) {
	testaudio.Need(t, "pocketsphinx_continuous")
	dir := t.TempDir()
	eng := openEngine(t, Config{Dir: dir})
	s := eng.MediaSettings()
	if s.Tools.FFmpeg == "" || s.Tools.PocketSphinx == "" || s.Using == "" || s.OpenAIOn || s.PricePerMinute != 0.006 {
		t.Fatalf("settings %+v", s)
	}
	if err := eng.SetMediaSettings(MediaSettings{Transcriber: "dictaphone"}); err == nil {
		t.Error("an unknown recogniser was accepted")
	}
	if err := eng.SetMediaSettings(MediaSettings{Transcriber: "whisper.cpp"}); err == nil {
		t.Error("whisper.cpp without a model file was accepted")
	}
	if err := eng.SetMediaSettings(MediaSettings{Transcriber: "pocketsphinx", SpeechLanguage: "en"}); err != nil {
		t.Fatal(err)
	}
	if o := eng.mediaOptions(); o.Recognizer != "pocketsphinx" || o.Language != "en" || o.Cloud != nil {
		t.Errorf("options in force %+v", o)
	}
	eng.Close()
	saved, err := LoadConfig(dir) // as the app and the CLI open a library
	if err != nil {
		t.Fatal(err)
	}
	eng = openEngine(t, saved)
	if s := eng.MediaSettings(); s.Transcriber != "pocketsphinx" || s.Using != "pocketsphinx" {
		t.Errorf("after reopening: %+v", s)
	}
}
