package llm

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Anthropic answers with Anthropic's models (Claude) through the official SDK.
type Anthropic struct {
	client anthropic.Client
}

var _ Provider = (*Anthropic)(nil)

// NewAnthropic returns a client of Anthropic's API.
func NewAnthropic(opt CloudOptions) *Anthropic {
	opts := []option.RequestOption{option.WithAPIKey(opt.APIKey)}
	if opt.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(opt.BaseURL))
	}
	if opt.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(opt.HTTPClient))
	}
	if opt.MaxRetries >= 0 {
		opts = append(opts, option.WithMaxRetries(opt.MaxRetries))
	}
	return &Anthropic{client: anthropic.NewClient(opts...)}
}

// Name returns "anthropic".
func (a *Anthropic) Name() string { return "anthropic" }

// Chat streams a message. Usage comes from message_start (input and cache tokens) and
// message_delta (output tokens); an error event mid-stream (overloaded) ends it.
func (a *Anthropic) Chat(ctx context.Context, req ChatRequest, fn func(Delta) error) (*Usage, error) {
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = 1024 // required by the API
	}
	params := anthropic.MessageNewParams{Model: anthropic.Model(req.Model), MaxTokens: int64(maxTokens)}
	var system []string
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			system = append(system, m.Content)
		case "assistant":
			params.Messages = append(params.Messages, anthropic.NewAssistantMessage(anthropic.NewTextBlock(m.Content)))
		default:
			params.Messages = append(params.Messages, anthropic.NewUserMessage(anthropic.NewTextBlock(m.Content)))
		}
	}
	if len(system) > 0 {
		params.System = []anthropic.TextBlockParam{{Text: strings.Join(system, "\n\n")}}
	}
	began := time.Now()
	stream := a.client.Messages.NewStreaming(ctx, params)
	defer stream.Close()
	usage := &Usage{}
	var input, cacheRead, cacheWrite int64
	finished := false
	for stream.Next() {
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			u := ev.Message.Usage
			input, cacheRead, cacheWrite = u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens
			usage.CompletionTokens = int(u.OutputTokens)
		case "content_block_delta":
			if ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
				if usage.FirstToken == 0 {
					usage.FirstToken = time.Since(began)
				}
				if fn != nil {
					if err := fn(Delta{Text: ev.Delta.Text}); err != nil {
						return nil, err
					}
				}
			}
		case "message_delta":
			// Cumulative counts; input fields are present when the server updates them.
			usage.CompletionTokens = int(ev.Usage.OutputTokens)
			if ev.Usage.JSON.InputTokens.Valid() && ev.Usage.InputTokens > 0 {
				input = ev.Usage.InputTokens
			}
			if ev.Usage.CacheReadInputTokens > 0 {
				cacheRead = ev.Usage.CacheReadInputTokens
			}
			if ev.Usage.CacheCreationInputTokens > 0 {
				cacheWrite = ev.Usage.CacheCreationInputTokens
			}
			if ev.Delta.StopReason != "" {
				usage.DoneReason = string(ev.Delta.StopReason)
			}
		case "message_stop":
			finished = true
		}
	}
	usage.Duration = time.Since(began)
	// Anthropic counts cache reads and writes apart from input_tokens; Usage counts
	// every prompt token in PromptTokens.
	usage.PromptTokens = int(input + cacheRead + cacheWrite)
	usage.CachedTokens, usage.CacheWriteTokens = int(cacheRead), int(cacheWrite)
	if usage.DoneReason == "end_turn" || usage.DoneReason == "stop_sequence" {
		usage.DoneReason = "stop"
	} else if usage.DoneReason == "max_tokens" {
		usage.DoneReason = "length"
	}
	if err := streamEnd(ctx, a.Name(), req.Model, stream.Err(), finished, func(err error) error {
		var apiErr *anthropic.Error
		if errors.As(err, &apiErr) {
			return apiError{provider: "Anthropic", model: req.Model, status: apiErr.StatusCode, kind: string(apiErr.Type()), message: apiErr.Message}.err(err)
		}
		// An error event the SDK could not decode into an API error.
		for _, kind := range []string{"overloaded_error", "rate_limit_error", "authentication_error", "api_error"} {
			if strings.Contains(err.Error(), `"`+kind+`"`) {
				return apiError{provider: "Anthropic", model: req.Model, kind: kind}.err(err)
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return usage, nil
}
