// Package provider names who answers questions, declared once for every layer that
// chooses, calls, prices or records one: the settings (config.json), the model clients
// and their API keys (backend/llm, the OS keyring, the environment), the answers, and the
// sessions, costs and cache entries SQLite keeps, all spelled as here.
package provider

// Name is a provider's name.
type Name string

// Providers.
const (
	Ollama    Name = "ollama"    // the local models (the default)
	OpenAI    Name = "openai"    // GPT, when the user switches it on
	Anthropic Name = "anthropic" // Claude, when the user switches it on
	// None names no provider: no model answered (the passages did), or, in config.json,
	// the default (Ollama).
	None Name = ""
)
