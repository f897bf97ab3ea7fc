package summary_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/summary"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/carrel-app/carrel/internal/testollama"
)

// summaryDoc is a note of three sections, each long enough to need several calls of a
// small window.
func summaryDoc(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Cell biology\n\n")
	for _, sec := range []struct{ title, line string }{
		{"Membranes", "The cell membrane is a thin layer of lipids and proteins that controls what enters and leaves the cell, and channel proteins let ions cross it."},
		{"Organelles", "The mitochondrion releases energy from glucose by respiration, while ribosomes assemble proteins from amino acids."},
		{"Photosynthesis", "Chloroplasts capture light and turn carbon dioxide and water into glucose and oxygen, which feeds the plant."},
	} {
		fmt.Fprintf(&b, "## %s\n\n", sec.title)
		for i := range 6 {
			fmt.Fprintf(&b, "%s Paragraph %d of %s goes on with examples from textbooks and laboratory notes, observed under the microscope in class.\n\n", sec.line, i+1, strings.ToLower(sec.title))
		}
	}
	path := filepath.Join(t.TempDir(), "cells.md")
	os.WriteFile(path, []byte(b.String()), 0o644)
	return path
}

var markerRE = regexp.MustCompile(`\[(\d+)\]`)

// verifies the map over sections and the reduce, with fixed model replies: in a window
// of 1000 tokens each section is cut into parts that fit it (no call's prompt over the
// budget), a section's parts reduced to one, the sections reduced to an overview that
// comes first; sentences the model left unmarked are cited by the passage that shares
// their words, sentences no passage supports are dropped and counted; every sentence
// kept cites a passage of its own section (the overview: of the document).
func TestSummaryMapReduce(t *testing.T) {
	ctx := context.Background()
	eng := testengine.Open(t, engine.Config{})
	res, err := eng.Intake().IngestFile(ctx, summaryDoc(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum, groups, err := summary.Plan(ctx, eng.Library(), summary.SummaryRequest{DocID: res.DocID})
	if err != nil {
		t.Fatal(err)
	}
	const numCtx = 1000
	var maxPrompt, tokens int
	calls := map[string]int{}
	complete := func(ctx context.Context, system, user string, onToken func(string) error) (string, error) {
		maxPrompt = max(maxPrompt, chat.EstimateTokens(system)+chat.EstimateTokens(user))
		var reply string
		if system == summary.ReducePrompt {
			calls["reduce"]++
			// Keeps the first marker it is given, and adds a sentence of nothing.
			m := markerRE.FindString(user)
			reply = "The document explains how cells work, from their membranes to their energy " + m + ". The weather was pleasant in the spring."
		} else {
			calls["map"]++
			n := markerRE.FindStringSubmatch(user)[1]
			// A marked sentence, an unmarked one the passages support, one they do not.
			line := strings.SplitN(user, "] ", 2)[1]
			words := strings.Fields(line)
			reply = fmt.Sprintf("%s [%s]. %s. Quantum chromodynamics explains the strong force.", strings.Join(words[:8], " "), n, strings.Join(words[8:16], " "))
		}
		for _, w := range strings.SplitAfter(reply, " ") {
			tokens++
			if err := onToken(w); err != nil {
				return "", err
			}
		}
		return reply, nil
	}
	var events []summary.SummaryEvent
	budget, err := summary.Run(ctx, complete, numCtx, sum, groups, func(ev summary.SummaryEvent) error { events = append(events, ev); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if maxPrompt > budget {
		t.Errorf("a call's prompt took %d tokens, over the budget of %d", maxPrompt, budget)
	}
	if len(groups) != 4 && len(groups) != 3 {
		t.Fatalf("%d sections", len(groups))
	}
	if sum.MapCalls <= len(groups) || sum.ReduceCalls < 2 || calls["map"] != sum.MapCalls {
		t.Errorf("map calls %d, reduce calls %d for %d sections: the window did not cut them into parts", sum.MapCalls, sum.ReduceCalls, len(groups))
	}
	if len(sum.Sections) != len(groups)+1 || !sum.Sections[0].Overview {
		t.Fatalf("sections %d (overview first?)", len(sum.Sections))
	}
	if sum.Dropped < sum.MapCalls+sum.ReduceCalls {
		t.Errorf("dropped %d sentences, want at least one a call (%d calls)", sum.Dropped, sum.MapCalls+sum.ReduceCalls)
	}
	for _, sec := range sum.Sections {
		if strings.Contains(sec.Text, "Quantum") || strings.Contains(sec.Text, "weather") {
			t.Errorf("an unsupported sentence was kept in %q: %s", sec.Section, sec.Text)
		}
		for _, c := range sec.Claims {
			if !c.Supported {
				t.Errorf("an uncited sentence in %q: %s", sec.Section, string([]rune(sec.Text)[c.Start:c.End]))
			}
			for _, sp := range c.Spans {
				if p := sum.Passages[sp.N-1]; !sec.Overview && p.Section != sec.Section {
					t.Errorf("%q cites passage %d of %q", sec.Section, sp.N, p.Section)
				}
			}
		}
		if len(sec.Claims) < 1 {
			t.Errorf("section %q kept no sentence", sec.Section)
		}
	}
	var streamed, started, reducing int
	for _, ev := range events {
		if ev.Token != "" {
			streamed++
		}
		if ev.Start != nil {
			started++
		}
		if ev.Reducing {
			reducing++
		}
	}
	if started != 1 || streamed != tokens || reducing == 0 {
		t.Errorf("events: %d starts, %d of %d tokens streamed, %d reduce events", started, streamed, tokens, reducing)
	}

	// Saved in a session: the export (Markdown) has the overview and the references.
	if err := summary.Save(ctx, eng.Library(), asking.NewSessionID, sum, summary.SummaryRequest{DocID: res.DocID}); err != nil {
		t.Fatal(err)
	}
	md, err := eng.Asking().Export(ctx, sum.SessionID)
	if err != nil || !strings.Contains(md, "### Overview") || !strings.Contains(md, "Summarise Cell biology") || !strings.Contains(md, "[1]") {
		t.Errorf("exported session: %v\n%s", err, md[:min(len(md), 800)])
	}
}

// verifies the summary with the real test Ollama (a tiny random model): the window is
// the model's own context length read from /api/show (4096 in its GGUF), capped by the
// settings; tokens stream; the model's random words are grounded to no passage and
// dropped; and a summary stopped at its first token stops with context.Canceled, quickly.
// With no chat model, a section's summary and a selection's are its key sentences,
// cited, from that section or those pages only.
func TestSummaryScopesAndStop(t *testing.T) {
	ctx := context.Background()
	srv := testollama.Start(t)
	eng := testengine.Open(t, engine.Config{OllamaHost: srv.Host, ChatModel: srv.ChatModel, MaxContext: 2048})
	res, err := eng.Intake().IngestFile(ctx, summaryDoc(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens := 0
	sum, err := eng.Summarize(ctx, summary.SummaryRequest{DocID: res.DocID, Section: "Organelles"}, func(ev summary.SummaryEvent) error {
		if ev.Token != "" {
			tokens++
		}
		return nil
	})
	if sum == nil || sum.NumCtx != 2048 || sum.Mode != "model" || sum.MapCalls == 0 || tokens == 0 {
		t.Fatalf("summary with the tiny model: %+v, %d tokens, %v\n%s", sum, tokens, err, srv.LogTail())
	}
	if got, _ := eng.Ollama().ContextLength(ctx, srv.ChatModel); got != 4096 {
		t.Errorf("/api/show gives %d, want the GGUF's 4096", got)
	}
	t.Logf("tiny model: %d map calls, %d dropped sentences, %d sections kept, err %v", sum.MapCalls, sum.Dropped, len(sum.Sections), err)
	if len(sum.Sections) == 0 && (err == nil || !strings.Contains(err.Error(), "supported by the passages")) {
		t.Errorf("nothing kept of the random model's summary, and the error does not say why: %v", err)
	}
	for _, s := range sum.Sections {
		for _, c := range s.Claims {
			if !c.Supported {
				t.Errorf("an uncited sentence was kept: %q", s.Text)
			}
		}
	}

	stopCtx, cancel := context.WithCancel(ctx)
	sum, err = eng.Summarize(stopCtx, summary.SummaryRequest{DocID: res.DocID}, func(ev summary.SummaryEvent) error {
		if ev.Token != "" {
			cancel()
		}
		return nil
	})
	cancel()
	if !errors.Is(err, context.Canceled) || sum == nil || !sum.Stopped || sum.MapCalls != 1 {
		t.Fatalf("stopped at the first token: %+v %v", sum, err)
	}

	// No chat model: key sentences of one section, and of a selection on a page.
	plain := testengine.Open(t, engine.Config{})
	res, _ = plain.Intake().IngestFile(ctx, summaryDoc(t), nil)
	sec, err := plain.Summarize(ctx, summary.SummaryRequest{DocID: res.DocID, Section: "Photosynthesis"}, nil)
	if err != nil || sec.Scope != "section" || len(sec.Sections) != 1 {
		t.Fatalf("section summary: %+v %v", sec, err)
	}
	for _, p := range sec.Passages {
		if p.Section != "Photosynthesis" {
			t.Errorf("a passage of %q in the section's summary", p.Section)
		}
	}
	if !strings.Contains(sec.Sections[0].Text, "photosynthesis") || len(markerRE.FindAllString(sec.Sections[0].Text, -1)) == 0 {
		t.Errorf("section summary: %s", sec.Sections[0].Text)
	}
	sel, err := plain.Summarize(ctx, summary.SummaryRequest{DocID: res.DocID, Selection: &summary.Selection{Page: 2, PageEnd: 2,
		Text: "Paragraph 3 of organelles goes on with examples from textbooks and laboratory notes, observed under the microscope in class.\n\n" +
			"The mitochondrion releases energy from glucose by respiration, while ribosomes assemble proteins from amino acids. Paragraph 4 of organelles"}}, nil)
	if err != nil || sel.Scope != "selection" || len(sel.Passages) == 0 || len(sel.Passages) >= len(sum.Passages) {
		t.Fatalf("selection summary: %+v of %d passages, %v", sel, len(sum.Passages), err)
	}
	for _, p := range sel.Passages {
		if !strings.Contains(p.Text, "Paragraph 3 of organelles") && !strings.Contains(p.Text, "Paragraph 4 of organelles") {
			t.Errorf("a passage without the selection: %.80q", p.Text)
		}
	}
	if s, err := plain.Asking().Session(ctx, sel.SessionID); err != nil || len(s.Messages) != 1 || !strings.Contains(s.Messages[0].Question, "the selection on p. 2") {
		t.Errorf("the selection's summary is not saved as asked: %v", err)
	}
}
