package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

const (
	// anthropicBase is Anthropic's API; CloudOptions.BaseURL replaces it.
	anthropicBase = "https://api.anthropic.com"
	// anthropicVersion is the API version the requests and events below follow.
	anthropicVersion = "2023-06-01"
)

// Anthropic answers with Anthropic's models (Claude) through the Messages API, streamed
// (stream.go).
type Anthropic struct {
	client cloudClient
	base   string
}

var _ Provider = (*Anthropic)(nil)

// NewAnthropic returns a client of Anthropic's API.
func NewAnthropic(opt CloudOptions) *Anthropic {
	base := opt.BaseURL
	if base == "" {
		base = anthropicBase
	}
	h := http.Header{}
	h.Set("X-Api-Key", opt.APIKey)
	h.Set("Anthropic-Version", anthropicVersion)
	return &Anthropic{client: newCloudClient(opt, h), base: base}
}

// Name returns "anthropic".
func (a *Anthropic) Name() string { return "anthropic" }

type anthropicText struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content []anthropicText `json:"content"`
}

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	System    []anthropicText    `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
	Stream    bool               `json:"stream"`
}

// anthropicUsage is the usage of message_start (all fields) and message_delta
// (cumulative; input fields only when the server updates them).
type anthropicUsage struct {
	InputTokens              *int `json:"input_tokens"`
	OutputTokens             int  `json:"output_tokens"`
	CacheReadInputTokens     int  `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int  `json:"cache_creation_input_tokens"`
}

// anthropicEvent is one event of the stream (the fields Carrel reads).
type anthropicEvent struct {
	Type    string `json:"type"`
	Message struct {
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	Delta struct {
		Type       string `json:"type"`
		Text       string `json:"text"`
		StopReason string `json:"stop_reason"`
	} `json:"delta"`
	Usage anthropicUsage `json:"usage"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// Chat streams a message. Usage comes from message_start (input and cache tokens) and
// message_delta (output tokens); an error event mid-stream (overloaded) ends it.
func (a *Anthropic) Chat(ctx context.Context, req ChatRequest, fn func(Delta) error) (*Usage, error) {
	body := anthropicRequest{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true}
	if body.MaxTokens <= 0 {
		body.MaxTokens = 1024 // required by the API
	}
	var system []string
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = append(system, m.Content)
		case "assistant":
			body.Messages = append(body.Messages, anthropicMessage{Role: "assistant", Content: []anthropicText{{"text", m.Content}}})
		default:
			body.Messages = append(body.Messages, anthropicMessage{Role: "user", Content: []anthropicText{{"text", m.Content}}})
		}
	}
	if len(system) > 0 {
		body.System = []anthropicText{{"text", strings.Join(system, "\n\n")}}
	}
	began := time.Now()
	usage := &Usage{}
	var input, cacheRead, cacheWrite int
	finished := false
	var cbErr error
	r, err := a.client.stream(ctx, joinURL(a.base, "v1/messages"), body)
	if err == nil {
		err = readEvents(r, func(sse sseEvent) (bool, error) {
			var ev anthropicEvent
			if err := json.Unmarshal(sse.data, &ev); err != nil {
				return false, fmt.Errorf("read the stream: %w", err)
			}
			switch ev.Type {
			case "message_start":
				u := ev.Message.Usage
				if u.InputTokens != nil {
					input = *u.InputTokens
				}
				cacheRead, cacheWrite = u.CacheReadInputTokens, u.CacheCreationInputTokens
				usage.CompletionTokens = u.OutputTokens
			case "content_block_delta":
				if ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
					if usage.FirstToken == 0 {
						usage.FirstToken = time.Since(began)
					}
					if fn != nil {
						if cbErr = fn(Delta{Text: ev.Delta.Text}); cbErr != nil {
							return false, cbErr
						}
					}
				}
			case "message_delta":
				// Cumulative counts; input fields are present when the server updates them.
				usage.CompletionTokens = ev.Usage.OutputTokens
				if ev.Usage.InputTokens != nil && *ev.Usage.InputTokens > 0 {
					input = *ev.Usage.InputTokens
				}
				if ev.Usage.CacheReadInputTokens > 0 {
					cacheRead = ev.Usage.CacheReadInputTokens
				}
				if ev.Usage.CacheCreationInputTokens > 0 {
					cacheWrite = ev.Usage.CacheCreationInputTokens
				}
				if ev.Delta.StopReason != "" {
					usage.DoneReason = ev.Delta.StopReason
				}
			case "message_stop":
				finished = true
				return true, nil
			case "error":
				return false, a.client.refusal(&httpError{kind: ev.Error.Type, message: ev.Error.Message})
			}
			return false, nil
		})
		r.Close()
	}
	if cbErr != nil {
		return nil, cbErr
	}
	usage.Duration = time.Since(began)
	// Anthropic counts cache reads and writes apart from input_tokens; Usage counts
	// every prompt token in PromptTokens.
	usage.PromptTokens = input + cacheRead + cacheWrite
	usage.CachedTokens, usage.CacheWriteTokens = cacheRead, cacheWrite
	if usage.DoneReason == "end_turn" || usage.DoneReason == "stop_sequence" {
		usage.DoneReason = "stop"
	} else if usage.DoneReason == "max_tokens" {
		usage.DoneReason = "length"
	}
	if err := streamEnd(ctx, a.Name(), req.Model, err, finished, func(err error) error {
		var he *httpError
		if errors.As(err, &he) {
			return he.classify("Anthropic", req.Model, err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return usage, nil
}
