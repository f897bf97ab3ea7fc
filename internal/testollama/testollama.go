// Package testollama runs a real Ollama server with a tiny generated model,
// for integration tests, the browser end-to-end test and benchmarks.
//
// The server is the Ollama v0.6.5 binary (see [Binary]); the model is the
// random-weight llama written by package gguf, imported with `ollama create`.
// Its answers are gibberish made of a few English words, but every request
// goes through the real server: /api/chat streams, /api/embed answers with
// 64-dimensional vectors, /api/show reports a context length, /api/pull
// streams progress (see [ServeRegistry]).
//
// Tests call [Start], which shares one server per test process:
//
//	srv := testollama.Start(t)
//	client := llm.NewOllama(srv.Host)
//
// Programs call [StartServer] and [Server.Close]; the command
// internal/testollama/cmd/testollama wraps it for non-Go callers.
//
// Each server runs in its own process group under a small shell watchdog
// that holds a pipe from this process: when this process exits, however it
// exits, the watchdog stops the server and its model runners, so a crashed
// test leaves no Ollama behind.
package testollama

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carrel-app/carrel/internal/gguf"
)

// Model names created by [StartServer]. Both name the same weights.
const (
	// ChatModel has a chat template that renders every message, system
	// prompts and history included, so prompt token counts grow with them.
	ChatModel = "tiny"
	// EmbedModel is the same model under a second name, so code that mixes
	// up its chat and embedding models is caught by tests.
	EmbedModel = "tiny-embed"
)

// DefaultNumPredict caps generation by [ChatModel] for requests that set no
// num_predict (a PARAMETER in its Modelfile); without it v0.6.5 lets a random
// model run for 10×num_ctx tokens.
const DefaultNumPredict = 128

// chatModelfile imports the model with a template over .Messages. With the
// legacy `{{ .Prompt }}` template Ollama drops system messages and history.
//
// num_thread 1: llama.cpp's threads spin at barriers after every operation,
// so on a busy 2-core machine (parallel test packages, builds) a runner with
// 2 threads slows from milliseconds to seconds per answer; one thread is
// plenty for this model.
const chatModelfile = `FROM ./tiny.gguf
TEMPLATE """{{- range .Messages }}{{ .Role }}: {{ .Content }}
{{ end }}assistant: """
PARAMETER num_predict 128
PARAMETER num_thread 1
`

const embedModelfile = `FROM ./tiny.gguf
PARAMETER num_thread 1
`

// Server is a running Ollama server.
type Server struct {
	// Host is the base URL, http://127.0.0.1:PORT.
	Host string
	// ChatModel and EmbedModel are the model names to use; empty for a server
	// started without models.
	ChatModel, EmbedModel string
	// ModelsDir is the server's OLLAMA_MODELS directory.
	ModelsDir string

	proc      *process
	dir       string
	ownDir    bool
	shared    bool
	log       *tailBuffer
	closeOnce sync.Once
}

// Close stops the server and every model runner it started, and removes the
// directory StartServer made. Close on the server shared by [Start] does
// nothing: it lives until the test process exits.
func (s *Server) Close() {
	if s == nil || s.shared {
		return
	}
	s.closeOnce.Do(func() {
		s.proc.stop(10 * time.Second)
		if s.ownDir {
			os.RemoveAll(s.dir)
		}
	})
}

// LogTail returns the last few kilobytes the server wrote to its log.
func (s *Server) LogTail() string { return s.log.String() }

// StartServer starts `ollama serve` on a free loopback port with its own
// models directory and HOME under dir (a new temporary directory when dir is
// empty), writes the tiny model and creates [ChatModel] and [EmbedModel]. The
// server's output goes to logw (may be nil). ctx bounds the start only; the
// server runs until Close.
func StartServer(ctx context.Context, dir string, logw io.Writer) (*Server, error) {
	return start(ctx, dir, logw, true)
}

// StartEmptyServer is [StartServer] without models: a server to pull models into.
func StartEmptyServer(ctx context.Context, dir string, logw io.Writer) (*Server, error) {
	return start(ctx, dir, logw, false)
}

func start(ctx context.Context, dir string, logw io.Writer, withModels bool) (*Server, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	ownDir := dir == ""
	if ownDir {
		if dir, err = os.MkdirTemp("", "carrel-ollama-*"); err != nil {
			return nil, err
		}
	}
	fail := func(err error) (*Server, error) {
		if ownDir {
			os.RemoveAll(dir)
		}
		return nil, err
	}
	models := filepath.Join(dir, "models")
	home := filepath.Join(dir, "home")
	if logw == nil {
		logw = io.Discard
	}
	tail := &tailBuffer{max: 16 << 10}
	logw = io.MultiWriter(logw, tail)

	var s *Server
	began := time.Now()
	for attempt := 0; ; attempt++ {
		s, err = serve(ctx, bin, dir, models, home, logw, tail, ownDir)
		if err == nil || attempt == 2 || ctx.Err() != nil || !strings.Contains(tail.String(), "address already in use") {
			break
		}
	}
	if err != nil {
		return fail(err)
	}
	s.dir, s.ownDir = dir, ownDir
	ready := time.Since(began)
	if !withModels {
		fmt.Fprintf(logw, "testollama: serving %s after %s\n", s.Host, ready.Round(time.Millisecond))
		return s, nil
	}

	if err := writeModel(dir); err != nil {
		s.Close()
		return nil, err
	}
	for _, m := range []struct{ name, modelfile string }{{ChatModel, chatModelfile}, {EmbedModel, embedModelfile}} {
		if err := create(ctx, bin, s, dir, m.name, m.modelfile); err != nil {
			s.Close()
			return nil, err
		}
	}
	s.ChatModel, s.EmbedModel = ChatModel, EmbedModel
	fmt.Fprintf(logw, "testollama: serving %s after %s; models created after %s\n",
		s.Host, ready.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
	return s, nil
}

// serve starts one `ollama serve` and waits until it answers.
func serve(ctx context.Context, bin, dir, models, home string, logw io.Writer, tail *tailBuffer, ownDir bool) (*Server, error) {
	// (Re)made on every attempt: the watchdog removes dir when a server exits.
	for _, d := range []string{models, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	hostport := "127.0.0.1:" + strconv.Itoa(port)
	cleanup := ""
	if ownDir {
		cleanup = dir
	}
	proc, err := startProcess(bin, serverEnv(hostport, models, home), logw, cleanup)
	if err != nil {
		return nil, fmt.Errorf("start ollama serve: %w", err)
	}
	s := &Server{Host: "http://" + hostport, ModelsDir: models, proc: proc, log: tail}

	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
	}
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.Host+"/api/version", nil)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case <-proc.exited:
			return nil, fmt.Errorf("ollama serve exited before answering: %v\n%s", proc.err, tail.String())
		case <-ctx.Done():
			proc.stop(5 * time.Second)
			return nil, fmt.Errorf("ollama serve did not answer on %s: %w\n%s", hostport, ctx.Err(), tail.String())
		case <-tick.C:
		}
	}
}

// serverEnv is this process's environment without OLLAMA_* settings (the
// user's OLLAMA_HOST or OLLAMA_MODELS must not leak in) plus the server's.
func serverEnv(hostport, models, home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "OLLAMA_"), k == "HOME":
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"OLLAMA_HOST="+hostport,
		"OLLAMA_MODELS="+models,
		"OLLAMA_NUM_PARALLEL=4",
		"OLLAMA_NOPRUNE=1",
		"HOME="+home,
		"NO_PROXY=127.0.0.1,localhost",
		"no_proxy=127.0.0.1,localhost",
	)
}

func writeModel(dir string) error {
	var buf bytes.Buffer
	if err := gguf.Write(&buf, gguf.Options{}); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tiny.gguf"), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write model: %w", err)
	}
	return nil
}

// create runs `ollama create NAME -f Modelfile` against s.
func create(ctx context.Context, bin string, s *Server, dir, name, modelfile string) error {
	path := filepath.Join(dir, "Modelfile."+name)
	if err := os.WriteFile(path, []byte(modelfile), 0o644); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, bin, "create", name, "-f", path)
	cmd.Dir = dir
	cmd.Env = serverEnv(strings.TrimPrefix(s.Host, "http://"), s.ModelsDir, filepath.Join(dir, "home"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("ollama create %s: %w\n%s", name, err, out)
	}
	return nil
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

var shared struct {
	once sync.Once
	srv  *Server
	err  error
}

// Start returns the test process's shared server with [ChatModel] and
// [EmbedModel], starting it on first use (building the Ollama binary first
// if needed, see [Binary]). It fails tb if the server cannot start. Tests must
// not delete the shared models; use [StartEmpty] for a server of their own.
func Start(tb testing.TB) *Server {
	tb.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if _, err := Binary(); err != nil {
			shared.err = err
			return
		}
		shared.srv, shared.err = StartServer(ctx, "", nil)
		if shared.err == nil {
			shared.srv.shared = true
		}
	})
	if shared.err != nil {
		tb.Fatalf("start test ollama: %v", shared.err)
	}
	return shared.srv
}

// StartEmpty starts a server of the test's own with no models (for pulls);
// it is closed when the test ends.
func StartEmpty(tb testing.TB) *Server {
	tb.Helper()
	dir := tb.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := start(ctx, dir, nil, false)
	if err != nil {
		tb.Fatalf("start empty test ollama: %v", err)
	}
	tb.Cleanup(s.Close)
	return s
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

var errNotSupported = errors.New("testollama: not supported on this platform")
