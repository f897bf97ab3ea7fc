package engine

import (
	"context"
	"net"

	"github.com/carrel-app/carrel/backend/llm"
)

// AnswerConfig holds the settings of answering: which provider answers, the cloud
// models and endpoints, the budget and prices, and how long a local model stays loaded.
// It is part of [Config] (its fields sit at the top level of config.json).
type AnswerConfig struct {
	// Provider answers questions: "ollama" (default), "openai" or "anthropic". Cloud
	// providers are used only when chosen here (or by --provider).
	Provider string `json:"provider,omitempty"`
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

// Providers.
const (
	ProviderOllama    = "ollama"
	ProviderOpenAI    = "openai"
	ProviderAnthropic = "anthropic"
)
