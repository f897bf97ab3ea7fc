package ingest

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// verifies a panic in a best-effort step (here the link-target and title readers and the
// character-spacing probe, given a context with no cross-reference table, as a parser bug
// would leave it) is not swallowed: the document gets a warning naming the step, and the
// log has the panic with its stack.
func TestRecoveredPanicsAreReported(t *testing.T) {
	var logged bytes.Buffer
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logged, nil)))
	defer slog.SetDefault(prev)

	broken := &model.Context{} // no XRefTable: any lookup panics
	var warnings []string
	if out := namedDests(broken, types.Dict{"Dests": *types.NewIndirectRef(1, 0)}, &warnings); len(out) != 0 {
		t.Fatalf("link targets from a broken context: %v", out)
	}
	infoDict(broken, &warnings)
	xmpTitle(broken, types.Dict{"Metadata": *types.NewIndirectRef(1, 0)}, &warnings)
	if pages := tcSpacedPages(broken, &warnings); pages != nil {
		t.Fatalf("character-spaced pages from a broken context: %v", pages)
	}
	if len(warnings) != 4 || !strings.Contains(warnings[0], "outline's link targets") || !strings.Contains(warnings[0], "internal error") ||
		!strings.Contains(warnings[3], "character-spacing probe") {
		t.Fatalf("warnings = %q", warnings)
	}
	log := logged.String()
	if strings.Count(log, "a step panicked") != 4 || !strings.Contains(log, "stack=") || !strings.Contains(log, "namedDests") {
		t.Fatalf("log:\n%s", log)
	}
}
