package llm

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/provider"
	"github.com/ollama/ollama/api"
)

// Model is a model installed in Ollama, as the settings panel lists it.
type Model struct {
	// Name as Ollama names it ("llama3.2:3b", "nomic-embed-text:latest").
	Name string `json:"name"`
	// Size is the bytes on disk.
	Size int64 `json:"size"`
	// Family is the architecture ("llama", "nomic-bert", ...).
	Family string `json:"family"`
	// ParameterSize and Quantization are Ollama's words ("3.2B", "Q4_K_M").
	ParameterSize string    `json:"parameter_size"`
	Quantization  string    `json:"quantization"`
	ModifiedAt    time.Time `json:"modified_at"`
	// Embedding is true for a model that only embeds: chat pickers leave it out, and
	// embedding pickers offer only these (and the model in use).
	Embedding bool `json:"embedding"`
	// Capabilities are what Ollama's /api/show says the model can do ("completion",
	// "embedding", "tools", "vision", "insert"); empty when it did not say.
	Capabilities []string `json:"capabilities"`
}

// Models lists the installed models, by name.
func (o *Ollama) Models(ctx context.Context) ([]Model, error) {
	list, err := o.client.List(ctx)
	if err != nil {
		return nil, o.wrapErr(ctx, err, "")
	}
	out := make([]Model, 0, len(list.Models))
	for _, m := range list.Models {
		fams := append([]string{m.Details.Family}, m.Details.Families...)
		md := Model{
			Name: m.Name, Size: m.Size, Family: m.Details.Family,
			ParameterSize: m.Details.ParameterSize, Quantization: m.Details.QuantizationLevel,
			ModifiedAt: m.ModifiedAt, Capabilities: []string{},
		}
		show, err := o.client.Show(ctx, &api.ShowRequest{Model: m.Name})
		if err != nil && ctx.Err() != nil {
			return nil, o.wrapErr(ctx, err, m.Name)
		}
		md.Embedding = embeddingOnly(show, fams)
		if show != nil {
			for _, c := range show.Capabilities {
				md.Capabilities = append(md.Capabilities, string(c))
			}
		}
		out = append(out, md)
	}
	slices.SortFunc(out, func(a, b Model) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// embeddingOnly tells an embedding-only model from one that can chat, by what Ollama
// knows of its weights. Ollama (v0.6 on) lists "embedding" instead of "completion" in
// /api/show's capabilities when the GGUF has an ARCH.pooling_type key, as embedding
// models (nomic-embed-text, all-minilm, mxbai-embed-large) have, and refuses to chat with
// them. Older servers give no capabilities: the key itself in model_info, else a BERT
// family (bert, nomic-bert), says the same. A model /api/show failed on is judged by
// its family alone.
func embeddingOnly(show *api.ShowResponse, families []string) bool {
	if show != nil {
		if len(show.Capabilities) > 0 {
			caps := make([]string, len(show.Capabilities))
			for i, c := range show.Capabilities {
				caps[i] = string(c)
			}
			return slices.Contains(caps, "embedding") && !slices.Contains(caps, "completion")
		}
		for k := range show.ModelInfo {
			if strings.HasSuffix(k, ".pooling_type") {
				return true
			}
		}
	}
	return slices.ContainsFunc(families, func(f string) bool { return strings.Contains(f, "bert") })
}

// ModelRole is what a model is for.
type ModelRole string

// Model roles.
const (
	RoleChat  ModelRole = "chat"
	RoleEmbed ModelRole = "embed"
)

// Suggestion is a model Carrel recommends for a machine without a GPU.
type Suggestion struct {
	Name string    `json:"name"`
	Role ModelRole `json:"role"`
	// Download is the approximate download size, for people on slow links.
	Download string `json:"download"`
	// Note says, in a few words, when to choose it.
	Note string `json:"note"`
	// Default marks Carrel's default for the role.
	Default bool `json:"default"`
}

// Suggested are small models that answer and embed well enough on a laptop CPU.
var Suggested = []Suggestion{
	{Name: "llama3.2:3b", Role: "chat", Download: "2.0 GB", Note: "Good answers on a laptop CPU; 8 GB RAM", Default: true},
	{Name: "qwen2.5:1.5b", Role: "chat", Download: "1.0 GB", Note: "Faster on older machines"},
	{Name: "gemma3:1b", Role: "chat", Download: "0.8 GB", Note: "Smallest; short answers"},
	{Name: "all-minilm", Role: "embed", Download: "46 MB", Note: "Meaning-based search; embeds a book in about a minute on a laptop CPU", Default: true},
	{Name: "nomic-embed-text", Role: "embed", Download: "0.3 GB", Note: "Better vectors, about ten times the work per passage: for a GPU"},
}

// FindBinary returns the path of an installed ollama program, or "" if there is none.
func FindBinary() string {
	if p, err := exec.LookPath("ollama"); err == nil {
		return p
	}
	var candidates []string
	switch runtime.GOOS {
	case "darwin":
		candidates = []string{"/Applications/Ollama.app/Contents/Resources/ollama", "/usr/local/bin/ollama", "/opt/homebrew/bin/ollama"}
	case "windows":
		if d := os.Getenv("LOCALAPPDATA"); d != "" {
			candidates = []string{filepath.Join(d, "Programs", "Ollama", "ollama.exe")}
		}
	default:
		candidates = []string{"/usr/local/bin/ollama", "/usr/bin/ollama"}
	}
	for _, p := range candidates {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p
		}
	}
	return ""
}

// ErrNoBinary means Ollama is not installed (no ollama program found).
var ErrNoBinary = errors.New("ollama is not installed")

// StartServer runs `bin serve` listening where this client looks (its host), in the
// background, and waits up to wait for it to answer. The server keeps running after
// Carrel quits, as it does when Ollama's own app starts it. The process is returned
// so that a caller that owns it (a test) can stop it.
func (o *Ollama) StartServer(ctx context.Context, bin string, wait time.Duration) (*os.Process, error) {
	if bin == "" {
		return nil, ErrNoBinary
	}
	u, err := url.Parse(o.host)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(withoutKeys(os.Environ()), "OLLAMA_HOST="+u.Host)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s serve: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(wait)
	for {
		if st := o.Status(ctx); st.Reachable {
			return cmd.Process, nil
		}
		select {
		case err := <-exited:
			return nil, fmt.Errorf("%s serve stopped at once (%v): is another program using %s?", bin, err, u.Host)
		case <-ctx.Done():
			return cmd.Process, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return cmd.Process, fmt.Errorf("started %s serve, but it did not answer on %s within %s", bin, u.Host, wait)
		}
	}
}

// withoutKeys is env without the cloud providers' API keys: Ollama has no use for them,
// and a child process's environment can be read by other programs of the user (ps e,
// /proc/PID/environ) for as long as the server runs, which is longer than Carrel.
func withoutKeys(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if k != KeyEnv(provider.OpenAI) && k != KeyEnv(provider.Anthropic) {
			out = append(out, kv)
		}
	}
	return out
}
