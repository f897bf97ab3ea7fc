//go:build linux

package llm

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies that the Ollama server Carrel starts does not inherit the cloud API keys
// from Carrel's environment: its environment (readable in /proc/PID/environ while it
// runs, after Carrel quits too) holds neither key.
func TestStartedOllamaHasNoKeys(t *testing.T) {
	bin, err := testollama.Binary()
	if err != nil {
		t.Fatal(err)
	}
	const openai, anthropic = "sk-openai-secret-1234567890", "sk-ant-secret-0987654321"
	t.Setenv("OPENAI_API_KEY", openai)
	t.Setenv("ANTHROPIC_API_KEY", anthropic)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("OLLAMA_MODELS", filepath.Join(t.TempDir(), "models"))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	o := NewOllama("127.0.0.1:" + strconv.Itoa(port))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := o.StartServer(ctx, bin, 2*time.Minute)
	if p != nil {
		defer func() { p.Kill(); p.Wait() }()
	}
	if err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.Pid), "environ"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(env), "OLLAMA_HOST=") {
		t.Fatalf("read the wrong environment: %q", env)
	}
	for _, key := range []string{openai, anthropic} {
		if strings.Contains(string(env), key) {
			t.Fatalf("the Ollama server Carrel started has an API key in its environment")
		}
	}
}
