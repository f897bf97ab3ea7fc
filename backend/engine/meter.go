package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
)

// ErrBudgetExceeded means the cloud budget cap is spent: no cloud answer until the user
// raises the cap or overrides it for one question.
var ErrBudgetExceeded = errors.New("cloud budget spent")

// BudgetWarnAt is the share of the budget from which each answer carries a warning.
const BudgetWarnAt = 0.8

// Meter is the running cost of cloud answers, as the header's meter shows it.
type Meter struct {
	// TotalUSD is everything spent, deleted sessions included.
	TotalUSD         float64 `json:"total_usd"`
	Answers          int     `json:"answers"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	// BudgetUSD is the cap (0: none); BudgetUsed the share of it spent (0..1+).
	BudgetUSD  float64 `json:"budget_usd"`
	BudgetUsed float64 `json:"budget_used"`
	// Warning is set from 80% of the budget.
	Warning string `json:"warning"`
	// Provider and Model answer now; PricesAsOf dates the built-in price table.
	Provider   provider.Name `json:"provider"`
	Model      string        `json:"model"`
	PricesAsOf string        `json:"prices_as_of"`
}

// Meter sums the cost ledger and compares it with the budget.
func (e *Engine) Meter(ctx context.Context) (Meter, error) {
	cfg := e.Config()
	spent, err := e.lib.Spent(ctx, "")
	if err != nil {
		return Meter{}, err
	}
	provider, model := e.providerModel()
	m := Meter{TotalUSD: spent.CostUSD, Answers: spent.Answers, PromptTokens: spent.PromptTokens,
		CompletionTokens: spent.CompletionTokens, BudgetUSD: cfg.BudgetUSD, Provider: provider, Model: model,
		PricesAsOf: llm.PricesAsOf}
	if cfg.BudgetUSD > 0 {
		m.BudgetUsed = spent.CostUSD / cfg.BudgetUSD
		switch {
		case m.BudgetUsed >= 1:
			m.Warning = fmt.Sprintf("The cloud budget of $%.2f is spent ($%.2f): cloud answers are refused unless you override or raise the cap.", cfg.BudgetUSD, spent.CostUSD)
		case m.BudgetUsed >= BudgetWarnAt:
			m.Warning = fmt.Sprintf("%.0f%% of the cloud budget is spent ($%.2f of $%.2f).", 100*m.BudgetUsed, spent.CostUSD, cfg.BudgetUSD)
		}
	}
	return m, nil
}

// providerModel names the provider and model that answer now.
func (e *Engine) providerModel() (provider.Name, string) {
	cfg := e.Config()
	switch cfg.Provider {
	case ProviderOpenAI:
		if cfg.OpenAIModel != "" {
			return ProviderOpenAI, cfg.OpenAIModel
		}
		return ProviderOpenAI, DefaultOpenAIModel
	case ProviderAnthropic:
		if cfg.AnthropicModel != "" {
			return ProviderAnthropic, cfg.AnthropicModel
		}
		return ProviderAnthropic, DefaultAnthropicModel
	}
	return ProviderOllama, cfg.ChatModel
}
