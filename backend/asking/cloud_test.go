package asking_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/zalando/go-keyring"
)

// openAIChunk is one event of OpenAI's chat completion stream: a delta and a finish
// reason, or (usage not "null") the usage chunk that ends it.
func openAIChunk(delta, finish, usage string) string {
	choices := `[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]`
	if usage != "null" {
		choices = "[]"
	}
	return `data: {"id":"chatcmpl-9","object":"chat.completion.chunk","created":1764460800,"model":"gpt-4.1-mini-2025-04-14","choices":` +
		choices + `,"usage":` + usage + "}\n\n"
}

// openAIStream writes OpenAI's chat completion stream of an answer: the assistant's role,
// the text in pieces, the stop, the usage chunk (usage is its JSON) and [DONE].
func openAIStream(w http.ResponseWriter, usage string, pieces ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, openAIChunk(`{"role":"assistant","content":""}`, "null", "null"))
	for _, p := range pieces {
		content, _ := json.Marshal(p)
		io.WriteString(w, openAIChunk(`{"content":`+string(content)+`}`, "null", "null"))
	}
	io.WriteString(w, openAIChunk(`{}`, `"stop"`, "null"))
	io.WriteString(w, openAIChunk("", "null", usage))
	io.WriteString(w, "data: [DONE]\n\n")
}

// fakeOpenAI serves OpenAI's chat completion stream (with include_usage) for every
// request: the answer in two pieces, then a usage chunk.
func fakeOpenAI(t *testing.T, promptTokens, completionTokens int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			w.WriteHeader(401)
			io.WriteString(w, `{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`)
			return
		}
		openAIStream(w, fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d,"prompt_tokens_details":{"cached_tokens":0}}`,
			promptTokens, completionTokens, promptTokens+completionTokens), "Thoreau planted beans", " and potatoes.")
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// verifies answering with GPT through the engine: the key comes from the keyring, each
// answer is priced from the dated table and entered in the ledger (per session and in
// total), the budget warns from 80% and refuses past 100% unless overridden, and a
// missing key is a clear error.
func TestCloudAnswersAndBudget(t *testing.T) {
	keyring.MockInit()
	t.Setenv("OPENAI_API_KEY", "")
	srv, calls := fakeOpenAI(t, 100_000, 10_000) // $0.04 + $0.016 at gpt-4.1-mini prices
	eng, _ := testengine.WithNote(t, engine.Config{
		AnswerConfig: engine.AnswerConfig{Provider: engine.ProviderOpenAI, OpenAIBaseURL: srv.URL, BudgetUSD: 0.1}}, "walden.md", "# Walden\n\nThoreau planted beans, potatoes, corn and peas by Walden Pond.\n")
	ctx := context.Background()
	if _, err := eng.Asking().Ask(ctx, "What did Thoreau plant?", asking.Options{}, nil); !errors.Is(err, llm.ErrNoAPIKey) {
		t.Fatalf("no key: %v", err)
	}
	if st := eng.Status(ctx); st.Mode != engine.ModeNoModel || st.Provider != "openai" || !strings.Contains(st.Fix, "OPENAI_API_KEY") {
		t.Fatalf("status without a key: %+v", st)
	}
	if err := llm.SetAPIKey("openai", "sk-test"); err != nil {
		t.Fatal(err)
	}
	eng.RefreshStatus()
	if st := eng.Status(ctx); st.Mode != engine.ModeLexical || st.AnswerModel != engine.DefaultOpenAIModel || !strings.Contains(st.Reason, "OpenAI") {
		t.Fatalf("status with a key, without Ollama: %+v", st)
	}
	want := (100_000*0.40 + 10_000*1.60) / 1e6
	ans, err := eng.Asking().Ask(ctx, "What did Thoreau plant?", asking.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Provider != "openai" || ans.Model != engine.DefaultOpenAIModel || !strings.Contains(ans.Text, "Thoreau planted beans and potatoes") ||
		ans.Usage.PromptTokens != 100_000 || fmt.Sprintf("%.6f", ans.Usage.CostUSD) != fmt.Sprintf("%.6f", want) || ans.Warning != "" {
		t.Fatalf("first cloud answer: %+v", ans)
	}
	// $0.056 of $0.10: below 80%. The follow-up (rewritten by the model: two calls) passes it.
	ans2, err := eng.Asking().Ask(ctx, "And what else did he plant there?", asking.Options{SessionID: ans.SessionID}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 || ans2.Usage.PromptTokens != 200_000 || !strings.Contains(ans2.Warning, "budget") {
		t.Fatalf("follow-up: %d calls, %+v", calls.Load(), ans2)
	}
	m, _ := eng.Meter(ctx)
	if fmt.Sprintf("%.6f", m.TotalUSD) != fmt.Sprintf("%.6f", 3*want) || m.BudgetUsed < 1 || m.Warning == "" || m.Answers != 2 {
		t.Fatalf("meter: %+v", m)
	}
	if _, err := eng.Asking().Ask(ctx, "What is Walden Pond?", asking.Options{SessionID: ans.SessionID}, nil); !errors.Is(err, engine.ErrBudgetExceeded) {
		t.Fatalf("past the budget: %v", err)
	}
	over, err := eng.Asking().Ask(ctx, "What is Walden Pond?", asking.Options{SessionID: ans.SessionID, OverrideBudget: true}, nil)
	if err != nil || over.Usage.CostUSD == 0 {
		t.Fatalf("override: %+v %v", over, err)
	}
	list, _ := eng.Asking().Sessions(ctx)
	if len(list) != 1 || fmt.Sprintf("%.6f", list[0].CostUSD) != fmt.Sprintf("%.6f", m.TotalUSD+over.Usage.CostUSD) {
		t.Fatalf("session cost: %+v", list)
	}
	// Settings round-trip through config.json, and the key never lands there.
	s := eng.CloudSettings()
	if s.Provider != engine.ProviderOpenAI || s.Keys["openai"] != llm.KeySourceKeyring || s.Keys["anthropic"] != "" || s.PricesAsOf == "" {
		t.Fatalf("settings: %+v", s)
	}
	s.Provider, s.BudgetUSD, s.Prices = engine.ProviderAnthropic, 5, map[string]llm.Price{"claude-haiku-4-5": {Input: 2, Output: 6}}
	if err := eng.SetCloudSettings(s); err != nil {
		t.Fatal(err)
	}
	saved, _ := engine.LoadConfig(eng.Config().Dir)
	raw, _ := os.ReadFile(filepath.Join(eng.Config().Dir, engine.ConfigFile))
	if saved.Provider != engine.ProviderAnthropic || saved.BudgetUSD != 5 || saved.Prices["claude-haiku-4-5"].Input != 2 || strings.Contains(string(raw), "sk-test") {
		t.Fatalf("saved settings: %+v\n%s", saved.AnswerConfig, raw)
	}
	if err := eng.SetCloudSettings(engine.CloudSettings{Provider: "gemini"}); err == nil {
		t.Fatal("unknown provider accepted")
	}
}
