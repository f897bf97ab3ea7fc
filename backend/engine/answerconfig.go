package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
)

// newOllama makes the Ollama client, dialling through cfg.Dial when set.
func newOllama(cfg Config) *llm.Ollama {
	var o *llm.Ollama
	if cfg.Dial == nil {
		o = llm.NewOllama(cfg.OllamaHost)
	} else {
		o = llm.NewOllamaClient(cfg.OllamaHost, httpClientFor(cfg))
	}
	o.StallTimeout = time.Duration(cfg.OllamaStallSeconds) * time.Second
	return o
}

// CloudSettings are the answering settings as Settings shows them: never the keys, only
// whether each provider has one and where it comes from.
type CloudSettings struct {
	Provider         provider.Name        `json:"provider"`
	OpenAIModel      string               `json:"openai_model"`
	AnthropicModel   string               `json:"anthropic_model"`
	OpenAIBaseURL    string               `json:"openai_base_url"`
	AnthropicBaseURL string               `json:"anthropic_base_url"`
	BudgetUSD        float64              `json:"budget_usd"`
	Prices           map[string]llm.Price `json:"prices"`
	KeepAlive        string               `json:"keep_alive"`
	// Keys says, per cloud provider, where its key comes from: "keyring",
	// "environment" or "" (none); KeyError explains a missing one.
	Keys     map[provider.Name]llm.KeySource `json:"keys"`
	KeyError map[provider.Name]string        `json:"key_error"`
	// BuiltinPrices is the dated built-in table the overrides apply to.
	BuiltinPrices map[string]llm.Price `json:"builtin_prices"`
	PricesAsOf    string               `json:"prices_as_of"`
}

// CloudSettings returns the answering settings in force.
func (e *Engine) CloudSettings() CloudSettings {
	ac := e.Config().AnswerConfig
	s := CloudSettings{Provider: ac.Provider, OpenAIModel: ac.OpenAIModel, AnthropicModel: ac.AnthropicModel,
		OpenAIBaseURL: ac.OpenAIBaseURL, AnthropicBaseURL: ac.AnthropicBaseURL, BudgetUSD: ac.BudgetUSD,
		Prices: ac.Prices, KeepAlive: ac.KeepAlive, Keys: map[provider.Name]llm.KeySource{}, KeyError: map[provider.Name]string{},
		BuiltinPrices: llm.Prices, PricesAsOf: llm.PricesAsOf}
	if s.Provider == "" {
		s.Provider = ProviderOllama
	}
	if s.OpenAIModel == "" {
		s.OpenAIModel = DefaultOpenAIModel
	}
	if s.AnthropicModel == "" {
		s.AnthropicModel = DefaultAnthropicModel
	}
	if s.Prices == nil {
		s.Prices = map[string]llm.Price{}
	}
	for _, p := range []provider.Name{ProviderOpenAI, ProviderAnthropic} {
		_, src, err := llm.APIKey(p)
		s.Keys[p] = src
		if err != nil {
			s.KeyError[p] = err.Error()
		}
	}
	return s
}

// SetCloudSettings checks and applies new answering settings and saves them in the
// library's config.json (keys are not settings: see llm.SetAPIKey).
func (e *Engine) SetCloudSettings(s CloudSettings) error {
	switch s.Provider {
	case "", ProviderOllama, ProviderOpenAI, ProviderAnthropic:
	default:
		return fmt.Errorf("unknown provider %q: use ollama, openai or anthropic", s.Provider)
	}
	if s.BudgetUSD < 0 {
		return errors.New("the budget cannot be negative (0 means no cap)")
	}
	if s.KeepAlive != "" && s.KeepAlive != "-1" {
		if _, err := time.ParseDuration(s.KeepAlive); err != nil {
			return fmt.Errorf("keep-alive %q is not a duration like 30m or 2h", s.KeepAlive)
		}
	}
	for name, p := range s.Prices {
		if p.Input < 0 || p.Output < 0 || p.CachedInput < 0 || p.CacheWrite < 0 {
			return fmt.Errorf("the price of %s cannot be negative", name)
		}
	}
	if s.Provider == ProviderOllama {
		s.Provider = ""
	}
	if s.OpenAIModel == DefaultOpenAIModel {
		s.OpenAIModel = ""
	}
	if s.AnthropicModel == DefaultAnthropicModel {
		s.AnthropicModel = ""
	}
	if len(s.Prices) == 0 {
		s.Prices = nil
	}
	e.cfgMu.Lock()
	defer e.cfgMu.Unlock()
	saved, err := LoadConfig(e.cfg.Dir)
	if err != nil {
		return err
	}
	ac := AnswerConfig{Provider: s.Provider, OpenAIModel: s.OpenAIModel, AnthropicModel: s.AnthropicModel,
		OpenAIBaseURL: s.OpenAIBaseURL, AnthropicBaseURL: s.AnthropicBaseURL, BudgetUSD: s.BudgetUSD, Prices: s.Prices,
		KeepAlive: s.KeepAlive}
	saved.AnswerConfig = ac
	if err := SaveConfig(e.cfg.Dir, saved); err != nil {
		return err
	}
	ac.Dial = e.cfg.Dial
	e.cfg.AnswerConfig = ac
	e.RefreshStatus()
	return nil
}
