package engine

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
)

// dialRecorder records every outbound connection's address.
type dialRecorder struct {
	mu    sync.Mutex
	addrs []string
}

func (r *dialRecorder) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	r.mu.Lock()
	r.addrs = append(r.addrs, network+" "+addr)
	r.mu.Unlock()
	return (&net.Dialer{}).DialContext(ctx, network, addr)
}

func (r *dialRecorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.addrs...)
}

// verifies the offline guarantee: with cloud providers off, ingesting a PDF, embedding
// it, searching, and asking in a study session (a follow-up included) open connections
// only to the configured Ollama host. Every HTTP client the engine makes dials through
// the recorder, and the process's default HTTP transport is replaced by one that fails
// the test, so a client made elsewhere is caught too.
func TestOfflineGuarantee(t *testing.T) {
	srv := testollama.Start(t)
	host, _ := url.Parse(srv.Host)
	rec := &dialRecorder{}
	stray := &dialRecorder{}
	defaultTransport := http.DefaultTransport
	t.Cleanup(func() { http.DefaultTransport = defaultTransport })
	http.DefaultTransport = &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		stray.dial(ctx, network, addr)
		return nil, fmt.Errorf("offline test: the default HTTP transport dialled %s", addr)
	}}

	eng := openEngine(t, Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: srv.EmbedModel,
		MaxTokens: 12, AnswerConfig: AnswerConfig{Dial: rec.dial}})
	ctx := context.Background()
	// Online sources off: a URL is refused before anything is dialled.
	if err := eng.SetOnline(false); err != nil {
		t.Fatal(err)
	}
	if r, err := eng.IngestURL(ctx, "https://news.ycombinator.com/item?id=1", nil); err != nil || r.Status != Failed {
		t.Fatalf("a URL while online sources are off: %+v %v", r, err)
	}
	r, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "Walden.pdf"), nil)
	if err != nil || r.Status != Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	if eng.vec.Len() == 0 {
		t.Fatal("nothing was embedded: the test did not exercise Ollama")
	}
	if _, err := eng.Search(ctx, "woods", SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	ans, err := eng.Asking().Ask(ctx, "Why did he go to the woods?", asking.Options{}, nil)
	if err != nil || ans.Provider != "ollama" {
		t.Fatalf("ask: %+v %v", ans, err)
	}
	if _, err := eng.Asking().Ask(ctx, "And what did he find there?", asking.Options{SessionID: ans.SessionID}, nil); err != nil {
		t.Fatalf("follow-up: %v", err)
	}
	if _, err := eng.Meter(ctx); err != nil {
		t.Fatal(err)
	}
	dials := rec.all()
	if len(dials) == 0 {
		t.Fatal("no connection went through the recorder: the engine's clients bypass it")
	}
	for _, d := range dials {
		if d != "tcp "+host.Host {
			t.Errorf("connection to %s; only %s (Ollama) is allowed", d, host.Host)
		}
	}
	// The settings' list of hosts contacted says the same.
	for _, h := range eng.Hosts() {
		if h.Host != host.Host {
			t.Errorf("hosts contacted lists %s; only %s (Ollama) is allowed", h.Host, host.Host)
		}
	}
	if s := stray.all(); len(s) > 0 {
		t.Errorf("connections outside the engine's clients: %v", s)
	}
}
