package asking_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/carrel-app/carrel/internal/testollama"
	"github.com/zalando/go-keyring"
)

// verifies that nothing from a document or an answer lands in memory: a document written
// in the first person ("I am a professional chef. I prefer short answers."), questions
// quoting it, and answers quoting it (the no-model answer quotes passages verbatim)
// leave memory empty; only the user's own statement is kept.
func TestMemoryOnlyFromUser(t *testing.T) {
	srv := testollama.Start(t)
	dir := t.TempDir()
	note := filepath.Join(dir, "chef.md")
	os.WriteFile(note, []byte("# A chef's diary\n\nI am a professional chef. I prefer short answers. My goal is to open a restaurant.\nI'm studying French cuisine.\n"), 0o644)
	for _, chatModel := range []string{srv.ChatModel, "no-such-model"} {
		eng := testengine.Open(t, engine.Config{Dir: filepath.Join(dir, "lib-"+chatModel), OllamaHost: srv.Host, ChatModel: chatModel,
			EmbedModel: srv.EmbedModel, MaxTokens: 16})
		ctx := context.Background()
		if _, err := eng.Intake().IngestFile(ctx, note, nil); err != nil {
			t.Fatal(err)
		}
		for _, q := range []string{
			"What does the chef prefer?",
			`The diary says "I am a professional chef. I prefer short answers." Who wrote it?`,
			"> I'm studying French cuisine.\nWhat is the chef studying?",
		} {
			ans := testengine.Ask(t, eng, q, asking.Options{})
			if chatModel == "no-such-model" && (ans.Mode != "passages" || !strings.Contains(ans.Text, "professional chef")) {
				t.Fatalf("the no-model answer should quote the document: %+v", ans)
			}
		}
		if ms, _ := eng.Memory().List(ctx); len(ms) != 0 {
			t.Fatalf("%s: memories from a document or an answer: %+v", chatModel, ms)
		}
		testengine.Ask(t, eng, "I'm a second-year nursing student. What does the chef prefer?", asking.Options{})
		ms, _ := eng.Memory().List(ctx)
		if len(ms) != 1 || ms[0].Text != "is a second-year nursing student" || ms[0].Kind != "context" || ms[0].SessionID == "" {
			t.Fatalf("%s: memories = %+v", chatModel, ms)
		}
	}
}

// verifies memories reach the prompt in their own section, apart from the passages; that
// they can be listed, added, edited and deleted; that a duplicate is not kept twice; and
// that with memory off nothing is learnt and nothing is sent.
func TestMemoryInPrompt(t *testing.T) {
	keyring.MockInit()
	t.Setenv("OPENAI_API_KEY", "sk-test")
	var mu sync.Mutex
	var bodies []string
	srv, _ := fakeRewritingOpenAI(t)
	capture := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		mu.Unlock()
		req, _ := http.NewRequest(r.Method, srv.URL+r.URL.Path, strings.NewReader(string(b)))
		req.Header = r.Header
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			w.WriteHeader(502)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		io.Copy(w, resp.Body)
	}))
	defer capture.Close()
	last := func() string {
		mu.Lock()
		defer mu.Unlock()
		return bodies[len(bodies)-1]
	}
	dir := t.TempDir()
	note := filepath.Join(dir, "walden.md")
	os.WriteFile(note, []byte("# Walden\n\nThoreau planted beans, potatoes, corn and peas by Walden Pond.\n"), 0o644)
	eng := testengine.Open(t, engine.Config{Dir: filepath.Join(dir, "lib"),
		AnswerConfig: engine.AnswerConfig{Provider: engine.ProviderOpenAI, OpenAIBaseURL: capture.URL}})
	ctx := context.Background()
	eng.Intake().IngestFile(ctx, note, nil)

	// Each step works on the memories the steps before left.
	var ms []library.Memory
	t.Run("a memory reaches the next prompt in its own section", func(t *testing.T) {
		testengine.Ask(t, eng, "I prefer short answers. What did Thoreau plant?", asking.Options{})
		if strings.Contains(last(), "About the user") {
			t.Fatal("a memory reached the prompt of the answer it was learnt from (it is learnt after the answer)")
		}
		testengine.Ask(t, eng, "What did Thoreau grow by the pond?", asking.Options{})
		body := last()
		about := strings.Index(body, "About the user")
		if about < 0 || !strings.Contains(body, `- The user prefers short answers`) || about < strings.Index(body, "[1]") {
			t.Fatalf("memory not in its own section after the passages: %s", body)
		}
	})

	t.Run("said again, it is kept once", func(t *testing.T) {
		// Said again: a duplicate is not kept.
		testengine.Ask(t, eng, "I prefer short answers. What is Walden Pond?", asking.Options{})
		ms, _ = eng.Memory().List(ctx)
		if len(ms) != 1 {
			t.Fatalf("memories: %+v", ms)
		}
	})

	t.Run("memories are added, edited and deleted", func(t *testing.T) {
		m, err := eng.Memory().Add(ctx, "goal", "wants to pass the botany exam")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Memory().Add(ctx, "mood", "x"); err == nil {
			t.Fatal("a memory of an unknown kind was accepted")
		}
		if _, err := eng.Memory().Edit(ctx, m.ID, "wants to pass the biology exam"); err != nil {
			t.Fatal(err)
		}
		if err := eng.Memory().Delete(ctx, ms[0].ID); err != nil {
			t.Fatal(err)
		}
		if err := eng.Memory().Delete(ctx, ms[0].ID); err == nil {
			t.Fatal("deleting a deleted memory succeeded")
		}
	})

	t.Run("the prompt holds the edited memories", func(t *testing.T) {
		testengine.Ask(t, eng, "How deep is Walden Pond?", asking.Options{})
		if body := last(); !strings.Contains(body, "- The user wants to pass the biology exam") || strings.Contains(body, "short answers") {
			t.Fatalf("edited memories in the prompt: %s", body)
		}
	})

	t.Run("with memory off nothing is learnt or sent", func(t *testing.T) {
		// Off: nothing learnt, nothing sent.
		if err := eng.Memory().SetEnabled(ctx, false); err != nil {
			t.Fatal(err)
		}
		testengine.Ask(t, eng, "I'm a botany student. Where is Walden Pond?", asking.Options{})
		if body := last(); strings.Contains(body, "About the user") {
			t.Fatalf("memory off, yet in the prompt: %s", body)
		}
		if ms, _ := eng.Memory().List(ctx); len(ms) != 1 || eng.Memory().Enabled(ctx) {
			t.Fatalf("memory off, yet learnt: %+v", ms)
		}
	})
}

// verifies the local model's extraction with the real test Ollama: its gibberish
// proposals are all refused, so only the rules' facts are kept.
func TestModelMemoryRefusesGibberish(t *testing.T) {
	srv := testollama.Start(t)
	eng, _ := testengine.WithNotes(t, srv)
	ctx := context.Background()
	if err := eng.Memory().SetModelEnabled(ctx, true); err != nil || !eng.Memory().ModelEnabled(ctx) {
		t.Fatal(err)
	}
	testengine.Ask(t, eng, "I'm a second-year nursing student at Leeds. Why did Thoreau live in the woods?", asking.Options{})
	if ms, _ := eng.Memory().List(ctx); len(ms) != 0 {
		t.Fatalf("memories from a random model: %+v", ms)
	}
	testengine.Ask(t, eng, "I prefer short answers. What did Thoreau plant?", asking.Options{})
	if ms, _ := eng.Memory().List(ctx); len(ms) != 1 || ms[0].Text != "prefers short answers" {
		t.Fatalf("memories: %+v", ms)
	}
}
