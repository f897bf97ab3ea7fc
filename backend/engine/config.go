package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/llm"
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
	// AnswerConfig: provider, cloud models, budget, prices, keep-alive.
	AnswerConfig
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

// Config returns the engine's effective configuration.
func (e *Engine) Config() Config {
	e.cfgMu.RLock()
	defer e.cfgMu.RUnlock()
	return e.cfg
}

// Ollama is the engine's Ollama client (for listing and pulling models).
func (e *Engine) Ollama() *llm.Ollama { return e.ollama }

// SaveConfig writes c as DIR/config.json (beside the old file, then renamed). Zero fields
// are left out, so defaults stay defaults.
func SaveConfig(dir string, c Config) error {
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

// SetModels switches the chat and embedding models ("" leaves one as it is), saves them
// in the library's config.json and forgets the cached status. A new embedding model
// marks every chunk for embedding again: call EmbedPending (now or once it is pulled).
// It reports whether the embedding model changed.
func (e *Engine) SetModels(ctx context.Context, chatModel, embedModel string) (embedChanged bool, err error) {
	chatModel, embedModel = strings.TrimSpace(chatModel), strings.TrimSpace(embedModel)
	e.cfgMu.Lock()
	saved, err := LoadConfig(e.cfg.Dir)
	if err != nil {
		e.cfgMu.Unlock()
		return false, err
	}
	if chatModel != "" {
		saved.ChatModel = chatModel
	}
	if embedModel != "" {
		saved.EmbedModel = embedModel
	}
	if err := SaveConfig(e.cfg.Dir, saved); err != nil {
		e.cfgMu.Unlock()
		return false, err
	}
	if chatModel != "" {
		e.cfg.ChatModel = chatModel
	}
	embedChanged = embedModel != "" && embedModel != e.cfg.EmbedModel
	if embedModel != "" {
		e.cfg.EmbedModel = embedModel
	}
	e.cfgMu.Unlock()
	e.RefreshStatus()

	if embedChanged && e.vec.Len() > 0 && e.vec.Model() != embedModel {
		e.ingestMu.Lock()
		err = e.lib.ResetEmbedded(ctx)
		e.ingestMu.Unlock()
	}
	return embedChanged, err
}
