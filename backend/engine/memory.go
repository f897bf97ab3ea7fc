package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/memory"
)

// MemoryEnabled reports whether Carrel learns about the user and tells the model (on
// unless turned off).
func (e *Engine) MemoryEnabled(ctx context.Context) bool {
	v, err := e.lib.Pref(ctx, prefMemory)
	return err == nil && v != "off"
}

// SetMemoryEnabled turns long-term memory on or off. Off, nothing is learnt and no memory
// enters the prompt; the memories kept stay until deleted.
func (e *Engine) SetMemoryEnabled(ctx context.Context, on bool) error {
	v := "on"
	if !on {
		v = "off"
	}
	return e.lib.SetPref(ctx, prefMemory, v)
}

// Memories lists what Carrel remembers about the user.
func (e *Engine) Memories(ctx context.Context) ([]library.Memory, error) { return e.lib.Memories(ctx) }

// AddMemory stores a fact the user wrote themselves (in settings or the CLI), phrased
// about the user ("prefers examples in Python").
func (e *Engine) AddMemory(ctx context.Context, kind, text string) (library.Memory, error) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return library.Memory{}, errors.New("write what Carrel should remember, e.g. \"prefers short answers\"")
	}
	if len(text) > 500 {
		return library.Memory{}, fmt.Errorf("a memory is a short fact (at most 500 characters; this one has %d)", len(text))
	}
	switch kind {
	case "":
		kind = memory.Context
	case memory.Preference, memory.Context, memory.Goal:
	default:
		return library.Memory{}, fmt.Errorf("a memory's kind is preference, context or goal, not %q", kind)
	}
	have, err := e.lib.Memories(ctx)
	if err != nil {
		return library.Memory{}, err
	}
	for _, h := range have {
		if memory.Key(h.Text) == memory.Key(text) {
			return h, nil
		}
	}
	m := library.Memory{Kind: kind, Text: text}
	return m, e.lib.AddMemory(ctx, &m)
}

// EditMemory changes a memory's text.
func (e *Engine) EditMemory(ctx context.Context, id int64, text string) (library.Memory, error) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return library.Memory{}, errors.New("a memory cannot be empty: delete it instead")
	}
	if err := e.lib.UpdateMemory(ctx, id, text, ""); err != nil {
		return library.Memory{}, err
	}
	return e.lib.Memory(ctx, id)
}

// DeleteMemory forgets a memory.
func (e *Engine) DeleteMemory(ctx context.Context, id int64) error {
	return e.lib.DeleteMemory(ctx, id)
}

// MemoryModelEnabled reports whether the local chat model may propose memories too (off
// unless turned on; its proposals are validated against the user's words).
func (e *Engine) MemoryModelEnabled(ctx context.Context) bool {
	v, err := e.lib.Pref(ctx, prefMemoryModel)
	return err == nil && v == "on"
}

// SetMemoryModelEnabled lets the local chat model propose memories (or not).
func (e *Engine) SetMemoryModelEnabled(ctx context.Context, on bool) error {
	v := "off"
	if on {
		v = "on"
	}
	return e.lib.SetPref(ctx, prefMemoryModel, v)
}

const memoryPrompt = `You read one message a user wrote to a study assistant and list the lasting facts the user states about themselves: preferences about answers, their role, field, course or level, and their goals. Only what the user says of themselves in this message; nothing about documents or other people, nothing guessed. Write one per line as "preference: prefers ...", "context: is ..." or "goal: wants to ...". If there is none, reply "none".`

// modelCandidates asks the local model for facts in the user's message and keeps those
// memory.Validate finds in the user's own words.
func (e *Engine) modelCandidates(ctx context.Context, m answerModel, userMessage string) []memory.Candidate {
	zero := 0.0
	var out strings.Builder
	_, err := m.provider.Chat(ctx, llm.ChatRequest{Model: m.name, NumCtx: m.numCtx, KeepAlive: e.keepAlive(), MaxTokens: 128, Temperature: &zero,
		Messages: []llm.Message{{Role: "system", Content: memoryPrompt}, {Role: "user", Content: userMessage}}},
		func(d llm.Delta) error {
			out.WriteString(d.Text)
			return nil
		})
	if err != nil && out.Len() == 0 {
		slog.Warn("memory: the model's extraction failed", "err", err)
		return nil
	}
	return parseModelFacts(out.String(), userMessage)
}

// parseModelFacts reads "kind: fact" lines and keeps the facts validated against the
// user's message.
func parseModelFacts(reply, userMessage string) []memory.Candidate {
	var cands []memory.Candidate
	for _, line := range strings.Split(reply, "\n") {
		kind, fact, ok := strings.Cut(strings.TrimSpace(strings.TrimLeft(line, "-*• ")), ":")
		if !ok {
			continue
		}
		if c, ok := memory.Validate(userMessage, strings.ToLower(strings.TrimSpace(kind)), fact); ok {
			cands = append(cands, c)
		}
	}
	return cands
}

// aboutUser is the memories that enter the prompt (none when memory is off).
func (e *Engine) aboutUser(ctx context.Context) []string {
	if !e.MemoryEnabled(ctx) {
		return nil
	}
	ms, err := e.lib.Memories(ctx)
	if err != nil {
		slog.Warn("reading memories", "err", err)
		return nil
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}

// learn stores what a user's message says about the user, after its answer was produced.
// Only the user's own message is read: never the documents, never the answer. The fixed
// rules (memory.Extract) always run; with model extraction on and a local model
// answering, the model may add candidates, each kept only if memory.Validate finds it in
// the user's own words.
func (e *Engine) learn(ctx context.Context, m answerModel, userMessage, sessionID string) []library.Memory {
	ctx = context.WithoutCancel(ctx)
	if !e.MemoryEnabled(ctx) {
		return nil
	}
	cands := memory.Extract(userMessage)
	if m.provider != nil && m.provider == e.ollama && e.MemoryModelEnabled(ctx) {
		cands = append(cands, e.modelCandidates(ctx, m, userMessage)...)
	}
	if len(cands) == 0 {
		return nil
	}
	have, err := e.lib.Memories(ctx)
	if err != nil {
		slog.Warn("reading memories", "err", err)
		return nil
	}
	ex := make([]memory.Existing, len(have))
	for i, h := range have {
		ex[i] = memory.Existing{ID: h.ID, Kind: h.Kind, Slot: h.Slot, Text: h.Text}
	}
	var out []library.Memory
	for _, a := range memory.Plan(ex, cands) {
		if a.Update != 0 {
			if err := e.lib.UpdateMemory(ctx, a.Update, a.Text, a.Source); err != nil {
				slog.Warn("updating a memory", "err", err)
				continue
			}
			if m, err := e.lib.Memory(ctx, a.Update); err == nil {
				out = append(out, m)
			}
			continue
		}
		m := library.Memory{Kind: a.Kind, Slot: a.Slot, Text: a.Text, Source: a.Source, SessionID: sessionID}
		if err := e.lib.AddMemory(ctx, &m); err != nil {
			slog.Warn("saving a memory", "err", err)
			continue
		}
		out = append(out, m)
	}
	return out
}
