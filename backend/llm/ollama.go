package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/provider"
	"github.com/ollama/ollama/api"
)

// DefaultOllamaHost is where Ollama listens unless OLLAMA_HOST says otherwise.
const DefaultOllamaHost = "http://127.0.0.1:11434"

// DefaultEmbedBatch is how many texts [Ollama.Embed] sends per request.
const DefaultEmbedBatch = 32

// statusTimeout bounds how long [Ollama.Status] waits for a server to answer,
// so a missing Ollama is reported at once.
const statusTimeout = time.Second

// DefaultStallTimeout is [Ollama.StallTimeout]'s default: long enough for a
// large model to load from a slow disk before its first token, short enough
// that a hung server does not hold an ingest or an answer for ever.
const DefaultStallTimeout = 5 * time.Minute

func (o *Ollama) stall() time.Duration {
	if o.StallTimeout > 0 {
		return o.StallTimeout
	}
	return DefaultStallTimeout
}

// Ollama is a client of one Ollama server. It is safe for concurrent use.
type Ollama struct {
	// EmbedBatch is how many texts Embed sends per request; 0 means
	// [DefaultEmbedBatch]. Set it before use.
	EmbedBatch int
	// EmbedThreads is how many CPU threads Embed asks the server's runner to embed
	// with (num_thread): 0 means $CARREL_EMBED_THREADS, else [DefaultEmbedThreads] for
	// a server on this machine and the server's own choice for one elsewhere; < 0 the
	// server's own choice always. Set it before use.
	EmbedThreads int
	// StallTimeout is how long an embedding request, and a chat stream between
	// two of its pieces, may go without a word from Ollama before it is given
	// up with [ErrStalled]; 0 means [DefaultStallTimeout]. Set it before use.
	StallTimeout time.Duration

	host   string
	client *api.Client

	windowMu sync.Mutex
	windows  map[string]int // embedding model → tokens per input (see embedWindow)
}

var _ Provider = (*Ollama)(nil)

// NewOllama returns a client of the Ollama server at host. An empty host
// means $OLLAMA_HOST, then [DefaultOllamaHost]. host may omit the scheme
// ("127.0.0.1:11434", "myhost") or the port (11434 without a scheme, else the
// scheme's), as OLLAMA_HOST may; a bind-all address (0.0.0.0, ::) means this
// machine.
func NewOllama(host string) *Ollama {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return NewOllamaClient(host, &http.Client{Transport: transport})
}

// NewOllamaClient is [NewOllama] with the HTTP client to send requests with.
func NewOllamaClient(host string, hc *http.Client) *Ollama {
	if strings.TrimSpace(host) == "" {
		host = envconfig.OllamaHost()
	}
	base := parseHost(host)
	return &Ollama{host: base.String(), client: api.NewClient(base, hc)}
}

// parseHost reads a host the way Ollama reads OLLAMA_HOST.
func parseHost(s string) *url.URL {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultOllamaHost
	}
	defaultPort := "11434"
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = strings.Trim(hostport, "[]"), defaultPort
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		port = defaultPort
	}
	switch host {
	case "", "0.0.0.0", "::":
		host = "127.0.0.1"
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path = strings.Trim(path, "/"); path != "" {
		u.Path = "/" + path
	}
	return u
}

// Name returns provider.Ollama.
func (o *Ollama) Name() provider.Name { return provider.Ollama }

// Host returns the server's base URL, such as http://127.0.0.1:11434.
func (o *Ollama) Host() string { return o.host }

// Status describes an Ollama server as the status bar shows it.
type Status struct {
	// Host is the server's base URL.
	Host string `json:"host"`
	// Reachable is true when the server answered.
	Reachable bool `json:"reachable"`
	// Version is the server's version ("0.0.0" for a build without release
	// flags, such as one made with go install).
	Version string `json:"version"`
	// Models are the installed models as Ollama names them ("llama3.2:latest").
	Models []string `json:"models"`
	// Err says what went wrong, in one line; empty when all went well.
	Err string `json:"error,omitempty"`
}

// Has reports whether model is installed; a name without a tag means
// ":latest", as in Ollama.
func (s Status) Has(model string) bool {
	return slices.Contains(s.Models, withTag(model))
}

func withTag(model string) string {
	if i := strings.LastIndexByte(model, '/'); !strings.Contains(model[i+1:], ":") {
		return model + ":latest"
	}
	return model
}

// Status asks the server for its version and models. It never fails: an
// unreachable server (reported within about a second) or an error is
// described in the result.
func (o *Ollama) Status(ctx context.Context) Status {
	st := Status{Host: o.host, Models: []string{}}
	vctx, cancel := context.WithTimeout(ctx, statusTimeout)
	version, err := o.client.Version(vctx)
	cancel()
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded):
		st.Err = fmt.Sprintf("%v: no answer from %s within %s", ErrUnreachable, o.host, statusTimeout)
		return st
	case err != nil:
		st.Err = o.wrapErr(ctx, err, "").Error()
		return st
	}
	st.Reachable, st.Version = true, version

	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	list, err := o.client.List(lctx)
	if err != nil {
		st.Err = o.wrapErr(ctx, err, "").Error()
		return st
	}
	for _, m := range list.Models {
		st.Models = append(st.Models, m.Name)
	}
	slices.Sort(st.Models)
	return st
}

// Embed returns one L2-normalised vector per text, in order, sending
// EmbedBatch texts per request. A text longer than the model's input window
// (see [Ollama.EmbedWindow]) is truncated to it by the server.
func (o *Ollama) Embed(ctx context.Context, model string, texts []string) ([][]float32, error) {
	batch := o.EmbedBatch
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	opts := o.EmbedOptions(ctx, model)
	truncate := true
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		part := texts[start:min(start+batch, len(texts))]
		bctx, cancel := context.WithTimeout(ctx, o.stall())
		var resp *api.EmbedResponse
		var err error
		for wait := 250 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
			resp, err = o.client.Embed(bctx, &api.EmbedRequest{Model: model, Input: part, Options: opts, Truncate: &truncate})
			// A runner still loading its model (just started, or restarted under load)
			// answers "llm server loading model": wait for it, within the stall budget.
			if err == nil || !strings.Contains(err.Error(), "server loading model") || !sleepCtx(bctx, wait) {
				break
			}
		}
		stalled := bctx.Err() != nil && ctx.Err() == nil
		cancel()
		if stalled {
			return nil, fmt.Errorf("embed: %w: no answer from %s within %s", ErrStalled, o.host, o.stall())
		}
		if err != nil {
			return nil, fmt.Errorf("embed: %w", o.wrapErr(ctx, err, model))
		}
		if len(resp.Embeddings) != len(part) {
			return nil, fmt.Errorf("embed: %d vectors for %d texts", len(resp.Embeddings), len(part))
		}
		for _, v := range resp.Embeddings {
			out = append(out, normalize(v))
		}
	}
	return out, nil
}

// EmbedOptions are the options Embed sends with every request for model: its input window
// (num_ctx, see [Ollama.EmbedWindow]) and the CPU threads (num_thread, see
// [Ollama.EmbedThreads]). Every request carries the same ones, for documents and questions
// alike: the server reloads the model's runner when they change.
func (o *Ollama) EmbedOptions(ctx context.Context, model string) map[string]any {
	opts := map[string]any{}
	if n := o.EmbedWindow(ctx, model); n > 0 {
		opts["num_ctx"] = n
	}
	if n := o.embedThreads(); n > 0 {
		opts["num_thread"] = n
	}
	return opts
}

// EmbedWindow returns the tokens per input Embed asks the server for (num_ctx), or 0 when
// the model reports no context length (the server's default then applies). It is the
// model's own context length from /api/show, less EmbedMargin, read once per model.
//
// Ollama's default num_ctx (2048) is larger than a BERT-family embedder's positions
// (MiniLM: 512): v0.6.5 cuts a longer input to the model's length in tokens, but turns the
// tokens back into text and the runner tokenizes that again with [CLS] and [SEP] around
// it, so an input cut at exactly 512 can come back longer, and the runner then aborts
// (GGML_ASSERT in ggml_get_rows, 68 of 5,769 children of the pdfcpu corpus went
// unembedded and the runner restarted twice). With num_ctx set to the window, the cut
// leaves room for those tokens.
func (o *Ollama) EmbedWindow(ctx context.Context, model string) int {
	o.windowMu.Lock()
	n, ok := o.windows[model]
	o.windowMu.Unlock()
	if ok {
		return n
	}
	n, err := o.ContextLength(ctx, model)
	if err != nil {
		if ctx.Err() != nil || isUnreachable(err) {
			return 0 // not known yet: ask again next time
		}
		n = 0 // the model reports none: leave the server's default
	} else {
		n = max(n-EmbedMargin, 1)
	}
	o.windowMu.Lock()
	if o.windows == nil {
		o.windows = map[string]int{}
	}
	o.windows[model] = n
	o.windowMu.Unlock()
	return n
}

// EmbedMargin is the tokens an embedding input is cut short of the model's context by, for
// the special tokens the runner adds and for text that tokenizes longer once cut and
// detokenized (see EmbedWindow).
const EmbedMargin = 16

func normalize(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// Cosine is the cosine similarity of two embeddings: 0 when their lengths differ (two
// models' vectors) or either is all zeros.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// ContextLength returns the context length the model was trained with
// (<architecture>.context_length in /api/show). Ollama does not use it by
// default; pass it, or a smaller window, as [ChatRequest.NumCtx].
func (o *Ollama) ContextLength(ctx context.Context, model string) (int, error) {
	resp, err := o.client.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return 0, fmt.Errorf("show model: %w", o.wrapErr(ctx, err, model))
	}
	arch, _ := resp.ModelInfo["general.architecture"].(string)
	n, ok := resp.ModelInfo[arch+".context_length"].(float64)
	if arch == "" || !ok || n <= 0 {
		return 0, fmt.Errorf("model %q reports no context length", model)
	}
	return int(n), nil
}

// Chat streams the model's answer to req; see [Provider].
func (o *Ollama) Chat(ctx context.Context, req ChatRequest, fn func(Delta) error) (*Usage, error) {
	opts := map[string]any{}
	if req.NumCtx > 0 {
		opts["num_ctx"] = req.NumCtx
	}
	if req.Temperature != nil {
		opts["temperature"] = *req.Temperature
	}
	if req.MaxTokens > 0 {
		opts["num_predict"] = req.MaxTokens
	}
	stream := true
	areq := &api.ChatRequest{
		Model:    req.Model,
		Messages: make([]api.Message, len(req.Messages)),
		Stream:   &stream,
		Options:  opts,
		Format:   req.Format,
	}
	for i, m := range req.Messages {
		areq.Messages[i] = api.Message{Role: string(m.Role), Content: m.Content}
	}
	if req.KeepAlive != 0 {
		areq.KeepAlive = &api.Duration{Duration: req.KeepAlive}
	}

	began := time.Now()
	var usage *Usage
	var fnErr error
	var delivered int
	var first time.Duration
	// A watchdog gives the stream up when Ollama goes silent (ErrStalled).
	sctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	watchdog := time.AfterFunc(o.stall(), func() { stop(ErrStalled) })
	defer watchdog.Stop()
	err := o.client.Chat(sctx, areq, func(r api.ChatResponse) error {
		watchdog.Reset(o.stall())
		if r.Message.Content != "" && first == 0 {
			first = time.Since(began)
		}
		if r.Message.Content != "" && fn != nil {
			delivered++
			if fnErr = fn(Delta{Text: r.Message.Content}); fnErr != nil {
				return fnErr
			}
		}
		if r.Done {
			usage = &Usage{
				PromptTokens:     r.PromptEvalCount,
				CompletionTokens: r.EvalCount,
				Duration:         time.Since(began),
				DoneReason:       r.DoneReason,
				FirstToken:       first,
			}
		}
		return nil
	})
	switch {
	case ctx.Err() != nil:
		// The client library reports a cancelled stream as a clean end.
		return nil, ctx.Err()
	case fnErr != nil:
		return nil, fnErr
	case usage == nil && context.Cause(sctx) == ErrStalled && delivered > 0:
		return nil, fmt.Errorf("chat with %s at %s: %w: %w: nothing for %s", req.Model, o.host, ErrTruncated, ErrStalled, o.stall())
	case usage == nil && context.Cause(sctx) == ErrStalled:
		return nil, fmt.Errorf("chat with %s at %s: %w: no answer within %s", req.Model, o.host, ErrStalled, o.stall())
	case err != nil && usage == nil && (delivered > 0 || isCutShort(err)):
		// Cut mid-line, or an {"error": ...} line after part of the answer
		// (the runner died): either way the answer is partial.
		return nil, fmt.Errorf("chat with %s at %s: %w: %w", req.Model, o.host, ErrTruncated, err)
	case err != nil:
		return nil, o.wrapErr(ctx, err, req.Model)
	case usage == nil:
		return nil, fmt.Errorf("chat with %s at %s: %w", req.Model, o.host, ErrTruncated)
	}
	return usage, nil
}

// PullProgress is one step of a model download.
type PullProgress struct {
	// Status is Ollama's description: "pulling manifest", "pulling <digest>",
	// "verifying sha256 digest", "writing manifest", "success".
	Status string `json:"status"`
	// Digest names the layer being downloaded, if any.
	Digest string `json:"digest,omitempty"`
	// Total and Completed are the layer's size and bytes done so far.
	Total     int64 `json:"total,omitempty"`
	Completed int64 `json:"completed,omitempty"`
}

// Pull downloads model into the server, calling fn with each progress report
// (several a second per layer; returning an error stops the pull). insecure
// allows a registry over plain HTTP.
func (o *Ollama) Pull(ctx context.Context, model string, insecure bool, fn func(PullProgress) error) error {
	stream := true
	var success bool
	var fnErr error
	err := o.client.Pull(ctx, &api.PullRequest{Model: model, Insecure: insecure, Stream: &stream}, func(p api.ProgressResponse) error {
		success = p.Status == "success"
		if fn != nil {
			fnErr = fn(PullProgress{Status: p.Status, Digest: p.Digest, Total: p.Total, Completed: p.Completed})
		}
		return fnErr
	})
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case fnErr != nil:
		return fnErr
	case err != nil && strings.Contains(err.Error(), "file does not exist"):
		// v0.6.5 words a registry 404 as "pull model manifest: file does not exist".
		return fmt.Errorf("pull %s: %w in the registry (%v)", model, ErrModelNotFound, err)
	case err != nil:
		return fmt.Errorf("pull %s: %w", model, o.wrapErr(ctx, err, ""))
	case !success:
		return fmt.Errorf("pull %s: %w", model, ErrTruncated)
	}
	return nil
}

// wrapErr turns the client library's errors into the package's: unreachable
// hosts and missing models wrap [ErrUnreachable] and [ErrModelNotFound].
func (o *Ollama) wrapErr(ctx context.Context, err error, model string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if isUnreachable(err) {
		return fmt.Errorf("%w at %s (is `ollama serve` running?): %w", ErrUnreachable, o.host, err)
	}
	var se api.StatusError
	notFound := errors.As(err, &se) && se.StatusCode == http.StatusNotFound
	// Streaming calls lose the status code: the client returns the body's
	// message, `model "x" not found, try pulling it first`.
	if !notFound && model != "" && strings.Contains(err.Error(), "not found") && strings.Contains(err.Error(), model) {
		notFound = true
	}
	if notFound && model != "" {
		return fmt.Errorf("%w: %q is not installed in Ollama at %s; run `ollama pull %s`", ErrModelNotFound, model, o.host, model)
	}
	return fmt.Errorf("ollama at %s: %w", o.host, err)
}

// isCutShort reports whether err comes from a stream cut mid-line: the
// client library reads the last partial line and fails to decode it.
func isCutShort(err error) bool {
	var syntaxErr *json.SyntaxError
	return errors.As(err, &syntaxErr) || errors.Is(err, io.ErrUnexpectedEOF)
}

func isUnreachable(err error) bool {
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return true
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return true
	}
	return errors.Is(err, syscall.ECONNREFUSED)
}

// sleepCtx waits d, or less when ctx ends; it reports whether the whole wait passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
