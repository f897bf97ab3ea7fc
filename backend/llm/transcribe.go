package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"os"
	"path/filepath"
)

// DefaultTranscriptionModel is OpenAI's speech-to-text model that gives segment
// timestamps (response_format verbose_json); the gpt-4o transcribe models give text only.
const DefaultTranscriptionModel = "whisper-1"

// TranscriptionPrices are OpenAI's speech-to-text prices in US dollars per minute of
// audio (as of [PricesAsOf]).
var TranscriptionPrices = map[string]float64{
	"whisper-1":              0.006,
	"gpt-4o-transcribe":      0.006,
	"gpt-4o-mini-transcribe": 0.003,
}

// TranscriptionCost is what seconds of audio cost with model, billed by the second;
// ok is false for a model without a known price.
func TranscriptionCost(model string, seconds float64) (usd float64, ok bool) {
	p, ok := TranscriptionPrices[model]
	return p * seconds / 60, ok
}

// Transcription is OpenAI's transcript of one audio file.
type Transcription struct {
	Language string
	// Duration is the audio's length in seconds, as the service measured it (and bills).
	Duration float64
	Segments []TranscriptSegment
}

// TranscriptSegment is one timed stretch of a [Transcription].
type TranscriptSegment struct {
	Start, End float64 // seconds
	Text       string
}

// Transcribe sends the audio file at path to OpenAI's transcription endpoint
// (POST /audio/transcriptions, multipart) and returns its segments with times:
// response_format verbose_json with timestamp_granularities[] = segment. language is
// an ISO-639-1 code, or "" to let the service detect it. The file must be under the
// service's 25 MB limit.
func (o *OpenAI) Transcribe(ctx context.Context, model, path, language string) (*Transcription, error) {
	if model == "" {
		model = DefaultTranscriptionModel
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcribe: %w", err)
	}
	defer f.Close()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	fields := [][2]string{{"model", model}, {"response_format", "verbose_json"}, {"timestamp_granularities[]", "segment"}}
	if language != "" && language != "auto" {
		fields = append(fields, [2]string{"language", language})
	}
	for _, kv := range fields {
		if err := w.WriteField(kv[0], kv[1]); err != nil {
			return nil, err
		}
	}
	part, err := w.CreateFormFile("file", filepath.Base(path))
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(part, f); err != nil {
		return nil, fmt.Errorf("transcribe: read %s: %w", filepath.Base(path), err)
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	r, err := o.client.post(ctx, joinURL(o.base, "audio/transcriptions"), w.FormDataContentType(), "application/json", body.Bytes())
	if err != nil {
		var he *httpError
		if errors.As(err, &he) {
			return nil, he.classify("OpenAI", model, err)
		}
		return nil, fmt.Errorf("OpenAI transcription: %w", err)
	}
	defer r.Close()
	var out struct {
		Language string  `json:"language"`
		Duration float64 `json:"duration"`
		Text     string  `json:"text"`
		Segments []struct {
			Start float64 `json:"start"`
			End   float64 `json:"end"`
			Text  string  `json:"text"`
		} `json:"segments"`
	}
	if err := json.NewDecoder(io.LimitReader(r, 64<<20)).Decode(&out); err != nil {
		return nil, fmt.Errorf("OpenAI transcription: read the response: %w", err)
	}
	t := &Transcription{Language: out.Language, Duration: out.Duration}
	for _, s := range out.Segments {
		t.Segments = append(t.Segments, TranscriptSegment{Start: s.Start, End: s.End, Text: s.Text})
	}
	if len(t.Segments) == 0 && out.Text != "" {
		// A server that ignores the granularity: one segment over the whole file.
		t.Segments = []TranscriptSegment{{Start: 0, End: out.Duration, Text: out.Text}}
	}
	return t, nil
}
