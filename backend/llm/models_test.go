package llm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/carrel-app/carrel/internal/gguf"
	"github.com/carrel-app/carrel/internal/testollama"
	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
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
		// Both test models are the same llama weights without a pooling type, which
		// Ollama v0.6.5 reports as able to complete (it would chat with tiny-embed).
		if m.Size < 100_000 || m.Family != "llama" || m.Embedding || !slices.Contains(m.Capabilities, "completion") {
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

// verifies a model whose GGUF has a pooling type, as every embedding model's has
// (nomic-bert.pooling_type, bert.pooling_type), is listed as embedding-only from what the
// real Ollama's /api/show says, and the chat model is not.
func TestModelsMarkEmbeddingOnly(t *testing.T) {
	srv := testollama.Start(t)
	ctx := context.Background()
	u, err := url.Parse(srv.Host)
	if err != nil {
		t.Fatal(err)
	}
	c := api.NewClient(u, http.DefaultClient)
	var buf bytes.Buffer
	if err := gguf.Write(&buf, gguf.Options{}); err != nil {
		t.Fatal(err)
	}
	blob := withPoolingType(t, buf.Bytes())
	digest := fmt.Sprintf("sha256:%x", sha256.Sum256(blob))
	if err := c.CreateBlob(ctx, digest, bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}
	const name = "tiny-pooled"
	if err := c.Create(ctx, &api.CreateRequest{Model: name, Files: map[string]string{"tiny.gguf": digest}}, func(api.ProgressResponse) error { return nil }); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Delete(context.Background(), &api.DeleteRequest{Model: name}) })

	ms, err := NewOllama(srv.Host).Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Model{}
	for _, m := range ms {
		got[m.Name] = m
	}
	if m := got[name+":latest"]; !m.Embedding || fmt.Sprint(m.Capabilities) != "[embedding]" {
		t.Errorf("pooled model %+v: want embedding-only", m)
	}
	if m := got["tiny:latest"]; m.Embedding || m.Name == "" {
		t.Errorf("chat model %+v: want not embedding-only", m)
	}
}

// verifies the fallbacks for servers that report no capabilities.
func TestEmbeddingOnlyFallbacks(t *testing.T) {
	for _, c := range []struct {
		name string
		show *api.ShowResponse
		fams []string
		want bool
	}{
		{"pooling key", &api.ShowResponse{ModelInfo: map[string]any{"nomic-bert.pooling_type": 1.0}}, []string{"nomic-bert"}, true},
		{"no pooling key", &api.ShowResponse{ModelInfo: map[string]any{"llama.block_count": 2.0}}, []string{"llama"}, false},
		{"bert family, no show", nil, []string{"bert"}, true},
		{"capabilities win", &api.ShowResponse{Capabilities: []model.Capability{"completion"}}, []string{"bert"}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := embeddingOnly(c.show, c.fams); got != c.want {
				t.Errorf("embeddingOnly = %v, want %v", got, c.want)
			}
		})
	}
}

// withPoolingType adds llama.pooling_type = 1 (mean) to a GGUF's metadata, with a
// general.name padding the insertion to the file's 32-byte alignment so that the tensor
// data stays aligned.
func withPoolingType(t *testing.T, b []byte) []byte {
	t.Helper()
	const header = 4 + 4 + 8 + 8 // magic, version, tensor count, metadata count
	if string(b[:4]) != "GGUF" {
		t.Fatal("not a GGUF")
	}
	var kv bytes.Buffer
	str := func(s string) {
		binary.Write(&kv, binary.LittleEndian, uint64(len(s)))
		kv.WriteString(s)
	}
	str("llama.pooling_type")
	binary.Write(&kv, binary.LittleEndian, uint32(4)) // uint32
	binary.Write(&kv, binary.LittleEndian, uint32(1))
	// key (8+12) + type (4) + value length (8) = 32 bytes before the value.
	str("general.name")
	binary.Write(&kv, binary.LittleEndian, uint32(8)) // string
	str(strings.Repeat("p", (32-(kv.Len()+8)%32)%32))
	if kv.Len()%32 != 0 {
		t.Fatalf("inserted %d bytes", kv.Len())
	}
	out := append([]byte{}, b[:header]...)
	n := binary.LittleEndian.Uint64(out[16:24])
	binary.LittleEndian.PutUint64(out[16:24], n+2)
	out = append(out, kv.Bytes()...)
	return append(out, b[header:]...)
}

func TestSuggestedHasOneDefaultPerRole(t *testing.T) {
	n := map[ModelRole]int{}
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
