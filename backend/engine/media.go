package engine

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/llm"
)

// mediaOptions are the settings of transcribing recordings, from config.json: the
// recogniser chosen, whisper.cpp's program and model, the language, and OpenAI's
// transcription when the user chose it and OpenAI answers.
func (e *Engine) mediaOptions() ingest.MediaOptions {
	cfg := e.Config()
	o := ingest.MediaOptions{Recognizer: cfg.Transcriber, Whisper: cfg.WhisperProgram, WhisperModel: cfg.WhisperModel, Language: cfg.SpeechLanguage}
	if cfg.Transcriber == document.RecognizerOpenAI {
		// Only while OpenAI is turned on (it answers): choosing it for recordings alone
		// sends nothing anywhere; the recording then fails saying so.
		if provider, _ := e.providerModel(); provider == ProviderOpenAI {
			o.Cloud = &openAITranscriber{e: e, model: llm.DefaultTranscriptionModel, language: cfg.SpeechLanguage}
		}
	}
	return o
}

// openAITranscriber transcribes pieces of a recording with OpenAI's endpoint, charging
// each piece's minutes to the cost ledger and refusing once the budget is spent.
type openAITranscriber struct {
	e        *Engine
	model    string
	language string
}

func (t *openAITranscriber) Name() string { return "OpenAI " + t.model }

// Ten minutes of 16 kHz 16-bit mono WAV is 19.2 MB, under the endpoint's 25 MB.
func (t *openAITranscriber) MaxPiece() time.Duration { return 10 * time.Minute }

func (t *openAITranscriber) Transcribe(ctx context.Context, wav string, seconds float64) ([]ingest.Segment, error) {
	meter, err := t.e.Meter(ctx)
	if err != nil {
		return nil, err
	}
	if meter.BudgetUSD > 0 && meter.BudgetUsed >= 1 {
		return nil, fmt.Errorf("%w: $%.2f of the $%.2f budget is spent; raise the cap in Settings or choose a local recogniser", ErrBudgetExceeded, meter.TotalUSD, meter.BudgetUSD)
	}
	key, _, err := llm.APIKey(ProviderOpenAI)
	if err != nil {
		return nil, err
	}
	cfg := t.e.Config()
	client := llm.NewOpenAI(llm.CloudOptions{APIKey: key, BaseURL: cfg.OpenAIBaseURL, HTTPClient: t.e.httpClient(), MaxRetries: -1})
	tr, err := client.Transcribe(ctx, t.model, wav, t.language)
	if err != nil {
		return nil, err
	}
	// Billed by the second of audio: the service's own measure when it gives one.
	billed := tr.Duration
	if billed <= 0 {
		billed = seconds
	}
	usd, _ := llm.TranscriptionCost(t.model, math.Ceil(billed))
	if err := t.e.lib.AddCost(context.WithoutCancel(ctx), string(ProviderOpenAI), t.model, usd); err != nil {
		return nil, err
	}
	segs := make([]ingest.Segment, len(tr.Segments))
	for i, s := range tr.Segments {
		segs[i] = ingest.Segment{Start: s.Start, End: s.End, Text: s.Text}
	}
	return segs, nil
}

// MediaSettings are the settings of transcribing recordings as Settings shows them, with
// the programs found on this machine.
type MediaSettings struct {
	// Transcriber: "" (the best local one), "whisper.cpp", "pocketsphinx" or "openai".
	Transcriber    document.Recognizer `json:"transcriber"`
	WhisperModel   string              `json:"whisper_model"`
	WhisperProgram string              `json:"whisper_program"`
	SpeechLanguage string              `json:"speech_language"`
	// Tools are the programs found, and Using the recogniser a recording would get now.
	Tools ingest.MediaTools   `json:"tools"`
	Using document.Recognizer `json:"using"`
	// OpenAIOn says whether OpenAI answers (the condition for transcribing with it).
	OpenAIOn bool `json:"openai_on"`
	// PricePerMinute is OpenAI's transcription price in dollars.
	PricePerMinute float64 `json:"price_per_minute"`
}

// MediaSettings returns the transcription settings in force and what is installed.
func (e *Engine) MediaSettings() MediaSettings {
	cfg := e.Config()
	o := e.mediaOptions()
	provider, _ := e.providerModel()
	s := MediaSettings{Transcriber: cfg.Transcriber, WhisperModel: cfg.WhisperModel, WhisperProgram: cfg.WhisperProgram,
		SpeechLanguage: cfg.SpeechLanguage, Tools: ingest.FindMediaTools(o), OpenAIOn: provider == ProviderOpenAI,
		PricePerMinute: llm.TranscriptionPrices[llm.DefaultTranscriptionModel]}
	s.Using = s.Tools.Recognizer
	return s
}

// SetMediaSettings checks and saves new transcription settings in config.json.
func (e *Engine) SetMediaSettings(s MediaSettings) error {
	switch s.Transcriber {
	case document.RecognizerNone, document.RecognizerWhisper, document.RecognizerPocketSphinx, document.RecognizerOpenAI:
	default:
		return fmt.Errorf("unknown speech recogniser %q: use whisper.cpp, pocketsphinx or openai (or none for the best local one)", s.Transcriber)
	}
	if s.Transcriber == document.RecognizerWhisper && s.WhisperModel == "" {
		return fmt.Errorf("whisper.cpp needs a model file (ggml-base.en.bin, …): give its path")
	}
	e.cfgMu.Lock()
	defer e.cfgMu.Unlock()
	saved, err := LoadConfig(e.cfg.Dir)
	if err != nil {
		return err
	}
	mc := MediaConfig{Transcriber: s.Transcriber, WhisperModel: s.WhisperModel, WhisperProgram: s.WhisperProgram, SpeechLanguage: s.SpeechLanguage}
	saved.MediaConfig = mc
	if err := SaveConfig(e.cfg.Dir, saved); err != nil {
		return err
	}
	e.cfg.MediaConfig = mc
	return nil
}
