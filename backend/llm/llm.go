// Package llm talks to the language models Carrel answers with: a local
// Ollama server ([Ollama]) by default, cloud providers later. Every provider
// streams a chat answer through the same [Provider] interface and reports
// [Usage] so the cost meter can price it.
package llm

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/carrel-app/carrel/backend/provider"
)

// Provider generates a chat answer, streaming it piece by piece.
type Provider interface {
	// Chat sends req and calls fn with each piece of the answer as it
	// arrives. Returning an error from fn stops the stream; Chat returns that
	// error. Cancelling ctx stops the stream too. A stream that ends early
	// returns an error wrapping [ErrTruncated] after fn has seen the partial
	// answer.
	Chat(ctx context.Context, req ChatRequest, fn func(Delta) error) (*Usage, error)
	// Name identifies the provider.
	Name() provider.Name
}

// Role is who speaks a message.
type Role string

// Roles of a conversation, as the providers' APIs spell them.
const (
	RoleSystem    Role = "system"    // the instructions
	RoleUser      Role = "user"      // the user's words (and the passages given with them)
	RoleAssistant Role = "assistant" // the model's replies
)

// Message is one turn of a conversation.
type Message struct {
	Role Role `json:"role"`
	// Content is the message text.
	Content string `json:"content"`
}

// ChatRequest asks a model for the next assistant message.
type ChatRequest struct {
	// Model names the model, as the provider spells it ("llama3.2:3b").
	Model string
	// Messages is the conversation so far, system prompt first.
	Messages []Message
	// NumCtx is the context window in tokens. Ollama silently truncates
	// prompts to its default (2048 in v0.6.5) unless this is set; 0 leaves
	// the provider's default.
	NumCtx int
	// Temperature is the sampling temperature; nil leaves the model's
	// default, so a pointer tells "unset" apart from 0 (greedy).
	Temperature *float64
	// KeepAlive is how long Ollama keeps the model loaded after the request;
	// 0 leaves the server's default (5 minutes), negative keeps it loaded.
	KeepAlive time.Duration
	// MaxTokens caps the answer's length in tokens; 0 leaves the default.
	MaxTokens int
	// Format constrains the answer to JSON: a JSON schema (Ollama's structured
	// outputs) or "json"; nil leaves it free text. Only Ollama applies it.
	Format json.RawMessage
}

// Delta is one streamed piece of an answer.
type Delta struct {
	// Text continues the answer; pieces concatenate to the whole answer.
	Text string `json:"text"`
}

// Usage reports what an answer consumed.
type Usage struct {
	// PromptTokens is the number of prompt tokens the model evaluated.
	PromptTokens int `json:"prompt_tokens"`
	// CompletionTokens is the number of tokens generated.
	CompletionTokens int `json:"completion_tokens"`
	// Duration is the wall-clock time from sending the request to the end
	// of the stream, as the user waited for it.
	Duration time.Duration `json:"duration"`
	// DoneReason says why generation stopped: "stop" (the model finished) or
	// "length" (MaxTokens or the context was reached).
	DoneReason string `json:"done_reason"`
	// CachedTokens is the part of PromptTokens read from the provider's prompt
	// cache (billed at the cached-input price); 0 for Ollama.
	CachedTokens int `json:"cached_tokens"`
	// CacheWriteTokens is the part of PromptTokens written to the provider's
	// prompt cache (Anthropic bills it above the input price); 0 elsewhere.
	CacheWriteTokens int `json:"cache_write_tokens"`
	// FirstToken is the time from sending the request to the first piece of
	// the answer; 0 when no text arrived.
	FirstToken time.Duration `json:"first_token"`
}

// TokensPerSecond is the generation speed: completion tokens over the time
// from the first piece of the answer to the end; 0 when unknown.
func (u *Usage) TokensPerSecond() float64 {
	if u == nil || u.CompletionTokens == 0 {
		return 0
	}
	gen := u.Duration - u.FirstToken
	if gen <= 0 {
		return 0
	}
	return float64(u.CompletionTokens) / gen.Seconds()
}

// Errors that callers act on. Match them with [errors.Is]; the returned
// errors wrap them with the host or model and a hint.
var (
	// ErrUnreachable means no server answered at the host: not running,
	// wrong host, or a firewall.
	ErrUnreachable = errors.New("ollama is not reachable")
	// ErrModelNotFound means the server does not have the model (or, for a
	// pull, the registry does not).
	ErrModelNotFound = errors.New("model not found")
	// ErrTruncated means the stream ended before the server said it was
	// done: the server or the connection died mid-answer. The pieces
	// delivered before it are a partial answer.
	ErrTruncated = errors.New("response ended before it was complete")
	// ErrStalled means Ollama accepted the request but sent nothing for
	// [Ollama.StallTimeout] (a hung server, a frozen machine).
	ErrStalled = errors.New("ollama stopped answering")
)
