package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// sseServer answers every request with status and body (SSE when status is 200),
// recording the last request's headers and JSON body.
type sseServer struct {
	*httptest.Server
	header http.Header
	body   map[string]any
}

func newSSEServer(t *testing.T, status int, body string) *sseServer {
	t.Helper()
	s := &sseServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.header = r.Header.Clone()
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &s.body)
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		for _, ev := range strings.SplitAfter(body, "\n\n") {
			io.WriteString(w, ev)
			fl.Flush()
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func collect(t *testing.T, p Provider, model string) (string, *Usage, error) {
	t.Helper()
	var b strings.Builder
	u, err := p.Chat(context.Background(), ChatRequest{Model: model, MaxTokens: 64, Messages: []Message{
		{Role: "system", Content: "Answer from the passages."}, {Role: "user", Content: "Why the woods?"}}},
		func(d Delta) error { b.WriteString(d.Text); return nil })
	return b.String(), u, err
}

// OpenAI's chat completion stream, as its API sends it with include_usage: role chunk,
// content chunks, a finish_reason chunk, then a usage chunk with no choices, then [DONE].
const openaiStream = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764460800,"model":"gpt-4.1-mini-2025-04-14","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764460800,"model":"gpt-4.1-mini-2025-04-14","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"To live"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764460800,"model":"gpt-4.1-mini-2025-04-14","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":" deliberately [1]."},"logprobs":null,"finish_reason":null}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764460800,"model":"gpt-4.1-mini-2025-04-14","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1764460800,"model":"gpt-4.1-mini-2025-04-14","service_tier":"default","system_fingerprint":"fp_1","choices":[],"usage":{"prompt_tokens":1800,"completion_tokens":7,"total_tokens":1807,"prompt_tokens_details":{"cached_tokens":1024,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}

data: [DONE]

`

// verifies GPT answers against a server speaking OpenAI's
// streaming wire format: text arrives in pieces, usage (cached tokens too) is read from
// the final chunk, the request asks for usage and carries the key and the token cap.
func TestOpenAIStream(t *testing.T) {
	srv := newSSEServer(t, 200, openaiStream)
	p := NewOpenAI(CloudOptions{APIKey: "sk-test", BaseURL: srv.URL + "/v1", MaxRetries: 0})
	text, u, err := collect(t, p, "gpt-4.1-mini")
	if err != nil {
		t.Fatal(err)
	}
	if text != "To live deliberately [1]." || u.PromptTokens != 1800 || u.CompletionTokens != 7 || u.CachedTokens != 1024 || u.DoneReason != "stop" {
		t.Fatalf("text %q usage %+v", text, u)
	}
	if srv.header.Get("Authorization") != "Bearer sk-test" || srv.body["stream"] != true || srv.body["max_completion_tokens"] != 64.0 {
		t.Fatalf("request: %v %v", srv.header, srv.body)
	}
	if so, _ := srv.body["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Fatalf("request does not ask for usage: %v", srv.body)
	}
	if msgs, _ := srv.body["messages"].([]any); len(msgs) != 2 || msgs[0].(map[string]any)["role"] != "system" {
		t.Fatalf("messages: %v", srv.body["messages"])
	}
	// Priced with the dated table: 776 fresh + 1024 cached input, 7 output.
	price, ok := PriceOf("gpt-4.1-mini-2025-04-14", nil)
	want := (776*0.40 + 1024*0.10 + 7*1.60) / 1e6
	if got := price.Cost(*u); !ok || fmt.Sprintf("%.10f", got) != fmt.Sprintf("%.10f", want) {
		t.Fatalf("cost = %v (known %v), want %v", got, ok, want)
	}
}

// Anthropic's Messages stream: message_start with input and cache usage, a ping, a text
// block in deltas, message_delta with the stop reason and output tokens, message_stop.
const anthropicStream = `event: message_start
data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-haiku-4-5-20251001","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":310,"cache_creation_input_tokens":200,"cache_read_input_tokens":1500,"output_tokens":1,"service_tier":"standard"}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: ping
data: {"type": "ping"}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"To live"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":" deliberately [1]."}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}

event: message_stop
data: {"type":"message_stop"}

`

// verifies Claude answers against a server speaking Anthropic's
// streaming wire format: usage adds cache reads and writes to the prompt tokens, the stop
// reason is normalised, the system prompt goes in "system" and the key in a header.
func TestAnthropicStream(t *testing.T) {
	srv := newSSEServer(t, 200, anthropicStream)
	p := NewAnthropic(CloudOptions{APIKey: "sk-ant-test", BaseURL: srv.URL, MaxRetries: 0})
	text, u, err := collect(t, p, "claude-haiku-4-5")
	if err != nil {
		t.Fatal(err)
	}
	if text != "To live deliberately [1]." || u.PromptTokens != 2010 || u.CachedTokens != 1500 || u.CacheWriteTokens != 200 ||
		u.CompletionTokens != 9 || u.DoneReason != "stop" {
		t.Fatalf("text %q usage %+v", text, u)
	}
	key := srv.header.Get("X-Api-Key") == "sk-ant-test" || srv.header.Get("Authorization") == "Bearer sk-ant-test"
	if !key || srv.header.Get("Anthropic-Version") == "" || srv.body["max_tokens"] != 64.0 {
		t.Fatalf("request: %v %v", srv.header, srv.body)
	}
	if sys, _ := srv.body["system"].([]any); len(sys) != 1 {
		t.Fatalf("system prompt not sent as system: %v", srv.body)
	}
	price, _ := PriceOf("claude-haiku-4-5-20251001", nil)
	want := (310*1 + 1500*0.10 + 200*1.25 + 9*5) / 1e6
	if got := price.Cost(*u); fmt.Sprintf("%.10f", got) != fmt.Sprintf("%.10f", want) {
		t.Fatalf("cost = %v, want %v", got, want)
	}
}

// verifies the providers' error bodies map to errors the app can act on.
func TestCloudErrors(t *testing.T) {
	cases := []struct {
		name, provider string
		status         int
		body           string
		want           error
		says           string
	}{
		{"openai rate limit", "openai", 429, `{"error":{"message":"Rate limit reached for gpt-4.1-mini in organization org-1 on tokens per min (TPM): Limit 30000, Used 30000, Requested 1800.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`, ErrRateLimited, "Rate limit reached"},
		{"openai bad key", "openai", 401, `{"error":{"message":"Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, ErrBadKey, "Incorrect API key"},
		{"openai overloaded", "openai", 503, `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`, ErrOverloaded, "overloaded"},
		{"anthropic rate limit", "anthropic", 429, `{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 50,000 input tokens per minute."},"request_id":"req_1"}`, ErrRateLimited, "rate limit"},
		{"anthropic bad key", "anthropic", 401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"},"request_id":"req_2"}`, ErrBadKey, "invalid x-api-key"},
		{"anthropic overloaded", "anthropic", 529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"},"request_id":"req_3"}`, ErrOverloaded, "Overloaded"},
		{"anthropic overloaded mid-stream", "anthropic", 200, strings.Split(anthropicStream, "event: content_block_stop")[0] +
			"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", ErrOverloaded, "Overloaded"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newSSEServer(t, c.status, c.body)
			var p Provider = NewOpenAI(CloudOptions{APIKey: "sk-bad", BaseURL: srv.URL, MaxRetries: 0})
			if c.provider == "anthropic" {
				p = NewAnthropic(CloudOptions{APIKey: "sk-bad", BaseURL: srv.URL, MaxRetries: 0})
			}
			_, u, err := collect(t, p, "m")
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) || u != nil {
				t.Fatalf("err = %v, want %v saying %q", err, c.want, c.says)
			}
			if strings.Contains(err.Error(), "sk-bad\"") {
				t.Fatalf("error repeats the key: %v", err)
			}
		})
	}
}

// verifies a stream cut before its end reports a partial answer (ErrTruncated).
func TestCloudTruncated(t *testing.T) {
	cut := strings.Split(openaiStream, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764460800,\"model\":\"gpt-4.1-mini-2025-04-14\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_1\",\"choices\":[{\"index\":0,\"delta\":{},")[0]
	srv := newSSEServer(t, 200, cut)
	text, _, err := collect(t, NewOpenAI(CloudOptions{APIKey: "k", BaseURL: srv.URL, MaxRetries: 0}), "gpt-4.1-mini")
	if !errors.Is(err, ErrTruncated) || text != "To live deliberately [1]." {
		t.Fatalf("cut stream: %q %v", text, err)
	}
}

// verifies price lookup: exact names, dated names by longest prefix, overrides first,
// unknown models unpriced.
func TestPriceOf(t *testing.T) {
	if p, ok := PriceOf("gpt-4o-mini-2024-07-18", nil); !ok || p.Input != 0.15 {
		t.Fatalf("dated gpt-4o-mini: %+v %v", p, ok)
	}
	if p, ok := PriceOf("claude-sonnet-4-5-20250929", nil); !ok || p.Output != 15 {
		t.Fatalf("dated sonnet: %+v %v", p, ok)
	}
	if p, _ := PriceOf("gpt-4o-mini", map[string]Price{"gpt-4o": {Input: 9}}); p.Input != 0.15 {
		t.Fatalf("an override of a shorter name shadowed an exact built-in name: %+v", p)
	}
	if p, _ := PriceOf("gpt-4o", map[string]Price{"gpt-4o": {Input: 9, Output: 9}}); p.Input != 9 {
		t.Fatalf("override ignored: %+v", p)
	}
	if _, ok := PriceOf("llama3.2:3b", nil); ok {
		t.Fatal("a local model has a price")
	}
	if c := (Price{Input: 1, Output: 2}).Cost(Usage{PromptTokens: 1e6, CachedTokens: 5e5, CompletionTokens: 1e6}); c != 3 {
		t.Fatalf("cached tokens without a cached price cost %v, want 3", c)
	}
}

// verifies retries: a refusal worth retrying (429 with retry-after-ms) is sent again and
// the answer still streams; with retries off, or when the server says x-should-retry:
// false, the first refusal is the answer.
func TestCloudRetry(t *testing.T) {
	for _, c := range []struct {
		name        string
		retries     int
		shouldRetry string
		wantCalls   int
		wantErr     error
	}{
		{"default retries", -1, "", 2, nil},
		{"retries off", 0, "", 1, ErrRateLimited},
		{"server says no", -1, "false", 1, ErrRateLimited},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				if calls == 1 {
					w.Header().Set("Retry-After-Ms", "20")
					if c.shouldRetry != "" {
						w.Header().Set("X-Should-Retry", c.shouldRetry)
					}
					w.WriteHeader(http.StatusTooManyRequests)
					io.WriteString(w, `{"error":{"message":"Rate limit reached","type":"tokens","code":"rate_limit_exceeded"}}`)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, openaiStream)
			}))
			defer srv.Close()
			text, _, err := collect(t, NewOpenAI(CloudOptions{APIKey: "k", BaseURL: srv.URL, MaxRetries: c.retries}), "gpt-4.1-mini")
			if calls != c.wantCalls || !errors.Is(err, c.wantErr) || (c.wantErr == nil && text != "To live deliberately [1].") {
				t.Fatalf("%d calls, %q, %v; want %d calls, %v", calls, text, err, c.wantCalls, c.wantErr)
			}
		})
	}
}

// verifies that an error from the caller's callback (the user stopped the answer) ends
// the stream at once and is what Chat returns, for both providers.
func TestCloudCallbackStops(t *testing.T) {
	stop := errors.New("stopped by the user")
	for _, p := range []struct {
		name string
		new  func(url string) Provider
		body string
	}{
		{"openai", func(u string) Provider { return NewOpenAI(CloudOptions{APIKey: "k", BaseURL: u}) }, openaiStream},
		{"anthropic", func(u string) Provider { return NewAnthropic(CloudOptions{APIKey: "k", BaseURL: u}) }, anthropicStream},
	} {
		srv := newSSEServer(t, 200, p.body)
		pieces := 0
		u, err := p.new(srv.URL).Chat(context.Background(), ChatRequest{Model: "m", Messages: []Message{{Role: "user", Content: "q"}}},
			func(Delta) error { pieces++; return stop })
		if !errors.Is(err, stop) || u != nil || pieces != 1 {
			t.Errorf("%s: %d pieces, %v, %v; want 1 piece and the callback's error", p.name, pieces, u, err)
		}
	}
}

// verifies an OpenAI error sent inside the stream (after a 200) is classified like an
// HTTP one.
func TestOpenAIErrorInStream(t *testing.T) {
	body := strings.Split(openaiStream, "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1764460800,\"model\":\"gpt-4.1-mini-2025-04-14\",\"service_tier\":\"default\",\"system_fingerprint\":\"fp_1\",\"choices\":[{\"index\":0,\"delta\":{},")[0] +
		"data: {\"error\":{\"message\":\"The server had an error while processing your request.\",\"type\":\"server_error\"}}\n\n"
	srv := newSSEServer(t, 200, body)
	text, _, err := collect(t, NewOpenAI(CloudOptions{APIKey: "k", BaseURL: srv.URL}), "gpt-4.1-mini")
	if text != "To live deliberately [1]." || !errors.Is(err, ErrOverloaded) || !strings.Contains(err.Error(), "server had an error") {
		t.Fatalf("%q %v", text, err)
	}
}
