package summary

import (
	"context"

	"github.com/carrel-app/carrel/backend/library"
)

// What the external tests (package summary_test, which open a real engine) look at inside.

// ReducePrompt is the reduce step's system prompt.
const ReducePrompt = reducePrompt

// Group is a section's passages, in reading order.
type Group = summaryGroup

// Plan reads the passages req covers, grouped by section.
func Plan(ctx context.Context, lib *library.Library, req SummaryRequest) (*Summary, []Group, error) {
	return summaryPlan(ctx, lib, req)
}

// Run summarises groups with complete in a window of numCtx tokens, as Summarize does,
// and returns the tokens a call's prompt may use.
func Run(ctx context.Context, complete CompleteFunc, numCtx int, sum *Summary, groups []Group, fn func(SummaryEvent) error) (budget int, err error) {
	s := &summarizer{complete: complete, budget: numCtx - ReplyTokens - summaryMargin, passages: sum.Passages, sum: sum, fn: fn}
	return s.budget, s.run(ctx, groups)
}

// Save keeps sum in a new study session (no model named).
func Save(ctx context.Context, lib *library.Library, newSessionID func() string, sum *Summary, req SummaryRequest) error {
	return saveSummary(ctx, lib, newSessionID, sum, req, nil)
}
