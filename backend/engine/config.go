package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Default models: small enough for a CPU-only laptop, good enough to study with.
const (
	DefaultChatModel  = "llama3.2:3b"
	DefaultEmbedModel = "nomic-embed-text"
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
	// MinVectorScore drops vector-only hits below this cosine similarity.
	MinVectorScore float64 `json:"min_vector_score,omitempty"`
	// EmbedBatch is how many chunks go to the embedding model per request.
	EmbedBatch int `json:"embed_batch,omitempty"`
}

func (c Config) withDefaults() Config {
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
	if c.MinVectorScore == 0 {
		c.MinVectorScore = 0.5
	}
	if c.EmbedBatch <= 0 {
		c.EmbedBatch = 32
	}
	return c
}

// LoadConfig reads DIR/config.json if it exists; a missing file gives an empty Config.
func LoadConfig(dir string) (Config, error) {
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

// DefaultDir is the library folder used when none is given: Carrel's folder in the
// user's data directory.
func DefaultDir() string {
	if d := os.Getenv("CARREL_LIBRARY"); d != "" {
		return d
	}
	base, err := os.UserConfigDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "Carrel", "library")
}
