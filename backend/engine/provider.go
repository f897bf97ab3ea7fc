package engine

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
)

// answerModel picks the model that answers now. With a cloud provider chosen it needs an
// API key and respects the budget: a warning from 80%, a refusal (ErrBudgetExceeded) past
// 100% unless overridden. With Ollama it is the chat model when installed, else none (the
// passages answer, with the reason).
func (e *Engine) answerModel(ctx context.Context, st Status, overrideBudget bool) (asking.Model, error) {
	cfg := e.Config()
	p, model := e.providerModel()
	if p == ProviderOllama {
		if !st.chatOK {
			return asking.Model{Reason: st.Reason + " " + st.Fix}, nil
		}
		return asking.Model{Provider: e.ollama, Name: model, NumCtx: e.contextLength(ctx, model), Local: true}, nil
	}
	key, _, err := llm.APIKey(p)
	if err != nil {
		return asking.Model{}, err
	}
	m := asking.Model{Name: model, NumCtx: cfg.MaxContext}
	if p, ok := llm.PriceOf(model, cfg.Prices); ok {
		m.Price = &p
	} else {
		m.Warning = fmt.Sprintf("No price is known for %s: its cost shows as $0. Add its prices in Settings.", model)
	}
	meter, err := e.Meter(ctx)
	if err != nil {
		return asking.Model{}, err
	}
	if meter.BudgetUSD > 0 && meter.BudgetUsed >= 1 && !overrideBudget {
		return asking.Model{}, fmt.Errorf("%w: $%.2f of the $%.2f budget is spent; raise the cap in Settings, override it for this question, or switch to the local model",
			ErrBudgetExceeded, meter.TotalUSD, meter.BudgetUSD)
	}
	if meter.Warning != "" {
		m.Warning = meter.Warning
	}
	opt := llm.CloudOptions{APIKey: key, HTTPClient: e.httpClient(), MaxRetries: -1}
	switch p {
	case ProviderOpenAI:
		opt.BaseURL = cfg.OpenAIBaseURL
		m.Provider = llm.NewOpenAI(opt)
	case ProviderAnthropic:
		opt.BaseURL = cfg.AnthropicBaseURL
		m.Provider = llm.NewAnthropic(opt)
	default:
		return asking.Model{}, fmt.Errorf("unknown provider %q in settings: use ollama, openai or anthropic", p)
	}
	return m, nil
}

// httpClient is the client of every cloud request, dialling through cfg.Dial when set.
func (e *Engine) httpClient() *http.Client { return httpClientFor(e.cfg) }

// httpClientFor makes an HTTP client that dials through cfg.Dial when set.
func httpClientFor(cfg Config) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if dial := cfg.Dial; dial != nil {
		t.DialContext = dial
	} else {
		t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return &http.Client{Transport: t}
}

// answerStatus says in st who answers. With a cloud provider the chat side of the mode
// depends on its key, not on Ollama's chat model; search still depends on Ollama's
// embedding model.
func (e *Engine) answerStatus(st *Status) {
	p, model := e.providerModel()
	st.Provider, st.AnswerModel = p, model
	if p == ProviderOllama {
		return
	}
	name := map[provider.Name]string{ProviderOpenAI: "OpenAI", ProviderAnthropic: "Anthropic"}[p]
	if _, _, err := llm.APIKey(p); err != nil {
		st.Mode = ModeNoModel
		st.Reason = fmt.Sprintf("Answers come from %s %s, but there is no API key for it.", name, model)
		st.Fix = fmt.Sprintf("Add the %s API key in Settings (or set %s), or switch answers to the local model.", name, llm.KeyEnv(p))
		return
	}
	if st.embedOK {
		st.Mode, st.Reason, st.Fix = ModeFull, "", ""
		return
	}
	st.Mode = ModeLexical
	st.Reason = fmt.Sprintf("Answers come from %s %s; without Ollama's embedding model %s, search is by words only.", name, model, st.EmbedModel)
	st.Fix = "Start Ollama and run `ollama pull " + st.EmbedModel + "` for meaning-based search."
}
