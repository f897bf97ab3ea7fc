package app

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testengine"
	"github.com/carrel-app/carrel/internal/testollama"
)

type recorder struct {
	mu  sync.Mutex
	evs []PullEvent
	st  int
}

func (r *recorder) Emit(name Event, data any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch name {
	case EventModelPull:
		r.evs = append(r.evs, data.(PullEvent))
	case EventStatusChanged:
		r.st++
	}
}

func (r *recorder) pullEvents() []PullEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.evs)
}

// verifies the models bridge with real Ollama servers: list, pull from a local registry
// with model:pull progress, the new model listed, switching models saved in config.json.
func TestModelsBridge(t *testing.T) {
	src := testollama.Start(t)
	regURL, closeReg := testollama.ServeRegistry(src.ModelsDir, src.ChatModel)
	defer closeReg()
	dst := testollama.StartEmpty(t)

	dir := t.TempDir()
	eng := testengine.Open(t, engine.Config{Dir: dir, OllamaHost: dst.Host})
	rec := &recorder{}
	a := New(eng, rec)
	a.start(context.Background())
	defer a.stop()

	ms, err := a.ListModels()
	if err != nil || !ms.Reachable || len(ms.Models) != 0 || len(ms.Suggested) == 0 || ms.ChatModel != engine.DefaultChatModel {
		t.Fatalf("ListModels before: %+v %v", ms, err)
	}

	name := testollama.PullName(regURL, src.ChatModel)
	id, err := a.PullModel(name, true)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	var evs []PullEvent
	for {
		evs = rec.pullEvents()
		if len(evs) > 0 && evs[len(evs)-1].Done || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	last := evs[len(evs)-1]
	if !last.Done || last.Error != "" || last.Status != "success" || last.PullID != id || last.Model != name {
		t.Fatalf("last event %+v", last)
	}
	var layer bool
	for _, e := range evs {
		if e.Digest != "" && e.Total > 100_000 {
			layer = true
		}
	}
	if !layer || evs[0].Status != "pulling manifest" {
		t.Errorf("progress events: %+v", evs)
	}
	ms, _ = a.ListModels()
	if len(ms.Models) != 1 || ms.Models[0].Name != name {
		t.Fatalf("after pull: %+v", ms.Models)
	}

	st, err := a.SetModels(name, "")
	if err != nil || st.ChatModel != name || st.Mode != engine.ModeLexical {
		t.Fatalf("SetModels: %+v %v", st, err)
	}
	if cfg, _ := engine.LoadConfig(dir); cfg.ChatModel != name || cfg.EmbedModel != "" {
		t.Errorf("config.json: %+v", cfg)
	}

	if _, err := a.PullModel(" ", false); err == nil {
		t.Error("empty name accepted")
	}
	if err := a.CancelPull("nope"); err == nil {
		t.Error("cancel of an unknown pull accepted")
	}
	// A pull from a registry that is not there ends with an error event.
	id, _ = a.PullModel(testollama.PullName(regURL, "missing"), true)
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		evs = rec.pullEvents()
		if e := evs[len(evs)-1]; e.PullID == id && e.Done {
			if e.Error == "" || e.Status != "failed" {
				t.Errorf("missing model: %+v", e)
			}
			return
		}
	}
	t.Error("no end event for the missing model")
}
