package llm

import (
	"sort"
	"strings"
)

// Price is what a cloud model charges, in US dollars per million tokens.
type Price struct {
	// Input is the price of prompt tokens not served from the cache.
	Input float64 `json:"input"`
	// Output is the price of generated tokens.
	Output float64 `json:"output"`
	// CachedInput is the price of prompt tokens read from the provider's prompt
	// cache; 0 means the Input price.
	CachedInput float64 `json:"cached_input"`
	// CacheWrite is the price of prompt tokens written to the cache (Anthropic);
	// 0 means the Input price.
	CacheWrite float64 `json:"cache_write,omitempty"`
}

// PricesAsOf is the date the built-in [Prices] were copied from the providers' price
// pages. Prices change: settings can override any of them (config.json "prices").
const PricesAsOf = "2025-11-01"

// Prices is the built-in price table, by model name as the providers spell it. A dated
// model name ("gpt-4o-mini-2024-07-18", "claude-sonnet-4-5-20250929") takes the price of
// its longest listed prefix.
var Prices = map[string]Price{
	// OpenAI (standard tier).
	"gpt-5":        {Input: 1.25, CachedInput: 0.125, Output: 10},
	"gpt-5-mini":   {Input: 0.25, CachedInput: 0.025, Output: 2},
	"gpt-5-nano":   {Input: 0.05, CachedInput: 0.005, Output: 0.40},
	"gpt-4.1":      {Input: 2, CachedInput: 0.50, Output: 8},
	"gpt-4.1-mini": {Input: 0.40, CachedInput: 0.10, Output: 1.60},
	"gpt-4.1-nano": {Input: 0.10, CachedInput: 0.025, Output: 0.40},
	"gpt-4o":       {Input: 2.50, CachedInput: 1.25, Output: 10},
	"gpt-4o-mini":  {Input: 0.15, CachedInput: 0.075, Output: 0.60},
	"o4-mini":      {Input: 1.10, CachedInput: 0.275, Output: 4.40},
	"o3":           {Input: 2, CachedInput: 0.50, Output: 8},
	// Anthropic: cache reads at 0.1× input, 5-minute cache writes at 1.25×.
	"claude-opus-4-1":   {Input: 15, CachedInput: 1.50, CacheWrite: 18.75, Output: 75},
	"claude-opus-4":     {Input: 15, CachedInput: 1.50, CacheWrite: 18.75, Output: 75},
	"claude-sonnet-4-5": {Input: 3, CachedInput: 0.30, CacheWrite: 3.75, Output: 15},
	"claude-sonnet-4":   {Input: 3, CachedInput: 0.30, CacheWrite: 3.75, Output: 15},
	"claude-haiku-4-5":  {Input: 1, CachedInput: 0.10, CacheWrite: 1.25, Output: 5},
	"claude-3-5-haiku":  {Input: 0.80, CachedInput: 0.08, CacheWrite: 1, Output: 4},
}

// PriceOf finds the price of model: in overrides first, then in [Prices], by exact name
// and then by the longest name that is a prefix of model. ok is false for an unknown
// model (a local one, or a cloud model newer than the table).
func PriceOf(model string, overrides map[string]Price) (p Price, ok bool) {
	for _, table := range []map[string]Price{overrides, Prices} {
		if p, ok := table[model]; ok {
			return p, true
		}
	}
	for _, table := range []map[string]Price{overrides, Prices} {
		names := make([]string, 0, len(table))
		for name := range table {
			if strings.HasPrefix(model, name+"-") {
				names = append(names, name)
			}
		}
		if len(names) > 0 {
			sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
			return table[names[0]], true
		}
	}
	return Price{}, false
}

// Cost is the price in dollars of what u used: uncached prompt tokens at the input
// price, cache reads and writes at theirs, and completion tokens at the output price.
func (p Price) Cost(u Usage) float64 {
	cached, written := u.CachedTokens, u.CacheWriteTokens
	fresh := max(0, u.PromptTokens-cached-written)
	cachedPrice, writePrice := p.CachedInput, p.CacheWrite
	if cachedPrice == 0 {
		cachedPrice = p.Input
	}
	if writePrice == 0 {
		writePrice = p.Input
	}
	return (float64(fresh)*p.Input + float64(cached)*cachedPrice + float64(written)*writePrice +
		float64(u.CompletionTokens)*p.Output) / 1e6
}
