// Package settings is a library's settings file (config.json: models, limits, the
// answering provider, budget and prices) and the choice of library folder (the one
// remembered from the app, or the standard one).
package settings

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
)

// Default models: small enough for a CPU-only laptop, good enough to study with.
const (
	DefaultChatModel  = "llama3.2:3b"
	DefaultEmbedModel = "all-minilm" // why: docs/embedders.md
)

// ConfigFile is the name of the per-library settings file.
const ConfigFile = "config.json"

// Config is what an Engine needs to know. Zero fields take defaults.
type Config struct {
	Dir        string `json:"-"`
	OllamaHost string `json:"ollama_host,omitempty"` // "" → $OLLAMA_HOST → 127.0.0.1:11434
	ChatModel  string `json:"chat_model,omitempty"`
	EmbedModel string `json:"embed_model,omitempty"`
	// MaxTokens caps the length of an answer.
	MaxTokens int `json:"max_tokens,omitempty"`
	// MaxContext caps num_ctx even when the model supports more, to bound memory use.
	MaxContext int `json:"max_context,omitempty"`
	// TopK is how many passages an answer is given.
	TopK int `json:"top_k,omitempty"`
	// MinVectorScore drops vector matches below this cosine similarity (-1: none). Left
	// out, it is measured for the embedding model and library (threshold.go).
	MinVectorScore float64 `json:"min_vector_score,omitempty"`
	// EmbedBatch is how many chunks go to the embedding model per request.
	EmbedBatch int `json:"embed_batch,omitempty"`
	// OllamaStallSeconds is how long Ollama may go silent in an answer or an embedding
	// request before it is given up as hung (0: llm.DefaultStallTimeout, 5 minutes,
	// enough for a large model to load from a slow disk).
	OllamaStallSeconds int `json:"ollama_stall_seconds,omitempty"`
	// OnlineOff turns online sources off entirely: no URL is fetched, and adding one
	// is refused with a message saying where to turn them on. Off by default, as adding
	// a URL is itself the user's explicit act.
	OnlineOff bool `json:"online_off,omitempty"`
	// OnlineTLS, when set, is the TLS configuration of online sources' connections:
	// tests trust their local servers' certificates with it. nil: the system's roots.
	OnlineTLS *tls.Config `json:"-"`
	// AnswerConfig: provider, cloud models, budget, prices, keep-alive.
	AnswerConfig
	// MediaConfig: how recordings are transcribed.
	MediaConfig
}

// MediaConfig holds the settings of transcribing audio and video files. It is part of
// [Config] (its fields sit at the top level of config.json).
type MediaConfig struct {
	// Transcriber chooses the speech recogniser: "" picks the best local one (whisper.cpp
	// when WhisperModel is set and its program found, else PocketSphinx); "whisper.cpp"
	// or "pocketsphinx" force one; "openai" sends the audio to OpenAI's transcription
	// endpoint, priced per minute, and is used only while OpenAI is the provider.
	Transcriber document.Recognizer `json:"transcriber,omitempty"`
	// WhisperModel is whisper.cpp's ggml model file (ggml-base.en.bin, …).
	WhisperModel string `json:"whisper_model,omitempty"`
	// WhisperProgram is whisper.cpp's program; "" finds whisper-cli on PATH.
	WhisperProgram string `json:"whisper_program,omitempty"`
	// SpeechLanguage is the spoken language for whisper.cpp and OpenAI ("en", "de",
	// "auto"); "" is English.
	SpeechLanguage string `json:"speech_language,omitempty"`
}

// WithDefaults fills in the zero fields with the defaults.
func (c Config) WithDefaults() Config {
	if c.ChatModel == "" {
		c.ChatModel = DefaultChatModel
	}
	if c.EmbedModel == "" {
		c.EmbedModel = DefaultEmbedModel
	}
	if c.MaxTokens <= 0 {
		c.MaxTokens = 1024
	}
	if c.MaxContext <= 0 {
		c.MaxContext = 8192
	}
	if c.TopK <= 0 {
		c.TopK = 6
	}
	if c.EmbedBatch <= 0 {
		c.EmbedBatch = 32
	}
	return c
}

// Load reads DIR/config.json if it exists; a missing file gives an empty Config.
func Load(dir string) (Config, error) {
	c := Config{Dir: dir}
	b, err := os.ReadFile(filepath.Join(dir, ConfigFile))
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("read settings: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("settings file %s is not valid JSON: %w", filepath.Join(dir, ConfigFile), err)
	}
	c.Dir = dir
	return c, nil
}

// DefaultDir is the library folder used when none is given: $CARREL_LIBRARY, else the
// one chosen in the app ([RememberedDir]), else [StandardDir].
func DefaultDir() string {
	if d := envconfig.Library(); d != "" {
		return d
	}
	if d := RememberedDir(); d != "" {
		return d
	}
	return StandardDir()
}

// Save writes c as DIR/config.json (beside the old file, then renamed). Zero fields
// are left out, so defaults stay defaults.
func Save(dir string, c Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	path := filepath.Join(dir, ConfigFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("save settings: %w", err)
	}
	return nil
}

// AnswerConfig holds the settings of answering: which provider answers, the cloud
// models and endpoints, the budget and prices, and how long a local model stays loaded.
// It is part of [Config] (its fields sit at the top level of config.json).
type AnswerConfig struct {
	// Provider answers questions: "ollama" (default), "openai" or "anthropic". Cloud
	// providers are used only when chosen here (or by --provider).
	Provider provider.Name `json:"provider,omitempty"`
	// OpenAIModel and AnthropicModel are the cloud models; defaults DefaultOpenAIModel
	// and DefaultAnthropicModel.
	OpenAIModel    string `json:"openai_model,omitempty"`
	AnthropicModel string `json:"anthropic_model,omitempty"`
	// OpenAIBaseURL and AnthropicBaseURL override the providers' API endpoints
	// (a proxy, an Azure-style gateway, or a test server).
	OpenAIBaseURL    string `json:"openai_base_url,omitempty"`
	AnthropicBaseURL string `json:"anthropic_base_url,omitempty"`
	// BudgetUSD caps the total spent on cloud answers: a warning from 80%, and no cloud
	// answer past 100% unless overridden. 0 means no cap.
	BudgetUSD float64 `json:"budget_usd,omitempty"`
	// Prices override or extend the built-in price table (llm.Prices), by model name.
	Prices map[string]llm.Price `json:"prices,omitempty"`
	// KeepAlive is how long Ollama keeps the chat model loaded after an answer, as a Go
	// duration ("30m", "2h") or "-1" for always; default 30 minutes.
	KeepAlive string `json:"keep_alive,omitempty"`

	// Dial, when set, opens every network connection the engine makes (Ollama and
	// cloud providers); tests use it to see each one.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error) `json:"-"`
}

// Default cloud models: inexpensive, and good at answering from given passages.
const (
	DefaultOpenAIModel    = "gpt-4.1-mini"
	DefaultAnthropicModel = "claude-haiku-4-5"
)
