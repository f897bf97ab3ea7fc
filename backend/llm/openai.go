package llm

import (
	"context"
	"errors"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// OpenAI answers with OpenAI's chat models (GPT) through the official SDK.
type OpenAI struct {
	client openai.Client
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns a client of OpenAI's API.
func NewOpenAI(opt CloudOptions) *OpenAI {
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
	return &OpenAI{client: openai.NewClient(opts...)}
}

// Name returns "openai".
func (o *OpenAI) Name() string { return "openai" }

// Chat streams a chat completion; usage comes from the stream's final chunk
// (stream_options.include_usage), cached prompt tokens included.
func (o *OpenAI) Chat(ctx context.Context, req ChatRequest, fn func(Delta) error) (*Usage, error) {
	params := openai.ChatCompletionNewParams{
		Model:         req.Model,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	for _, m := range req.Messages {
		switch m.Role {
		case "system":
			params.Messages = append(params.Messages, openai.SystemMessage(m.Content))
		case "assistant":
			params.Messages = append(params.Messages, openai.AssistantMessage(m.Content))
		default:
			params.Messages = append(params.Messages, openai.UserMessage(m.Content))
		}
	}
	if req.MaxTokens > 0 {
		params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
	}
	if req.Temperature != nil {
		params.Temperature = openai.Float(*req.Temperature)
	}
	began := time.Now()
	stream := o.client.Chat.Completions.NewStreaming(ctx, params)
	defer stream.Close()
	usage := &Usage{}
	finished, gotUsage := false, false
	for stream.Next() {
		chunk := stream.Current()
		for _, c := range chunk.Choices {
			if c.Delta.Content != "" {
				if usage.FirstToken == 0 {
					usage.FirstToken = time.Since(began)
				}
				if fn != nil {
					if err := fn(Delta{Text: c.Delta.Content}); err != nil {
						return nil, err
					}
				}
			}
			if c.FinishReason != "" {
				finished = true
				usage.DoneReason = c.FinishReason
			}
		}
		if chunk.JSON.Usage.Valid() && chunk.Usage.TotalTokens > 0 {
			gotUsage = true
			usage.PromptTokens = int(chunk.Usage.PromptTokens)
			usage.CompletionTokens = int(chunk.Usage.CompletionTokens)
			usage.CachedTokens = int(chunk.Usage.PromptTokensDetails.CachedTokens)
		}
	}
	usage.Duration = time.Since(began)
	if err := streamEnd(ctx, o.Name(), req.Model, stream.Err(), finished, func(err error) error {
		var apiErr *openai.Error
		if errors.As(err, &apiErr) {
			return apiError{provider: "OpenAI", model: req.Model, status: apiErr.StatusCode, kind: apiErr.Type, message: apiErr.Message}.err(err)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if !gotUsage {
		return nil, nil // a server that ignores include_usage: the caller estimates
	}
	return usage, nil
}
