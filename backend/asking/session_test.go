package asking_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies a study session with a real Ollama server: the first question starts a
// session scoped to its documents, a follow-up is rewritten into a standalone question
// while history keeps the text as asked, the session lists, resumes with citations,
// renames, exports as Markdown and deletes.
func TestStudySession(t *testing.T) {
	srv := testollama.Start(t)
	eng, docID := testengine.WithNotes(t, srv)
	ctx := context.Background()

	// Each step works on the session the steps before left.
	var first, follow *chat.Answer
	t.Run("the first question starts a session, its claims inside both texts", func(t *testing.T) {
		var started, tokens int
		var err error
		first, err = eng.Asking().Ask(ctx, "Why did Thoreau live in the woods?", asking.Options{DocIDs: []string{docID}}, func(ev asking.Event) error {
			if ev.IsStart {
				started++
			} else {
				tokens++
			}
			return nil
		})
		if err != nil {
			t.Fatalf("first question: %v", err)
		}
		if first.SessionID == "" || first.MessageID == 0 || first.Mode != "model" || first.Provider != "ollama" ||
			started != 1 || tokens == 0 || len(first.Citations) == 0 || first.Usage.CostUSD != 0 || first.Usage.CompletionTokens == 0 {
			t.Fatalf("first answer: %+v (start events %d, tokens %d)", first, started, tokens)
		}
		// The tiny model's noise still gives claims that lie inside both texts.
		answerLen := len([]rune(first.Text))
		for _, c := range first.Claims {
			if c.Start < 0 || c.End > answerLen || c.Start >= c.End || c.Supported != (len(c.Spans) > 0) {
				t.Fatalf("claim out of the answer (%d chars): %+v", answerLen, c)
			}
			for _, sp := range c.Spans {
				text := []rune(first.Citations[sp.N-1].Text)
				if sp.Start < 0 || sp.End > len(text) || string(text[sp.Start:sp.End]) != sp.Quote {
					t.Fatalf("span out of passage %d: %+v", sp.N, sp)
				}
			}
		}
	})

	t.Run("a follow-up is rewritten, kept as asked", func(t *testing.T) {
		var err error
		follow, err = eng.Asking().Ask(ctx, "What did he eat there?", asking.Options{SessionID: first.SessionID}, nil)
		if err != nil {
			t.Fatalf("follow-up: %v", err)
		}
		if follow.SessionID != first.SessionID || follow.Question != "What did he eat there?" || follow.Standalone == "" {
			t.Fatalf("follow-up answer: session %q question %q standalone %q", follow.SessionID, follow.Question, follow.Standalone)
		}
	})

	t.Run("the session resumes with its citations and claims", func(t *testing.T) {
		d, err := eng.Asking().Session(ctx, first.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Messages) != 2 || d.Messages[1].Question != "What did he eat there?" || d.Messages[1].Standalone != follow.Standalone ||
			len(d.Messages[0].Citations) == 0 || d.Messages[0].Citations[0].DocID != docID || d.Messages[0].Answer != first.Text {
			t.Fatalf("session read back: %+v", d.Messages)
		}
		if len(d.Messages[0].Claims) != len(first.Claims) {
			t.Fatalf("resumed claims: %+v, answered with %+v", d.Messages[0].Claims, first.Claims)
		}
		if len(d.DocIDs) != 1 || d.Scope[0] != "Walden" || d.Title != "Why did Thoreau live in the woods?" || d.Model != srv.ChatModel {
			t.Fatalf("session: %+v", d.Session)
		}
	})

	t.Run("renamed, exported as Markdown and listed", func(t *testing.T) {
		if err := eng.Asking().Rename(ctx, first.SessionID, "  Walden  notes "); err != nil {
			t.Fatal(err)
		}
		md, err := eng.Asking().Export(ctx, first.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"# Walden notes\n", "documents: Walden", "## 1. Why did Thoreau live in the woods?", "## 2. What did he eat there?",
			"## References\n\n1. *Walden*, page 1"} {
			if !strings.Contains(md, want) {
				t.Errorf("export lacks %q:\n%s", want, md)
			}
		}
		list, _ := eng.Asking().Sessions(ctx)
		if len(list) != 1 || list[0].Messages != 2 || list[0].Title != "Walden notes" {
			t.Fatalf("sessions: %+v", list)
		}
	})

	t.Run("deleted, it takes no more questions", func(t *testing.T) {
		if err := eng.Asking().Delete(ctx, first.SessionID); err != nil {
			t.Fatal(err)
		}
		if _, err := eng.Asking().Session(ctx, first.SessionID); !errors.Is(err, library.ErrNotFound) {
			t.Fatalf("deleted session: %v", err)
		}
		if _, err := eng.Asking().Ask(ctx, "Why?", asking.Options{SessionID: first.SessionID}, nil); !errors.Is(err, library.ErrNotFound) {
			t.Fatalf("asking in a deleted session: %v", err)
		}
	})
}

// verifies that stopping an answer keeps the part that arrived, marked as stopped, in the
// session's history.
func TestStopKeepsPartialAnswer(t *testing.T) {
	srv := testollama.Start(t)
	eng, _ := testengine.WithNotes(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got strings.Builder
	ans, err := eng.Asking().Ask(ctx, "What did Thoreau plant?", asking.Options{}, func(ev asking.Event) error {
		if !ev.IsStart {
			got.WriteString(ev.Token)
			cancel() // the user presses Stop after the first token
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || ans == nil || !ans.Stopped || ans.Text == "" || ans.MessageID == 0 {
		t.Fatalf("stopped answer: %+v %v", ans, err)
	}
	d, err := eng.Asking().Session(context.Background(), ans.SessionID)
	if err != nil || len(d.Messages) != 1 {
		t.Fatalf("session after stop: %+v %v", d, err)
	}
	m := d.Messages[0]
	if m.Status != library.MessageStopped || m.Answer == "" || !strings.Contains(got.String(), strings.Fields(m.Answer)[0]) {
		t.Fatalf("stopped message: %+v (streamed %q)", m, got.String())
	}
}

// verifies answers ask Ollama to keep the chat model loaded for the study session
// (keep_alive), instead of its five-minute default.
func TestKeepAlive(t *testing.T) {
	srv := testollama.Start(t)
	// No embedding model: the test's two models share one weights file, and Ollama
	// v0.6.5 reloads that file's runner for whichever name asks last.
	eng, _ := testengine.WithNote(t, engine.Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel,
		EmbedModel: "not-installed", MaxTokens: 16}, "walden.md", testcorpus.Woods)
	if _, err := eng.Asking().Ask(context.Background(), "What did Thoreau plant?", asking.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get(srv.Host + "/api/ps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ps struct {
		Models []struct {
			Name      string    `json:"name"`
			ExpiresAt time.Time `json:"expires_at"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ps); err != nil {
		t.Fatal(err)
	}
	for _, m := range ps.Models {
		if strings.HasPrefix(m.Name, srv.ChatModel+":") {
			if left := time.Until(m.ExpiresAt); left < 20*time.Minute {
				t.Fatalf("chat model unloads in %s, want about %s", left, engine.DefaultKeepAlive)
			}
			return
		}
	}
	t.Fatalf("chat model not loaded after an answer: %+v", ps.Models)
}

// verifies a chat model that is not installed gives a clear way out: the answer is the
// best passages with a note naming the model and the pull command, and a chat call made
// anyway fails with ErrModelNotFound saying the same.
func TestMissingModel(t *testing.T) {
	srv := testollama.Start(t)
	eng, _ := testengine.WithNote(t, engine.Config{OllamaHost: srv.Host, ChatModel: "nosuch:1b", EmbedModel: srv.EmbedModel},
		"walden.md", testcorpus.Woods)
	ctx := context.Background()
	ans, err := eng.Asking().Ask(ctx, "What did Thoreau plant?", asking.Options{}, nil)
	if err != nil || ans.Mode != "passages" || !strings.Contains(ans.Note, "ollama pull nosuch:1b") {
		t.Fatalf("answer without the model: %+v %v", ans, err)
	}
	_, err = llm.NewOllama(srv.Host).Chat(ctx, llm.ChatRequest{Model: "nosuch:1b", Messages: []llm.Message{{Role: "user", Content: "hi"}}}, nil)
	if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "ollama pull nosuch:1b") {
		t.Fatalf("chat with a missing model: %v", err)
	}
}

// verifies the prompt budget is calibrated against Ollama's own token counts: the tiny
// model's byte-level tokenizer takes far more tokens than the default estimate, so a
// probe before the first answer measures it, and every prompt then fits the context
// window (no silent truncation), its estimate erring high against prompt_eval_count.
func TestTokenCalibration(t *testing.T) {
	srv := testollama.Start(t)
	var b strings.Builder
	b.WriteString("# Walden\n\n")
	for i := range 14 {
		fmt.Fprintf(&b, "Part %d. Thoreau planted beans in the field by the pond and kept an account of every expense, "+
			"noting the price of seed, the hours of hoeing, the visits of woodchucks and the weather over the summer; "+
			"he wrote that the beans attached him to the earth and that he came to love his rows. ", i+1)
		b.WriteString(strings.Repeat("The pond was clear and deep, and the woods around it were quiet. ", 5) + "\n\n")
	}
	const maxTokens = 16
	eng, _ := testengine.WithNote(t, engine.Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel,
		EmbedModel: srv.EmbedModel, MaxTokens: maxTokens, TopK: 8}, "beans.md", b.String())
	ctx := context.Background()
	first, err := eng.Asking().AnswerOnce(ctx, "What did Thoreau plant by the pond?", nil, nil)
	if err != nil || first.Mode != "model" || first.UsageEstimated {
		t.Fatalf("first answer: %+v %v", first, err)
	}
	est := eng.Asking().Estimator(srv.ChatModel)
	if est <= 0 || float64(est) >= 2 {
		t.Fatalf("estimator after one answer = %v bytes/token (prompt %d bytes, %d tokens)", est, first.PromptBytes, first.Usage.PromptTokens)
	}
	numCtx := eng.Asking().NumCtx(ctx)
	if first.Usage.PromptTokens+maxTokens > numCtx {
		t.Fatalf("first prompt overflowed: %d tokens in a window of %d", first.Usage.PromptTokens, numCtx)
	}
	second, err := eng.Asking().AnswerOnce(ctx, "How did Thoreau keep an account of the beans?", nil, nil)
	if err != nil || second.UsageEstimated {
		t.Fatalf("second answer: %+v %v", second, err)
	}
	estimated := int(float64(second.PromptBytes)/float64(eng.Asking().Estimator(srv.ChatModel))) + 1
	if estimated < second.Usage.PromptTokens || second.Usage.PromptTokens+maxTokens > numCtx {
		t.Fatalf("prompt: estimated %d tokens, Ollama counted %d, window %d", estimated, second.Usage.PromptTokens, numCtx)
	}
	if len(second.Citations) == 0 || len(second.Citations) >= 8 {
		t.Fatalf("kept %d passages: the budget did not trim", len(second.Citations))
	}
}

// verifies the embedding step of grounding through the real Ollama embedding model: a
// sentence left unmarked is placed on the passage whose embedding matches it.
func TestGroundByMeaning(t *testing.T) {
	srv := testollama.Start(t)
	eng := testengine.Open(t, engine.Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: srv.EmbedModel})
	ans := &chat.Answer{Mode: chat.ModeModel, Text: "Simplify your life and keep your accounts on your thumbnail.",
		Citations: []chat.Passage{{N: 1, Text: "Ponds freeze in winter and the ice is cut in blocks."},
			{N: 2, Text: "Simplify your life and keep your accounts on your thumbnail."}}}
	eng.Asking().GroundByMeaning(context.Background(), ans)
	if ans.Text != "Simplify your life and keep your accounts on your thumbnail [2]." || len(ans.Claims) != 1 || !ans.Claims[0].Supported {
		t.Fatalf("grounded by meaning: %q %+v", ans.Text, ans.Claims)
	}
}
