package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/workspace"
)

// Models is what the settings panel shows.
type Models = workspace.Models

// ListModels lists the installed models. An unreachable Ollama is described, not an error.
func (a *App) ListModels() (Models, error) {
	defer a.ws.Enter()()
	return a.ws.Models()
}

// StartOllama starts the installed Ollama when it is not running, then lists the models.
func (a *App) StartOllama() (Models, error) {
	defer a.ws.Enter()()
	started, err := a.ws.StartOllama()
	if err != nil {
		return Models{}, err
	}
	if started {
		a.emitStatus()
	}
	return a.ws.Models()
}

// PullEvent is one model:pull event.
type PullEvent struct {
	PullID    string `json:"pull_id"`
	Model     string `json:"model"`
	Status    string `json:"status"`
	Digest    string `json:"digest"`
	Total     int64  `json:"total"`
	Completed int64  `json:"completed"`
	// Done is true on the last event of a pull; Error is then set if it failed.
	Done  bool   `json:"done"`
	Error string `json:"error"`
}

// pulls holds the cancel functions of running pulls.
type pulls struct {
	mu sync.Mutex
	m  map[string]context.CancelFunc
}

// PullModel starts downloading a model into Ollama and returns its id at once; progress
// arrives as model:pull events. insecure allows a registry over plain HTTP.
func (a *App) PullModel(name string, insecure bool) (string, error) {
	defer a.ws.Enter()()
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " \t\n") {
		return "", errors.New("name a model to download, such as llama3.2:3b")
	}
	id := newID()
	ctx, cancel := context.WithCancel(a.ctx())
	a.pulls.mu.Lock()
	if a.pulls.m == nil {
		a.pulls.m = map[string]context.CancelFunc{}
	}
	a.pulls.m[id] = cancel
	a.pulls.mu.Unlock()
	a.ws.Track(func() {
		defer func() {
			a.pulls.mu.Lock()
			delete(a.pulls.m, id)
			a.pulls.mu.Unlock()
			cancel()
		}()
		// Ollama reports many times a second per layer; the UI needs a few.
		var last PullEvent
		var lastAt time.Time
		err := a.eng().Ollama().Pull(ctx, name, insecure, func(p llm.PullProgress) error {
			ev := PullEvent{PullID: id, Model: name, Status: p.Status, Digest: p.Digest, Total: p.Total, Completed: p.Completed}
			if ev.Status == last.Status && ev.Completed != ev.Total && time.Since(lastAt) < 100*time.Millisecond {
				return nil
			}
			last, lastAt = ev, time.Now()
			a.emit.Emit(EventModelPull, ev)
			return nil
		})
		end := PullEvent{PullID: id, Model: name, Status: "success", Done: true}
		if err != nil {
			end.Status, end.Error = "failed", err.Error()
			if errors.Is(err, context.Canceled) {
				end.Status, end.Error = pullCancelled, pullCancelled
			}
		}
		a.eng().RefreshStatus()
		a.emit.Emit(EventModelPull, end)
		a.emitStatus()
		if err == nil {
			// The configured embedding model may just have arrived.
			if _, err := a.eng().Intake().EmbedPending(a.ctx()); err != nil {
				slog.Warn("embedding pending chunks", "err", err)
			}
		}
	})
	return id, nil
}

// pullCancelled is the status and error of the last model:pull event of a download the
// user cancelled (CancelPull); the frontend tells a cancelled download from a failed one by it.
const pullCancelled = "cancelled"

// CancelPull stops a running download; its last model:pull event says pullCancelled.
func (a *App) CancelPull(pullID string) error {
	defer a.ws.Enter()()
	a.pulls.mu.Lock()
	cancel, ok := a.pulls.m[pullID]
	a.pulls.mu.Unlock()
	if !ok {
		return fmt.Errorf("no running download %q", pullID)
	}
	cancel()
	return nil
}

// SetModels switches the chat and embedding models ("" keeps one), saves them in the
// library's config.json and returns the new status (also sent as status:changed). A new
// embedding model re-embeds the library in the background.
func (a *App) SetModels(chatModel, embedModel string) (engine.Status, error) {
	defer a.ws.Enter()()
	embedChanged, err := a.eng().SetModels(a.ctx(), chatModel, embedModel)
	if err != nil {
		return engine.Status{}, err
	}
	st := a.ws.Status()
	a.emit.Emit(EventStatusChanged, st)
	if embedChanged {
		// In the workspace's background work, which a library switch waits for.
		a.ws.EmbedPending("embedding with the new model")
	}
	return st, nil
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
