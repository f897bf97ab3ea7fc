package llm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/carrel-app/carrel/internal/testollama"
)

func TestModels(t *testing.T) {
	srv := testollama.Start(t)
	ms, err := NewOllama(srv.Host).Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
		if m.Size < 100_000 || m.Family != "llama" || m.Embedding {
			t.Errorf("model %+v", m)
		}
	}
	if fmt.Sprint(names) != "[tiny-embed:latest tiny:latest]" {
		t.Errorf("names %v", names)
	}
	if _, err := NewOllama(closedHost(t)).Models(context.Background()); !errors.Is(err, ErrUnreachable) {
		t.Errorf("unreachable: %v", err)
	}
}

func TestSuggestedHasOneDefaultPerRole(t *testing.T) {
	n := map[string]int{}
	for _, s := range Suggested {
		if s.Default {
			n[s.Role]++
		}
	}
	if n["chat"] != 1 || n["embed"] != 1 {
		t.Errorf("defaults per role: %v", n)
	}
}

func TestStartServer(t *testing.T) {
	bin, err := testollama.Binary()
	if err != nil {
		t.Fatalf("test Ollama binary: %v", err)
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("OLLAMA_MODELS", home+"/models")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := l.Addr().String()
	l.Close()
	o := NewOllama(host)
	if o.Status(context.Background()).Reachable {
		t.Fatal("reachable before start")
	}
	p, err := o.StartServer(context.Background(), bin, 30*time.Second)
	if p != nil {
		defer func() { p.Kill(); p.Wait() }()
	}
	if err != nil {
		t.Fatal(err)
	}
	if !o.Status(context.Background()).Reachable {
		t.Error("not reachable after start")
	}
	if _, err := o.StartServer(context.Background(), "", time.Second); !errors.Is(err, ErrNoBinary) {
		t.Errorf("no binary: %v", err)
	}
}
