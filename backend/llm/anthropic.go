package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/provider"
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

// Name returns provider.Anthropic.
func (a *Anthropic) Name() provider.Name { return provider.Anthropic }

type anthropicText struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type anthropicMessage struct {
	Role    Role            `json:"role"`
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
	st := &anthropicReader{a: a, fn: fn, began: time.Now(), usage: &Usage{}}
	r, err := a.client.stream(ctx, joinURL(a.base, "v1/messages"), anthropicBody(req))
	if err == nil {
		err = readEvents(r, st.event)
		r.Close()
	}
	if st.cbErr != nil {
		return nil, st.cbErr
	}
	usage := st.done()
	if err := streamEnd(ctx, a.Name(), req.Model, err, st.finished, func(err error) error {
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

// anthropicBody is req as the Messages API takes it: system messages joined into its
// system field.
func anthropicBody(req ChatRequest) anthropicRequest {
	body := anthropicRequest{Model: req.Model, MaxTokens: req.MaxTokens, Stream: true}
	if body.MaxTokens <= 0 {
		body.MaxTokens = 1024 // required by the API
	}
	var system []string
	for _, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			system = append(system, m.Content)
		case RoleAssistant:
			body.Messages = append(body.Messages, anthropicMessage{Role: RoleAssistant, Content: []anthropicText{{"text", m.Content}}})
		default:
			body.Messages = append(body.Messages, anthropicMessage{Role: RoleUser, Content: []anthropicText{{"text", m.Content}}})
		}
	}
	if len(system) > 0 {
		body.System = []anthropicText{{"text", strings.Join(system, "\n\n")}}
	}
	return body
}

// anthropicReader follows one streamed message: its text to fn, its usage counts.
type anthropicReader struct {
	a     *Anthropic
	fn    func(Delta) error
	began time.Time
	usage *Usage

	input, cacheRead, cacheWrite int
	finished                     bool
	cbErr                        error // fn's error, which ends the stream
}

// event reads one server-sent event; stop ends the stream.
func (s *anthropicReader) event(sse sseEvent) (stop bool, err error) {
	var ev anthropicEvent
	if err := json.Unmarshal(sse.data, &ev); err != nil {
		return false, fmt.Errorf("read the stream: %w", err)
	}
	switch ev.Type {
	case "message_start":
		u := ev.Message.Usage
		if u.InputTokens != nil {
			s.input = *u.InputTokens
		}
		s.cacheRead, s.cacheWrite = u.CacheReadInputTokens, u.CacheCreationInputTokens
		s.usage.CompletionTokens = u.OutputTokens
	case "content_block_delta":
		if ev.Delta.Type == "text_delta" && ev.Delta.Text != "" {
			return false, s.text(ev.Delta.Text)
		}
	case "message_delta":
		s.delta(ev)
	case "message_stop":
		s.finished = true
		return true, nil
	case "error":
		return false, s.a.client.refusal(&httpError{kind: ev.Error.Type, message: ev.Error.Message})
	}
	return false, nil
}

// text passes a piece of the answer on, timing the first.
func (s *anthropicReader) text(t string) error {
	if s.usage.FirstToken == 0 {
		s.usage.FirstToken = time.Since(s.began)
	}
	if s.fn != nil {
		s.cbErr = s.fn(Delta{Text: t})
	}
	return s.cbErr
}

// delta takes message_delta's counts: cumulative, and input fields present when the
// server updates them.
func (s *anthropicReader) delta(ev anthropicEvent) {
	s.usage.CompletionTokens = ev.Usage.OutputTokens
	if ev.Usage.InputTokens != nil && *ev.Usage.InputTokens > 0 {
		s.input = *ev.Usage.InputTokens
	}
	if ev.Usage.CacheReadInputTokens > 0 {
		s.cacheRead = ev.Usage.CacheReadInputTokens
	}
	if ev.Usage.CacheCreationInputTokens > 0 {
		s.cacheWrite = ev.Usage.CacheCreationInputTokens
	}
	if ev.Delta.StopReason != "" {
		s.usage.DoneReason = ev.Delta.StopReason
	}
}

// done completes the usage: its duration, the prompt's tokens and the stop reason in
// Carrel's words.
func (s *anthropicReader) done() *Usage {
	u := s.usage
	u.Duration = time.Since(s.began)
	// Anthropic counts cache reads and writes apart from input_tokens; Usage counts
	// every prompt token in PromptTokens.
	u.PromptTokens = s.input + s.cacheRead + s.cacheWrite
	u.CachedTokens, u.CacheWriteTokens = s.cacheRead, s.cacheWrite
	if u.DoneReason == "end_turn" || u.DoneReason == "stop_sequence" {
		u.DoneReason = "stop"
	} else if u.DoneReason == "max_tokens" {
		u.DoneReason = "length"
	}
	return u
}
