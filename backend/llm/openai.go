package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/carrel-app/carrel/backend/provider"
)

// openAIBase is OpenAI's API; CloudOptions.BaseURL replaces it (a proxy, a test server).
const openAIBase = "https://api.openai.com/v1"

// OpenAI answers with OpenAI's chat models (GPT) through the Chat Completions API,
// streamed (stream.go).
type OpenAI struct {
	client cloudClient
	base   string
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI returns a client of OpenAI's API.
func NewOpenAI(opt CloudOptions) *OpenAI {
	base := opt.BaseURL
	if base == "" {
		base = openAIBase
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+opt.APIKey)
	return &OpenAI{client: newCloudClient(opt, h), base: base}
}

// Name returns provider.OpenAI.
func (o *OpenAI) Name() provider.Name { return provider.OpenAI }

type openAIMessage struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
}

type openAIRequest struct {
	Model         string          `json:"model"`
	Messages      []openAIMessage `json:"messages"`
	Stream        bool            `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxCompletionTokens int      `json:"max_completion_tokens,omitempty"`
	Temperature         *float64 `json:"temperature,omitempty"`
}

// openAIChunk is one chat.completion.chunk of the stream (the fields Carrel reads), or
// an error the server sends in its place.
type openAIChunk struct {
	Choices []struct {
		Delta struct {
			Content string `json:"content"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens        int `json:"prompt_tokens"`
		CompletionTokens    int `json:"completion_tokens"`
		TotalTokens         int `json:"total_tokens"`
		PromptTokensDetails struct {
			CachedTokens int `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error *struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// Chat streams a chat completion; usage comes from the stream's final chunk
// (stream_options.include_usage), cached prompt tokens included.
func (o *OpenAI) Chat(ctx context.Context, req ChatRequest, fn func(Delta) error) (*Usage, error) {
	body := openAIRequest{Model: req.Model, Stream: true, Temperature: req.Temperature}
	body.StreamOptions.IncludeUsage = true
	if req.MaxTokens > 0 {
		body.MaxCompletionTokens = req.MaxTokens
	}
	for _, m := range req.Messages {
		role := m.Role
		if role != RoleSystem && role != RoleAssistant {
			role = RoleUser
		}
		body.Messages = append(body.Messages, openAIMessage{Role: role, Content: m.Content})
	}
	began := time.Now()
	usage := &Usage{}
	finished, gotUsage := false, false
	var cbErr error
	r, err := o.client.stream(ctx, joinURL(o.base, "chat/completions"), body)
	if err == nil {
		err = readEvents(r, func(ev sseEvent) (bool, error) {
			if string(ev.data) == "[DONE]" {
				return true, nil
			}
			var chunk openAIChunk
			if err := json.Unmarshal(ev.data, &chunk); err != nil {
				return false, fmt.Errorf("read the stream: %w", err)
			}
			if chunk.Error != nil {
				return false, o.client.refusal(&httpError{kind: chunk.Error.Type, message: chunk.Error.Message})
			}
			for _, c := range chunk.Choices {
				if c.Delta.Content != "" {
					if usage.FirstToken == 0 {
						usage.FirstToken = time.Since(began)
					}
					if fn != nil {
						if cbErr = fn(Delta{Text: c.Delta.Content}); cbErr != nil {
							return false, cbErr
						}
					}
				}
				if c.FinishReason != "" {
					finished = true
					usage.DoneReason = c.FinishReason
				}
			}
			if u := chunk.Usage; u != nil && u.TotalTokens > 0 {
				gotUsage = true
				usage.PromptTokens, usage.CompletionTokens = u.PromptTokens, u.CompletionTokens
				usage.CachedTokens = u.PromptTokensDetails.CachedTokens
			}
			return false, nil
		})
		r.Close()
	}
	if cbErr != nil {
		return nil, cbErr
	}
	usage.Duration = time.Since(began)
	if err := streamEnd(ctx, o.Name(), req.Model, err, finished, func(err error) error {
		var he *httpError
		if errors.As(err, &he) {
			return he.classify("OpenAI", req.Model, err)
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
