package llm

// The cloud providers are spoken to directly: one POST, an SSE stream back. Carrel used
// the official SDKs (openai-go, anthropic-sdk-go) for this; together with the
// OpenTelemetry they import they were 60 MB of the 107 MB app binary (a build without
// them: 47 MB), for two streaming calls. The wire formats are tested against local
// servers speaking them (cloud_test.go).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// defaultRetries is how often a request is retried (429, 408, 409, 5xx, a lost
// connection) when CloudOptions.MaxRetries is negative: the SDKs' default.
const defaultRetries = 2

// httpError is a provider's refusal: the HTTP status (0 for an error event inside a
// stream) and the type and message of its error body.
type httpError struct {
	status        int
	kind, message string
}

func (e *httpError) Error() string {
	var b strings.Builder
	if e.status != 0 {
		fmt.Fprintf(&b, "%d %s", e.status, http.StatusText(e.status))
	} else {
		b.WriteString("error event")
	}
	if e.kind != "" {
		b.WriteString(": " + e.kind)
	}
	if e.message != "" {
		b.WriteString(": " + e.message)
	}
	return b.String()
}

// classify is streamEnd's classifier for both providers.
func (e *httpError) classify(provider, model string, err error) error {
	return apiError{provider: provider, model: model, status: e.status, kind: e.kind, message: e.message}.err(err)
}

// errorBody reads a provider's JSON error: {"error": {"type", "message"}} (both APIs;
// OpenAI may put the kind in "code" too).
func errorBody(status int, b []byte) *httpError {
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Code    any    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	e := &httpError{status: status}
	if json.Unmarshal(b, &body) == nil && (body.Error.Message != "" || body.Error.Type != "") {
		e.kind, e.message = body.Error.Type, body.Error.Message
		if code, ok := body.Error.Code.(string); ok && e.kind == "" {
			e.kind = code
		}
	} else {
		e.message = strings.TrimSpace(string(b))
		if len(e.message) > 300 {
			e.message = e.message[:300] + "…"
		}
	}
	return e
}

// cloudClient sends a provider's requests.
type cloudClient struct {
	http    *http.Client
	retries int
	header  http.Header
	key     string // the API key, masked out of every error message
}

func newCloudClient(opt CloudOptions, header http.Header) cloudClient {
	c := cloudClient{http: opt.HTTPClient, retries: opt.MaxRetries, header: header, key: opt.APIKey}
	if c.http == nil {
		// No overall timeout: an answer streams for as long as it takes; ctx ends it.
		c.http = &http.Client{Transport: http.DefaultTransport}
	}
	if c.retries < 0 {
		c.retries = defaultRetries
	}
	return c
}

// stream POSTs body as JSON to url and returns the open event stream. Refusals worth
// retrying are retried with backoff before any of the answer has arrived.
func (c cloudClient) stream(ctx context.Context, url string, body any) (io.ReadCloser, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	return c.post(ctx, url, "application/json", "text/event-stream", payload)
}

// post POSTs payload to url and returns the response body of a success, retrying
// refusals worth retrying with backoff.
func (c cloudClient) post(ctx context.Context, url, contentType, accept string, payload []byte) (io.ReadCloser, error) {
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		for k, v := range c.header {
			req.Header[k] = v
		}
		req.Header.Set("Content-Type", contentType)
		req.Header.Set("Accept", accept)
		req.Header.Set("User-Agent", "Carrel")
		resp, err := c.http.Do(req)
		var wait time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil || attempt >= c.retries {
				return nil, err
			}
		case resp.StatusCode/100 == 2:
			return resp.Body, nil
		default:
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			herr := c.refusal(errorBody(resp.StatusCode, b))
			if attempt >= c.retries || !retryable(resp) {
				return nil, herr
			}
			wait = retryAfter(resp.Header)
		}
		if wait <= 0 {
			// 0.5 s, 1 s, 2 s… up to 8 s, less up to a quarter at random, as the SDKs do.
			wait = min(500*time.Millisecond<<attempt, 8*time.Second)
			wait -= time.Duration(rand.Float64() * 0.25 * float64(wait))
		}
		if !sleepCtx(ctx, wait) {
			return nil, ctx.Err()
		}
	}
}

// refusal masks the API key in a provider's error message. The providers' own messages
// show only its last characters, but a proxy or gateway between may echo it whole, and
// these messages reach the screen and the log.
func (c cloudClient) refusal(e *httpError) *httpError {
	e.message = maskKey(e.message, c.key)
	return e
}

// maskKey replaces every occurrence of key in s with its last four characters after an
// ellipsis ("…w9Xz"), the way providers show keys.
func maskKey(s, key string) string {
	key = strings.TrimSpace(key)
	if len(key) < 8 || !strings.Contains(s, key) {
		return s
	}
	return strings.ReplaceAll(s, key, "…"+key[len(key)-4:])
}

// retryable says whether a refusal may succeed when sent again: the server may say so
// (x-should-retry), else timeouts, conflicts, rate limits and server errors.
func retryable(resp *http.Response) bool {
	switch resp.Header.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	s := resp.StatusCode
	return s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
}

// retryAfter reads how long the server asks to wait (retry-after-ms, retry-after in
// seconds or as a date); 0 when it does not say or asks for over a minute.
func retryAfter(h http.Header) time.Duration {
	var d time.Duration
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil {
		d = time.Duration(ms * float64(time.Millisecond))
	} else if s, err := strconv.ParseFloat(h.Get("Retry-After"), 64); err == nil {
		d = time.Duration(s * float64(time.Second))
	} else if t, err := http.ParseTime(h.Get("Retry-After")); err == nil {
		d = time.Until(t)
	}
	if d <= 0 || d > time.Minute {
		return 0
	}
	return d
}

// sseEvent is one server-sent event: its name ("" when unnamed) and its data lines.
type sseEvent struct {
	name    string
	data    []byte
	hasData bool
}

// readEvents calls fn for each event of an SSE stream until the stream ends, fn returns
// an error or fn returns done.
func readEvents(r io.Reader, fn func(sseEvent) (done bool, err error)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			if !ev.hasData && ev.name == "" {
				continue
			}
			done, err := fn(ev)
			if err != nil || done {
				return err
			}
			ev = sseEvent{}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.name = string(value)
		case "data":
			if ev.hasData {
				ev.data = append(ev.data, '\n')
			}
			ev.data = append(ev.data, value...) // a copy: the scanner reuses line
			ev.hasData = true
		} // comments (":…"), id and retry fields are of no use here
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if ev.hasData {
		_, err := fn(ev) // a last event without its blank line
		return err
	}
	return nil
}

// joinURL appends path to a base URL, with one slash between them.
func joinURL(base, path string) string {
	return strings.TrimRight(base, "/") + "/" + strings.TrimLeft(path, "/")
}
