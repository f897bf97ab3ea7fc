package engine

import (
	"context"
	"strings"

	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
	"github.com/carrel-app/carrel/backend/settings"
)

// The library's settings file (backend/settings), by the names the engine's callers use.
type (
	Config       = settings.Config
	AnswerConfig = settings.AnswerConfig
	MediaConfig  = settings.MediaConfig
)

// Defaults and the settings file's name.
const (
	DefaultChatModel      = settings.DefaultChatModel
	DefaultEmbedModel     = settings.DefaultEmbedModel
	DefaultOpenAIModel    = settings.DefaultOpenAIModel
	DefaultAnthropicModel = settings.DefaultAnthropicModel
	ConfigFile            = settings.ConfigFile
)

// Providers.
const (
	ProviderOllama    = provider.Ollama
	ProviderOpenAI    = provider.OpenAI
	ProviderAnthropic = provider.Anthropic
)

// LoadConfig reads DIR/config.json if it exists; a missing file gives an empty Config.
func LoadConfig(dir string) (Config, error) { return settings.Load(dir) }

// SaveConfig writes c as DIR/config.json (see settings.Save).
func SaveConfig(dir string, c Config) error { return settings.Save(dir, c) }

// DefaultDir is the library folder used when none is given (see settings.DefaultDir).
func DefaultDir() string { return settings.DefaultDir() }

// RememberedDir is the library folder chosen in the app, or "".
func RememberedDir() string { return settings.RememberedDir() }

// RememberDir keeps dir as the library folder to open next ("" forgets the choice).
func RememberDir(dir string) error { return settings.RememberDir(dir) }

// StandardDir is the library folder used when none was chosen.
func StandardDir() string { return settings.StandardDir() }

// Config returns the engine's effective configuration.
func (e *Engine) Config() Config {
	e.cfgMu.RLock()
	defer e.cfgMu.RUnlock()
	return e.cfg
}

// Ollama is the engine's Ollama client (for listing and pulling models).
func (e *Engine) Ollama() *llm.Ollama { return e.ollama }

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
		err = e.in.ResetEmbedded(ctx)
	}
	return embedChanged, err
}
