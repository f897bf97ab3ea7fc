//go:build unix

package testollama

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

func client(t *testing.T, host string) *api.Client {
	t.Helper()
	u, err := url.Parse(host)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient) // v0.6.5 does not default a nil client
}

func TestStartServesModels(t *testing.T) {
	srv := Start(t)
	if !strings.HasPrefix(srv.Host, "http://127.0.0.1:") {
		t.Errorf("Host = %q", srv.Host)
	}
	if Start(t) != srv {
		t.Error("Start did not share its server")
	}
	c := client(t, srv.Host)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	for _, want := range []string{srv.ChatModel + ":latest", srv.EmbedModel + ":latest"} {
		if !slices.Contains(names, want) {
			t.Errorf("models %v lack %s", names, want)
		}
	}

	show, err := c.Show(ctx, &api.ShowRequest{Model: srv.ChatModel})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(show.Parameters, "num_predict") || !strings.Contains(show.Parameters, "128") {
		t.Errorf("parameters %q lack num_predict %d", show.Parameters, DefaultNumPredict)
	}

	// With no num_predict the Modelfile's cap applies; the chat template
	// renders the system message, so it counts as prompt.
	var out strings.Builder
	var last api.ChatResponse
	noSystem := 0
	for _, withSystem := range []bool{false, true} {
		msgs := []api.Message{{Role: "user", Content: "the study of the paper"}}
		if withSystem {
			msgs = append([]api.Message{{Role: "system", Content: "answer from the source text and note the page"}}, msgs...)
		}
		out.Reset()
		err = c.Chat(ctx, &api.ChatRequest{Model: srv.ChatModel, Messages: msgs, Options: map[string]any{"temperature": 0}},
			func(r api.ChatResponse) error {
				out.WriteString(r.Message.Content)
				last = r
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		if !last.Done || last.EvalCount == 0 || last.EvalCount > DefaultNumPredict {
			t.Errorf("done %v, eval count %d (cap %d)", last.Done, last.EvalCount, DefaultNumPredict)
		}
		if withSystem && last.PromptEvalCount <= noSystem {
			t.Errorf("prompt tokens with system %d, without %d: system prompt not rendered", last.PromptEvalCount, noSystem)
		}
		noSystem = last.PromptEvalCount
	}
	t.Logf("answer: %q", out.String())

	emb, err := c.Embed(ctx, &api.EmbedRequest{Model: srv.EmbedModel, Input: []string{"a page", "a note"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(emb.Embeddings) != 2 || len(emb.Embeddings[0]) != 64 {
		t.Errorf("embeddings: %d of width %d", len(emb.Embeddings), len(emb.Embeddings[0]))
	}
}

func TestCloseStopsProcessGroup(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	began := time.Now()
	srv, err := StartServer(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("serve + create took %s", time.Since(began).Round(time.Millisecond))
	// Load the model so a runner subprocess exists.
	c := client(t, srv.Host)
	if _, err := c.Embed(ctx, &api.EmbedRequest{Model: srv.EmbedModel, Input: "x"}); err != nil {
		t.Fatal(err)
	}
	pgid := srv.proc.cmd.Process.Pid
	if err := syscall.Kill(-pgid, 0); err != nil {
		t.Fatalf("process group %d not running: %v", pgid, err)
	}
	srv.Close()
	srv.Close() // idempotent
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(-pgid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("process group %d still alive after Close", pgid)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(srv.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("server dir %s not removed: %v", srv.dir, err)
	}
}

// verifies that StartMiniLMServer gives a server with MiniLM and nothing else on it: the
// embedder answers with its 384 dimensions, and the tiny models were not created.
func TestStartMiniLMServer(t *testing.T) {
	if testing.Short() {
		t.Skip("creates a real model")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := StartMiniLMServer(ctx, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := client(t, srv.Host)
	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Models) != 1 || list.Models[0].Name != MiniLMModel+":latest" {
		t.Errorf("models %+v, want only %s", list.Models, MiniLMModel)
	}
	emb, err := c.Embed(ctx, &api.EmbedRequest{Model: MiniLMModel, Input: "a pond at dusk"})
	if err != nil {
		t.Fatal(err)
	}
	if len(emb.Embeddings) != 1 || len(emb.Embeddings[0]) != 384 {
		t.Errorf("embeddings: %d, want one of width 384", len(emb.Embeddings))
	}
}

func TestRegistryPull(t *testing.T) {
	src := Start(t)
	regURL, closeReg := ServeRegistry(src.ModelsDir, src.ChatModel)
	defer closeReg()
	dst := StartEmpty(t)
	c := client(t, dst.Host)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	name := PullName(regURL, src.ChatModel)
	var statuses []string
	var sawBytes bool
	err := c.Pull(ctx, &api.PullRequest{Model: name, Insecure: true}, func(p api.ProgressResponse) error {
		statuses = append(statuses, p.Status)
		if p.Digest != "" && p.Total > 0 && p.Completed == p.Total {
			sawBytes = true
		}
		return nil
	})
	if err != nil {
		t.Fatalf("pull %s: %v\n%s", name, err, dst.LogTail())
	}
	if !slices.Contains(statuses, "pulling manifest") || statuses[len(statuses)-1] != "success" || !sawBytes {
		t.Errorf("progress %q (bytes completed: %v)", statuses, sawBytes)
	}

	// The pulled model answers.
	var n int
	err = c.Chat(ctx, &api.ChatRequest{Model: name, Messages: []api.Message{{Role: "user", Content: "hi"}},
		Options: map[string]any{"num_predict": 4}}, func(r api.ChatResponse) error {
		n++
		return nil
	})
	if err != nil || n == 0 {
		t.Errorf("chat with pulled model: %d chunks, %v", n, err)
	}

	// Unknown names are not found.
	err = c.Pull(ctx, &api.PullRequest{Model: PullName(regURL, "nope"), Insecure: true}, func(api.ProgressResponse) error { return nil })
	if err == nil {
		t.Error("pull of an unknown model succeeded")
	}
}

func TestSplitName(t *testing.T) {
	for _, tc := range []struct{ in, ns, model, tag string }{
		{"tiny", "library", "tiny", "latest"},
		{"tiny:q4", "library", "tiny", "q4"},
		{"carrel/tiny:v1", "carrel", "tiny", "v1"},
	} {
		ns, model, tag := splitName(tc.in)
		if ns != tc.ns || model != tc.model || tag != tc.tag {
			t.Errorf("splitName(%q) = %q %q %q", tc.in, ns, model, tag)
		}
	}
	if got := PullName("http://127.0.0.1:5000", "tiny"); got != "127.0.0.1:5000/library/tiny:latest" {
		t.Errorf("PullName = %q", got)
	}
}
