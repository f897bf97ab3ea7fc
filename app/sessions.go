package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
)

// track registers a cancellable job (an answer, a summary) under a new id with kind as
// its prefix; done forgets it.
func (a *App) track(kind string) (id string, ctx context.Context, done func()) {
	var b [8]byte
	rand.Read(b[:])
	id = kind + ":" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithCancel(a.ctx())
	a.mu.Lock()
	a.asks[id] = cancel
	a.mu.Unlock()
	return id, ctx, func() {
		a.mu.Lock()
		delete(a.asks, id)
		a.mu.Unlock()
		cancel()
	}
}

// startAsk runs one question in a goroutine, streaming its events, and returns its id.
func (a *App) startAsk(question string, opt asking.Options) (string, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return "", errors.New("ask a question first")
	}
	var b [8]byte
	rand.Read(b[:])
	id := hex.EncodeToString(b[:])
	ctx, cancel := context.WithCancel(a.ctx())
	a.mu.Lock()
	a.asks[id] = cancel
	a.mu.Unlock()
	a.ws.Track(func() {
		defer func() {
			a.mu.Lock()
			delete(a.asks, id)
			a.mu.Unlock()
			cancel()
		}()
		opt.OnLearn = func([]library.Memory) { a.memoryChanged() }
		ans, err := a.eng().Asking().Ask(ctx, question, opt, func(ev asking.Event) error {
			if ev.IsStart {
				a.emit.Emit(EventAnswerStart, AnswerStart{AskID: id, Question: question, Citations: citations(ev.Start),
					SessionID: ev.SessionID})
			} else {
				a.emit.Emit(EventAnswerToken, AnswerToken{AskID: id, Text: ev.Token})
			}
			return nil
		})
		if ans != nil && ans.SessionID != "" {
			if s, serr := a.eng().Library().Session(a.ctx(), ans.SessionID); serr == nil {
				a.emit.Emit(EventSessionChanged, s)
			}
			if ans.Usage.CostUSD > 0 {
				if m, merr := a.ws.Meter(); merr == nil {
					a.emit.Emit(EventMeterChanged, m)
				}
			}
		}
		if err != nil {
			payload := AnswerError{AskID: id, Message: err.Error()}
			if errors.Is(err, context.Canceled) {
				payload.Message = stoppedMessage
			}
			if errors.Is(err, llm.ErrModelNotFound) {
				// The UI offers to download it (PullModel).
				payload.Pull = a.eng().Config().ChatModel
			}
			if ans != nil {
				payload.Partial = ans.Text
				payload.AnswerSaved = &AnswerSaved{SessionID: ans.SessionID, MessageID: ans.MessageID,
					Stopped: ans.Stopped, Citations: citations(ans.Citations)}
			}
			a.emit.Emit(EventAnswerError, payload)
			return
		}
		a.emit.Emit(EventAnswerDone, AnswerDone{AskID: id, Answer: ans.Text, Citations: citations(ans.Citations),
			Usage: ans.Usage, Model: ans.Model, Mode: ans.Mode, Note: ans.Note, Provider: ans.Provider,
			Truncated: ans.Truncated, Question: ans.Question, Standalone: ans.Standalone,
			SessionID: ans.SessionID, MessageID: ans.MessageID, Warning: ans.Warning, Claims: ans.Claims,
			Cached: ans.Cached != nil, CachedFrom: ans.Cached})
	})
	return id, nil
}

// AskInSession asks a question in a study session (sessionID "" starts a new one) and
// returns the ask's id at once; events as for Ask. docIDs null keeps the session's scope;
// a list (empty: the whole library) becomes its scope. overrideBudget answers with a cloud
// model even past the budget cap.
func (a *App) AskInSession(sessionID, question string, docIDs []string, overrideBudget bool) (string, error) {
	defer a.ws.Enter()()
	return a.startAsk(question, asking.Options{SessionID: sessionID, DocIDs: docIDs, OverrideBudget: overrideBudget})
}

// AskFresh asks again in a study session without the answer cache (sessionID "" starts
// a new one): the model answers, and its answer replaces the cached one. Events as for Ask.
func (a *App) AskFresh(sessionID, question string, docIDs []string, overrideBudget bool) (string, error) {
	defer a.ws.Enter()()
	return a.startAsk(question, asking.Options{SessionID: sessionID, DocIDs: docIDs, OverrideBudget: overrideBudget, Fresh: true})
}

// ListSessions lists the study sessions, most recently used first.
func (a *App) ListSessions() ([]library.Session, error) {
	defer a.ws.Enter()()
	return a.eng().Asking().Sessions(a.ctx())
}

// GetSession returns a session with every exchange and its citations, to resume it.
func (a *App) GetSession(sessionID string) (asking.SessionDetail, error) {
	defer a.ws.Enter()()
	return a.eng().Asking().Session(a.ctx(), sessionID)
}

// RenameSession renames a session.
func (a *App) RenameSession(sessionID, title string) error {
	defer a.ws.Enter()()
	if err := a.eng().Asking().Rename(a.ctx(), sessionID, title); err != nil {
		return err
	}
	if s, err := a.eng().Library().Session(a.ctx(), sessionID); err == nil {
		a.emit.Emit(EventSessionChanged, s)
	}
	return nil
}

// DeleteSession deletes a session and its history (its spending stays in the total).
func (a *App) DeleteSession(sessionID string) error {
	defer a.ws.Enter()()
	if err := a.eng().Asking().Delete(a.ctx(), sessionID); err != nil {
		return err
	}
	a.emit.Emit(EventSessionChanged, SessionDeleted{ID: sessionID, Deleted: true})
	return nil
}

// ExportSession returns a session as Markdown with numbered references.
func (a *App) ExportSession(sessionID string) (string, error) {
	defer a.ws.Enter()()
	return a.eng().Asking().Export(a.ctx(), sessionID)
}

// Meter is what the header's cost meter shows.
type Meter = engine.Meter

// Meter returns the money spent in total and the budget.
func (a *App) Meter() (Meter, error) {
	defer a.ws.Enter()()
	return a.ws.Meter()
}

// CloudSettings returns the answering settings: provider, cloud models, budget, prices
// (built-in, dated, and overrides), keep-alive, and where each provider's key comes from
// (never the key itself).
func (a *App) CloudSettings() engine.CloudSettings {
	defer a.ws.Enter()()
	return a.eng().CloudSettings()
}

// SetCloudSettings saves new answering settings (in the library's config.json; keys are
// set apart with SetAPIKey) and returns them as now in force.
func (a *App) SetCloudSettings(s engine.CloudSettings) (engine.CloudSettings, error) {
	defer a.ws.Enter()()
	if err := a.eng().SetCloudSettings(s); err != nil {
		return engine.CloudSettings{}, err
	}
	a.emitStatus()
	if m, err := a.ws.Meter(); err == nil {
		a.emit.Emit(EventMeterChanged, m)
	}
	return a.eng().CloudSettings(), nil
}

// SetAPIKey stores a cloud provider's API key (OpenAI's or Anthropic's) in the OS keyring.
// Where the machine has no keyring service the error says which environment variable to
// set instead.
func (a *App) SetAPIKey(provider provider.Name, key string) (engine.CloudSettings, error) {
	defer a.ws.Enter()()
	if err := llm.SetAPIKey(provider, key); err != nil {
		return engine.CloudSettings{}, err
	}
	a.eng().RefreshStatus()
	a.emitStatus()
	return a.eng().CloudSettings(), nil
}

// DeleteAPIKey removes a provider's API key from the OS keyring.
func (a *App) DeleteAPIKey(provider provider.Name) (engine.CloudSettings, error) {
	defer a.ws.Enter()()
	if err := llm.DeleteAPIKey(provider); err != nil {
		return engine.CloudSettings{}, err
	}
	a.eng().RefreshStatus()
	a.emitStatus()
	return a.eng().CloudSettings(), nil
}

// Stats sums every answer's metrics (questions, cache hits, latency, tokens, cost), in
// total and per day, for the stats view.
func (a *App) Stats() (library.Stats, error) {
	defer a.ws.Enter()()
	return a.eng().Asking().Stats(a.ctx())
}
