package chat

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies which questions count as follow-ups.
func TestIsFollowUp(t *testing.T) {
	for q, want := range map[string]bool{
		"Why did Thoreau go to the woods?":       false,
		"What is an inner product index?":        false,
		"What did he eat there?":                 true,
		"And the second chapter?":                true,
		"What about FAISS?":                      true,
		"Why?":                                   true,
		"How does it compare with bleve scoring": true,
		"":                                       false,
	} {
		if got := IsFollowUp(q); got != want {
			t.Errorf("IsFollowUp(%q) = %v, want %v", q, got, want)
		}
	}
}

// verifies the deterministic rewrite: standalone questions and first questions stay as
// they are; a follow-up carries the previous standalone question as its context.
func TestFallbackRewrite(t *testing.T) {
	hist := []Turn{{Question: "Why did he go?", Standalone: "Why did Thoreau go to the woods?", Answer: "To live deliberately [1]."}}
	cases := []struct {
		q    string
		hist []Turn
		want string
	}{
		{"What did he eat?", nil, "What did he eat?"},
		{"What is Walden Pond?", hist, "What is Walden Pond?"},
		{"What did he eat there?", hist, "What did he eat there? (following up on: Why did Thoreau go to the woods?)"},
		{"Why?", []Turn{{Question: "Who wrote Walden?"}}, "Why? (following up on: Who wrote Walden?)"},
	}
	for _, c := range cases {
		if got := FallbackRewrite(c.q, c.hist); got != c.want {
			t.Errorf("FallbackRewrite(%q) = %q, want %q", c.q, got, c.want)
		}
	}
	// Without a model Rewrite is the fallback and makes no call.
	got, byModel, usage := Rewrite(context.Background(), nil, llm.ChatRequest{}, "What did he eat there?", hist)
	if byModel || usage != nil || !strings.Contains(got, "Thoreau") {
		t.Fatalf("Rewrite without a model = %q %v %v", got, byModel, usage)
	}
}

// verifies that a model's rewrite is cleaned of labels and quotes, and refused when it is
// empty, runaway or unrelated to the conversation.
func TestCleanRewrite(t *testing.T) {
	hist := []Turn{{Question: "Why did Thoreau go to the woods?"}}
	for reply, want := range map[string]string{
		"Standalone question: \"What did Thoreau eat in the woods?\"\nExtra": "What did Thoreau eat in the woods?",
		"What did Thoreau eat?":         "What did Thoreau eat?",
		"":                              "",
		"Bananas are yellow fruit.":     "",
		strings.Repeat("Thoreau ", 200): "",
	} {
		got, ok := cleanRewrite(reply, "What did he eat?", hist)
		if got != want || ok != (want != "") {
			t.Errorf("cleanRewrite(%.40q) = %q %v, want %q", reply, got, ok, want)
		}
	}
}

type scripted struct{ reply string }

func (scripted) Name() provider.Name { return "fake" }
func (s scripted) Chat(_ context.Context, req llm.ChatRequest, fn func(llm.Delta) error) (*llm.Usage, error) {
	fn(llm.Delta{Text: s.reply})
	return &llm.Usage{PromptTokens: 50, CompletionTokens: 9}, nil
}

// verifies a model's good rewrite is used, and a bad one falls back (usage is reported
// either way, since the call was made).
func TestRewriteWithModel(t *testing.T) {
	hist := []Turn{{Question: "Why did Thoreau go to the woods?", Answer: "To live deliberately."}}
	got, byModel, u := Rewrite(context.Background(), scripted{"What did Thoreau eat in the woods?"}, llm.ChatRequest{Model: "m"}, "What did he eat there?", hist)
	if !byModel || got != "What did Thoreau eat in the woods?" || u == nil || u.PromptTokens != 50 {
		t.Fatalf("good rewrite: %q %v %+v", got, byModel, u)
	}
	got, byModel, u = Rewrite(context.Background(), scripted{"zebra quantum"}, llm.ChatRequest{Model: "m"}, "What did he eat there?", hist)
	if byModel || !strings.Contains(got, "following up on") || u == nil {
		t.Fatalf("bad rewrite: %q %v %+v", got, byModel, u)
	}
}

// verifies rewriting through a real Ollama server: the tiny model is called (usage comes
// back) and, whatever it writes, the result is a usable question.
func TestRewriteWithOllama(t *testing.T) {
	srv := testollama.Start(t)
	hist := []Turn{{Question: "Why did Thoreau go to the woods?", Answer: "To live deliberately [1]."}}
	got, _, u := Rewrite(context.Background(), llm.NewOllama(srv.Host), llm.ChatRequest{Model: srv.ChatModel, NumCtx: 4096}, "What did he eat there?", hist)
	if u == nil || u.PromptTokens == 0 {
		t.Fatalf("no model call was made: %+v", u)
	}
	if strings.TrimSpace(got) == "" || len(got) > 400 {
		t.Fatalf("rewrite = %q", got)
	}
}

// verifies the Markdown export: questions as headings, markers renumbered to one session-
// wide reference list (a passage cited twice listed once), stopped answers marked, and
// references with document, page and quote.
func TestExportMarkdown(t *testing.T) {
	walden := library.Citation{N: 1, DocID: "d1", DocTitle: "Walden", Page: 12, Start: 0, End: 40, Text: "I went to the woods because I wished to live deliberately."}
	faiss := library.Citation{N: 1, DocID: "d2", DocTitle: "FAISS", Page: 3, PageEnd: 4, Start: 10, End: 90, Section: "Indexes", Text: "An IndexFlatIP performs exhaustive search."}
	s := library.Session{ID: "s", Title: "Reading\nnotes", CreatedAt: time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)}
	msgs := []library.Message{
		{Question: "Why the woods?", Answer: "To live deliberately [1].", Citations: []library.Citation{walden}, Model: "tiny", PromptTokens: 10, CompletionTokens: 5},
		{Question: "And search?", Standalone: "How does FAISS search?", Answer: "Exhaustively [1], unlike Thoreau [2].", Status: library.MessageStopped,
			Citations: []library.Citation{faiss, {N: 2, DocID: "d1", DocTitle: "Walden", Page: 12, Start: 0, End: 40, Text: walden.Text}}, CostUSD: 0.0012},
	}
	md := ExportMarkdown(s, msgs, []string{"Walden", "FAISS"})
	for _, want := range []string{
		"# Reading notes\n",
		"documents: Walden, FAISS; cost $0.0012",
		"## 1. Why the woods?\n\nTo live deliberately [1].",
		"## 2. And search?\n\n*Searched as: How does FAISS search?*\n\nExhaustively [2], unlike Thoreau [1].",
		"*Stopped before the answer was complete.*",
		"## References\n\n1. *Walden*, page 12: “I went to the woods because I wished to live deliberately.”\n2. *FAISS*, pages 3–4 (Indexes): “An IndexFlatIP",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("export lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "*Walden*") != 1 {
		t.Errorf("a passage cited twice is listed twice:\n%s", md)
	}
}
