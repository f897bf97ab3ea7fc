package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carrel-app/carrel/internal/testollama"
)

func ptr[T any](v T) *T { return &v }

// closedHost returns a loopback address nothing listens on.
func closedHost(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr
}

func TestStatus(t *testing.T) {
	srv := testollama.Start(t)
	st := NewOllama(srv.Host).Status(context.Background())
	if !st.Reachable || st.Err != "" || st.Version == "" || st.Host != srv.Host {
		t.Fatalf("status %+v", st)
	}
	if !st.Has(srv.ChatModel) || !st.Has(srv.EmbedModel) || !st.Has(srv.ChatModel+":latest") {
		t.Errorf("models %v lack %s and %s", st.Models, srv.ChatModel, srv.EmbedModel)
	}
	if st.Has("tin") || st.Has("tiny:7b") {
		t.Errorf("Has matches names that are not installed: %v", st.Models)
	}
}

func TestStatusUnreachable(t *testing.T) {
	// A listener that never accepts: the connection opens, no answer comes.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()

	for name, host := range map[string]string{
		"refused": closedHost(t),
		"silent":  "http://" + silent.Addr().String(),
	} {
		t.Run(name, func(t *testing.T) {
			began := time.Now()
			st := NewOllama(host).Status(context.Background())
			took := time.Since(began)
			if st.Reachable || st.Err == "" || !strings.Contains(st.Err, host) {
				t.Errorf("status %+v", st)
			}
			if took > 3*time.Second {
				t.Errorf("Status took %s for an unreachable host", took)
			}
			if st.Models == nil {
				t.Error("Models is nil; the frontend expects a list")
			}
		})
	}
}

func TestEmbed(t *testing.T) {
	srv := testollama.Start(t)
	o := NewOllama(srv.Host)
	o.EmbedBatch = 4
	ctx := context.Background()

	texts := make([]string, 11) // three batches: 4, 4, 3
	for i := range texts {
		texts[i] = fmt.Sprintf("page %d of the study notes", i)
	}
	vecs, err := o.Embed(ctx, srv.EmbedModel, texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != 64 {
			t.Fatalf("vector %d has %d dims, want the model's width 64", i, len(v))
		}
		var sum float64
		for _, x := range v {
			sum += float64(x) * float64(x)
		}
		if math.Abs(math.Sqrt(sum)-1) > 1e-4 {
			t.Errorf("vector %d has norm %f", i, math.Sqrt(sum))
		}
	}
	if cos(vecs[0], vecs[10]) > 0.99999 {
		t.Error("different texts gave the same vector")
	}

	// Order survives batching: each text embedded alone gives its vector.
	o.EmbedBatch = 0
	for _, i := range []int{0, 5, 10} {
		one, err := o.Embed(ctx, srv.EmbedModel, texts[i:i+1])
		if err != nil {
			t.Fatal(err)
		}
		if c := cos(one[0], vecs[i]); c < 0.999 {
			t.Errorf("text %d alone vs in a batch: cosine %f", i, c)
		}
	}

	if got, err := o.Embed(ctx, srv.EmbedModel, nil); err != nil || len(got) != 0 {
		t.Errorf("Embed(nil) = %v, %v", got, err)
	}
}

func cos(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

// verifies that embedding requests fit a BERT-family model's positions: with the real
// MiniLM (512 positions), an input of far more word pieces is cut to the model's window and
// embedded, where Ollama's default num_ctx (2048) made v0.6.5's runner abort; the vector is
// the model's (384 dimensions) and still means its text.
func TestEmbedLongInputMiniLM(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds with a real model")
	}
	srv := testollama.Start(t)
	model := testollama.MiniLM(t, srv)
	o := NewOllama(srv.Host)
	ctx := context.Background()
	if w := o.EmbedWindow(ctx, model); w != 512-EmbedMargin {
		t.Fatalf("EmbedWindow(%s) = %d, want its 512 positions less %d", model, w, EmbedMargin)
	}
	// Debris tokenizes into about two word pieces a character: ~2,400 pieces.
	long := "Fill bits pad a coded scan line of a fax. " + strings.Repeat("x7 #q ", 200)
	vecs, err := o.Embed(ctx, model, []string{long, "fax scan lines are padded with fill bits", "bananas are rich in potassium"})
	if err != nil {
		t.Fatalf("embed a long input: %v", err)
	}
	if len(vecs) != 3 || len(vecs[0]) != 384 {
		t.Fatalf("%d vectors of %d dimensions, want 3 of 384", len(vecs), len(vecs[0]))
	}
	if near, far := cos(vecs[0], vecs[1]), cos(vecs[0], vecs[2]); near <= far {
		t.Errorf("the cut input is no nearer its subject (%.3f) than an unrelated text (%.3f)", near, far)
	}
}

func TestContextLength(t *testing.T) {
	srv := testollama.Start(t)
	n, err := NewOllama(srv.Host).ContextLength(context.Background(), srv.ChatModel)
	if err != nil || n != 4096 {
		t.Errorf("ContextLength = %d, %v; want 4096", n, err)
	}
}

func TestChatStreams(t *testing.T) {
	srv := testollama.Start(t)
	o := NewOllama(srv.Host)
	var deltas []string
	usage, err := o.Chat(context.Background(), ChatRequest{
		Model: srv.ChatModel,
		Messages: []Message{
			{Role: "system", Content: "Answer from the sources."},
			{Role: "user", Content: "What is the paper about?"},
		},
		NumCtx:      2048,
		Temperature: ptr(0.0),
		KeepAlive:   time.Minute,
		MaxTokens:   16,
	}, func(d Delta) error {
		deltas = append(deltas, d.Text)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(deltas) < 3 {
		t.Errorf("%d deltas, want several: %q", len(deltas), deltas)
	}
	if usage.PromptTokens < 5 || usage.CompletionTokens < 1 || usage.CompletionTokens > 16 || usage.Duration <= 0 {
		t.Errorf("usage %+v", usage)
	}
	if usage.DoneReason != "length" && usage.DoneReason != "stop" {
		t.Errorf("done reason %q", usage.DoneReason)
	}
	t.Logf("answer %q, usage %+v", strings.Join(deltas, ""), usage)
}

func TestChatCancel(t *testing.T) {
	srv := testollama.Start(t)
	o := NewOllama(srv.Host)
	req := ChatRequest{
		Model:     srv.ChatModel,
		Messages:  []Message{{Role: "user", Content: "Tell me everything."}},
		NumCtx:    512,
		MaxTokens: 5000, // far more than the test waits for
	}

	t.Run("context", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var n int
		var cancelled time.Time
		_, err := o.Chat(ctx, req, func(Delta) error {
			if n++; n == 3 {
				cancel()
				cancelled = time.Now()
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if took := time.Since(cancelled); took > time.Second {
			t.Errorf("Chat returned %s after cancel", took)
		}
	})

	t.Run("callback", func(t *testing.T) {
		errStop := errors.New("stop")
		var n int
		_, err := o.Chat(context.Background(), req, func(Delta) error {
			n++
			return errStop
		})
		if err != errStop || n != 1 {
			t.Errorf("err = %v after %d deltas, want the callback's error after 1", err, n)
		}
	})

	// The server is free again: a short answer completes.
	req.MaxTokens = 4
	if _, err := o.Chat(context.Background(), req, nil); err != nil {
		t.Errorf("chat after cancel: %v", err)
	}
}

func TestModelNotFound(t *testing.T) {
	srv := testollama.Start(t)
	o := NewOllama(srv.Host)
	ctx := context.Background()
	const missing = "no-such-model:3b"

	_, chatErr := o.Chat(ctx, ChatRequest{Model: missing, Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	_, embedErr := o.Embed(ctx, missing, []string{"hi"})
	_, showErr := o.ContextLength(ctx, missing)
	for name, err := range map[string]error{"chat": chatErr, "embed": embedErr, "context length": showErr} {
		if !errors.Is(err, ErrModelNotFound) {
			t.Errorf("%s: err = %v, want ErrModelNotFound", name, err)
			continue
		}
		if !strings.Contains(err.Error(), "ollama pull "+missing) {
			t.Errorf("%s: %q lacks the pull hint", name, err)
		}
	}
}

func TestUnreachable(t *testing.T) {
	host := closedHost(t)
	o := NewOllama(host)
	ctx := context.Background()
	_, chatErr := o.Chat(ctx, ChatRequest{Model: "tiny", Messages: []Message{{Role: "user", Content: "hi"}}}, nil)
	_, embedErr := o.Embed(ctx, "tiny", []string{"hi"})
	pullErr := o.Pull(ctx, "tiny", false, nil)
	for name, err := range map[string]error{"chat": chatErr, "embed": embedErr, "pull": pullErr} {
		if !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), host) {
			t.Errorf("%s: err = %v, want ErrUnreachable naming %s", name, err, host)
		}
	}
}

// TestChatTruncated covers a stream that ends without done, which a real
// Ollama cannot be made to do on demand.
func TestChatTruncated(t *testing.T) {
	chunks := []string{
		`{"model":"m","message":{"role":"assistant","content":"Hel"},"done":false}`,
		`{"model":"m","message":{"role":"assistant","content":"lo"},"done":false}`,
	}
	for _, end := range []string{"clean", "abrupt", "error"} {
		t.Run(end, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/chat" {
					http.NotFound(w, r)
					return
				}
				w.Header().Set("Content-Type", "application/x-ndjson")
				for _, c := range chunks {
					fmt.Fprintln(w, c)
					w.(http.Flusher).Flush()
				}
				switch end {
				case "abrupt": // drop the connection mid-line
					fmt.Fprint(w, `{"model":"m","mess`)
					w.(http.Flusher).Flush()
					conn, _, _ := w.(http.Hijacker).Hijack()
					conn.Close()
				case "error": // as Ollama reports a runner that died
					fmt.Fprintln(w, `{"error":"llama runner process has terminated"}`)
				}
			}))
			defer ts.Close()

			var got strings.Builder
			usage, err := NewOllama(ts.URL).Chat(context.Background(), ChatRequest{Model: "m", Messages: []Message{{Role: "user", Content: "hi"}}},
				func(d Delta) error {
					got.WriteString(d.Text)
					return nil
				})
			if !errors.Is(err, ErrTruncated) || usage != nil {
				t.Errorf("usage %v, err %v; want ErrTruncated", usage, err)
			}
			if end == "error" && !strings.Contains(fmt.Sprint(err), "runner process has terminated") {
				t.Errorf("err %v lacks the server's message", err)
			}
			if got.String() != "Hello" {
				t.Errorf("partial answer %q, want %q", got.String(), "Hello")
			}
		})
	}
}

func TestPull(t *testing.T) {
	src := testollama.Start(t)
	regURL, closeReg := testollama.ServeRegistry(src.ModelsDir, src.ChatModel)
	defer closeReg()
	dst := testollama.StartEmpty(t)
	o := NewOllama(dst.Host)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	name := testollama.PullName(regURL, src.ChatModel)
	var steps []PullProgress
	if err := o.Pull(ctx, name, true, func(p PullProgress) error {
		steps = append(steps, p)
		return nil
	}); err != nil {
		t.Fatalf("pull %s: %v", name, err)
	}
	var layerDone bool
	for _, p := range steps {
		if p.Digest != "" && p.Total > 100_000 && p.Completed == p.Total {
			layerDone = true // the model layer, several hundred KB
		}
	}
	if len(steps) < 4 || steps[0].Status != "pulling manifest" || steps[len(steps)-1].Status != "success" || !layerDone {
		t.Errorf("progress: %+v", steps)
	}
	if st := o.Status(ctx); !st.Has(name) {
		t.Errorf("after pull, models %v lack %s", st.Models, name)
	}

	err := o.Pull(ctx, testollama.PullName(regURL, "missing"), true, nil)
	if !errors.Is(err, ErrModelNotFound) {
		t.Errorf("pull of a missing model: %v, want ErrModelNotFound", err)
	}
}

func TestParseHost(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "http://127.0.0.1:11434"},
		{"127.0.0.1:11434", "http://127.0.0.1:11434"},
		{"127.0.0.1", "http://127.0.0.1:11434"},
		{"myhost:8080", "http://myhost:8080"},
		{"myhost", "http://myhost:11434"},
		{"http://myhost", "http://myhost:80"},
		{"https://myhost", "https://myhost:443"},
		{"https://myhost:8443/ollama/", "https://myhost:8443/ollama"},
		{"0.0.0.0", "http://127.0.0.1:11434"},
		{"0.0.0.0:9999", "http://127.0.0.1:9999"},
		{"[::1]:11434", "http://[::1]:11434"},
		{" http://127.0.0.1:5000 ", "http://127.0.0.1:5000"},
	} {
		if got := parseHost(tc.in).String(); got != tc.want {
			t.Errorf("parseHost(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestNewOllamaHostFromEnv(t *testing.T) {
	t.Setenv("OLLAMA_HOST", "example.test:1234")
	if got := NewOllama("").Host(); got != "http://example.test:1234" {
		t.Errorf("host from env = %q", got)
	}
	if got := NewOllama("other:1").Host(); got != "http://other:1" {
		t.Errorf("explicit host = %q", got)
	}
	t.Setenv("OLLAMA_HOST", "")
	if got := NewOllama("").Host(); got != DefaultOllamaHost {
		t.Errorf("default host = %q", got)
	}
}

// verifies an embedding asked while Ollama's runner is still loading its model (its
// answer: 500 "llm server loading model", seen after a restart under load in the crash
// test) is asked again until the model is ready, within the stall budget; a runner that
// stays loading past it is given up. A real Ollama cannot be held in that state on demand.
func TestEmbedWaitsForLoadingModel(t *testing.T) {
	for _, c := range []struct {
		name    string
		loading int
		ok      bool
	}{{"ready after three refusals", 3, true}, {"never ready", 1 << 30, false}} {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int32
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/api/embed" {
					http.NotFound(w, r) // /api/show: no context length, the default window
					return
				}
				if int(calls.Add(1)) <= c.loading {
					w.WriteHeader(http.StatusInternalServerError)
					fmt.Fprint(w, `{"error":"unexpected server status: llm server loading model"}`)
					return
				}
				fmt.Fprint(w, `{"model":"m","embeddings":[[3,4]]}`)
			}))
			defer ts.Close()
			o := NewOllama(ts.URL)
			o.StallTimeout = 3 * time.Second
			vs, err := o.Embed(context.Background(), "m", []string{"hello"})
			if c.ok && (err != nil || len(vs) != 1 || vs[0][0] != 0.6) {
				t.Fatalf("embed after the model loaded: %v %v (%d calls)", vs, err, calls.Load())
			}
			if !c.ok && err == nil {
				t.Fatalf("embed from a runner that never loads succeeded: %v", vs)
			}
			if c.ok && calls.Load() != 4 {
				t.Fatalf("%d calls, want 4 (three refusals, then the answer)", calls.Load())
			}
		})
	}
}
