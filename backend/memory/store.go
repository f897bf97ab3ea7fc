package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
)

// Store is a library's long-term memory: the facts kept about the user, whether memory
// is on, and learning from the user's messages.
type Store struct {
	lib *library.Library
}

// NewStore keeps memories in lib.
func NewStore(lib *library.Library) *Store { return &Store{lib: lib} }

// Prefs keys.
const (
	prefMemory      = "memory"       // "off" turns memory off
	prefMemoryModel = "memory_model" // "on" lets the local model propose memories
)

// Enabled reports whether Carrel learns about the user and tells the model (on unless
// turned off).
func (s *Store) Enabled(ctx context.Context) bool {
	v, err := s.lib.Pref(ctx, prefMemory)
	return err == nil && v != "off"
}

// SetEnabled turns long-term memory on or off. Off, nothing is learnt and no memory
// enters the prompt; the memories kept stay until deleted.
func (s *Store) SetEnabled(ctx context.Context, on bool) error {
	v := "on"
	if !on {
		v = "off"
	}
	return s.lib.SetPref(ctx, prefMemory, v)
}

// ModelEnabled reports whether the local chat model may propose memories too (off unless
// turned on; its proposals are validated against the user's words).
func (s *Store) ModelEnabled(ctx context.Context) bool {
	v, err := s.lib.Pref(ctx, prefMemoryModel)
	return err == nil && v == "on"
}

// SetModelEnabled lets the local chat model propose memories (or not).
func (s *Store) SetModelEnabled(ctx context.Context, on bool) error {
	v := "off"
	if on {
		v = "on"
	}
	return s.lib.SetPref(ctx, prefMemoryModel, v)
}

// List lists what Carrel remembers about the user.
func (s *Store) List(ctx context.Context) ([]library.Memory, error) { return s.lib.Memories(ctx) }

// Add stores a fact the user wrote themselves (in settings or the CLI), phrased about the
// user ("prefers examples in Python").
func (s *Store) Add(ctx context.Context, kind library.MemoryKind, text string) (library.Memory, error) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return library.Memory{}, errors.New("write what Carrel should remember, e.g. \"prefers short answers\"")
	}
	if len(text) > 500 {
		return library.Memory{}, fmt.Errorf("a memory is a short fact (at most 500 characters; this one has %d)", len(text))
	}
	switch kind {
	case "":
		kind = Context
	case Preference, Context, Goal:
	default:
		return library.Memory{}, fmt.Errorf("a memory's kind is preference, context or goal, not %q", kind)
	}
	have, err := s.lib.Memories(ctx)
	if err != nil {
		return library.Memory{}, err
	}
	for _, h := range have {
		if Key(h.Text) == Key(text) {
			return h, nil
		}
	}
	m := library.Memory{Kind: kind, Text: text}
	return m, s.lib.AddMemory(ctx, &m)
}

// Edit changes a memory's text.
func (s *Store) Edit(ctx context.Context, id int64, text string) (library.Memory, error) {
	text = strings.Join(strings.Fields(text), " ")
	if text == "" {
		return library.Memory{}, errors.New("a memory cannot be empty: delete it instead")
	}
	if err := s.lib.UpdateMemory(ctx, id, text, ""); err != nil {
		return library.Memory{}, err
	}
	return s.lib.Memory(ctx, id)
}

// Delete forgets a memory.
func (s *Store) Delete(ctx context.Context, id int64) error { return s.lib.DeleteMemory(ctx, id) }

// About is the memories that enter the prompt (none when memory is off).
func (s *Store) About(ctx context.Context) []string {
	if !s.Enabled(ctx) {
		return nil
	}
	ms, err := s.lib.Memories(ctx)
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

const modelPrompt = `You read one message a user wrote to a study assistant and list the lasting facts the user states about themselves: preferences about answers, their role, field, course or level, and their goals. Only what the user says of themselves in this message; nothing about documents or other people, nothing guessed. Write one per line as "preference: prefers ...", "context: is ..." or "goal: wants to ...". If there is none, reply "none".`

// modelCandidates asks the local model for facts in the user's message and keeps those
// Validate finds in the user's own words. req names the model, its window and keep-alive.
func modelCandidates(ctx context.Context, model llm.Provider, req llm.ChatRequest, userMessage string) []Candidate {
	zero := 0.0
	req.MaxTokens, req.Temperature = 128, &zero
	req.Messages = []llm.Message{{Role: llm.RoleSystem, Content: modelPrompt}, {Role: llm.RoleUser, Content: userMessage}}
	var out strings.Builder
	_, err := model.Chat(ctx, req, func(d llm.Delta) error {
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
func parseModelFacts(reply, userMessage string) []Candidate {
	var cands []Candidate
	for _, line := range strings.Split(reply, "\n") {
		kind, fact, ok := strings.Cut(strings.TrimSpace(strings.TrimLeft(line, "-*• ")), ":")
		if !ok {
			continue
		}
		if c, ok := Validate(userMessage, library.MemoryKind(strings.ToLower(strings.TrimSpace(kind))), fact); ok {
			cands = append(cands, c)
		}
	}
	return cands
}

// Learn stores what a user's message says about the user, after its answer was
// produced. Only the user's own message is read: never the documents, never the answer.
// The fixed rules (Extract) always run; with model extraction on and local (the local
// chat model, req naming it) not nil, the model may add candidates, each kept only if
// Validate finds it in the user's own words.
func (s *Store) Learn(ctx context.Context, userMessage, sessionID string, local llm.Provider, req llm.ChatRequest) []library.Memory {
	ctx = context.WithoutCancel(ctx)
	if !s.Enabled(ctx) {
		return nil
	}
	cands := Extract(userMessage)
	if local != nil && s.ModelEnabled(ctx) {
		cands = append(cands, modelCandidates(ctx, local, req, userMessage)...)
	}
	if len(cands) == 0 {
		return nil
	}
	have, err := s.lib.Memories(ctx)
	if err != nil {
		slog.Warn("reading memories", "err", err)
		return nil
	}
	ex := make([]Existing, len(have))
	for i, h := range have {
		ex[i] = Existing{ID: h.ID, Kind: h.Kind, Slot: h.Slot, Text: h.Text}
	}
	return s.apply(ctx, Plan(ex, cands), sessionID)
}

// apply carries out a plan: updates and new memories, returning those kept.
func (s *Store) apply(ctx context.Context, plan []Action, sessionID string) []library.Memory {
	var out []library.Memory
	for _, a := range plan {
		if a.Update != 0 {
			if err := s.lib.UpdateMemory(ctx, a.Update, a.Text, a.Source); err != nil {
				slog.Warn("updating a memory", "err", err)
				continue
			}
			if m, err := s.lib.Memory(ctx, a.Update); err == nil {
				out = append(out, m)
			}
			continue
		}
		m := library.Memory{Kind: a.Kind, Slot: a.Slot, Text: a.Text, Source: a.Source, SessionID: sessionID}
		if err := s.lib.AddMemory(ctx, &m); err != nil {
			slog.Warn("saving a memory", "err", err)
			continue
		}
		out = append(out, m)
	}
	return out
}
