package workspace

import (
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
)

// Status reports what Carrel can do now with the library in force (models, mode, counts).
func (w *Workspace) Status() engine.Status { return w.eng.Status(w.ctx) }

// Meter returns the money spent in total and the budget.
func (w *Workspace) Meter() (engine.Meter, error) { return w.eng.Meter(w.ctx) }

// Models is what the settings panel shows: the Ollama server, its models and Carrel's
// suggestions for a machine without a GPU.
type Models struct {
	Host      string `json:"host"`
	Reachable bool   `json:"reachable"`
	Version   string `json:"version"`
	// Installed is true when an ollama program was found on this machine (it can be
	// started with StartOllama when it is not running).
	Installed  bool             `json:"installed"`
	Error      string           `json:"error"`
	Models     []llm.Model      `json:"models"`
	Suggested  []llm.Suggestion `json:"suggested"`
	ChatModel  string           `json:"chat_model"`
	EmbedModel string           `json:"embed_model"`
}

// Models lists the installed models. An unreachable Ollama is described, not an error.
func (w *Workspace) Models() (Models, error) {
	o := w.eng.Ollama()
	cfg := w.eng.Config()
	out := Models{Host: o.Host(), Models: []llm.Model{}, Suggested: llm.Suggested,
		ChatModel: cfg.ChatModel, EmbedModel: cfg.EmbedModel}
	st := o.Status(w.ctx)
	out.Reachable, out.Version, out.Error = st.Reachable, st.Version, st.Err
	out.Installed = st.Reachable || llm.FindBinary() != ""
	if st.Reachable {
		ms, err := o.Models(w.ctx)
		if err != nil {
			out.Error = err.Error()
		} else {
			out.Models = ms
		}
	}
	return out, nil
}

// StartOllama starts the installed Ollama when it is not running and says whether it
// did (the status changed then).
func (w *Workspace) StartOllama() (started bool, err error) {
	o := w.eng.Ollama()
	if o.Status(w.ctx).Reachable {
		return false, nil
	}
	if _, err := o.StartServer(w.ctx, llm.FindBinary(), 15*time.Second); err != nil {
		return false, err
	}
	w.eng.RefreshStatus()
	return true, nil
}

// MemorySettings is what the settings' memory section shows.
type MemorySettings struct {
	Enabled  bool             `json:"enabled"`
	Memories []library.Memory `json:"memories"`
}

// Memory returns whether memory is on and every memory kept.
func (w *Workspace) Memory() (MemorySettings, error) {
	list, err := w.eng.Memory().List(w.ctx)
	if err != nil {
		return MemorySettings{}, err
	}
	return MemorySettings{Enabled: w.eng.Memory().Enabled(w.ctx), Memories: list}, nil
}
