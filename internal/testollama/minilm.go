package testollama

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/carrel-app/carrel/internal/testcache"
)

// MiniLMModel is a real retrieval-trained embedder, sentence-transformers'
// all-MiniLM-L6-v2 (Apache-2.0; 384 dimensions, mean pooling, trained on inputs of up
// to 256 word pieces, 512 positions), under the name Ollama's library gives it. Tests
// where meaning matters use it ([Server.CreateMiniLM]); plumbing tests keep the tiny
// random model.
const MiniLMModel = "all-minilm"

// The model's GGUF, as the Go module github.com/mutablelogic/go-llama v0.0.11 ships it
// in its testdata: the one source of real embedding weights reachable here (through the
// Go module proxy, with the ordinary Go client).
const (
	miniLMModule = "github.com/mutablelogic/go-llama@v0.0.11"
	miniLMFile   = "all-MiniLM-L6-v2-Q4_K_M.gguf"
	miniLMSize   = 20999104
	MiniLMSHA256 = "2ec4cee28a27a9c973d5f5230930d6ef6e52694bd2bc71be26a9bef5b1d755e6"
)

// miniLMModelfile imports it. No num_thread: an embedding of a batch of passages is real
// work, and llama.cpp's default (the physical cores) is what users run.
const miniLMModelfile = "FROM %s\n"

// MiniLMPath returns the path of the MiniLM GGUF in the test cache
// (carrel-test/models), fetching it first if it is missing: `go mod download -json` of
// the module that ships it, run in an empty folder outside any module, then a copy of
// the file out of the module folder (read-only, and shared with the Go module cache),
// checked against its size and SHA-256.
func MiniLMPath() (string, error) {
	dir := testcache.Dir("models")
	path := filepath.Join(dir, miniLMFile)
	if isFile(path) {
		return path, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lockFile(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", fmt.Errorf("lock %s: %w", dir, err)
	}
	defer unlock()
	if isFile(path) { // fetched by another process while we waited
		return path, nil
	}
	empty, err := os.MkdirTemp(dir, "fetch-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(empty)
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if !isFile(goCmd) {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, "mod", "download", "-json", miniLMModule)
	cmd.Dir = empty
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w\n%s", miniLMModule, err, out)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", miniLMModule, err)
	}
	if mod.Error != "" || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", miniLMModule, mod.Error)
	}
	tmp := filepath.Join(empty, miniLMFile)
	if err := copyChecked(filepath.Join(mod.Dir, "testdata", miniLMFile), tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", err
	}
	return path, nil
}

// copyChecked copies src to dst and fails unless the copy has MiniLM's size and digest.
func copyChecked(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("open %s: %w", src, err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("copy %s: %w", src, err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); n != miniLMSize || sum != MiniLMSHA256 {
		return fmt.Errorf("%s: %d bytes, sha256 %s; want %d bytes, sha256 %s", src, n, sum, miniLMSize, MiniLMSHA256)
	}
	return nil
}

// CreateMiniLM creates [MiniLMModel] on s (once per server, fetching the weights first if
// needed) and returns its name.
func (s *Server) CreateMiniLM(ctx context.Context) (string, error) {
	return MiniLMModel, s.createOnce(ctx, MiniLMModel, func() (string, error) {
		path, err := MiniLMPath()
		if err != nil {
			return "", err
		}
		return fmt.Sprintf(miniLMModelfile, path), nil
	})
}

// StartMiniLMServer starts an empty server ([StartEmptyServer]) and creates [MiniLMModel]
// on it: the embedder the benchmarks measure with. The caller closes the server; it is
// closed here when the model cannot be created.
func StartMiniLMServer(ctx context.Context, dir string, logw io.Writer) (*Server, error) {
	srv, err := StartEmptyServer(ctx, dir, logw)
	if err != nil {
		return nil, fmt.Errorf("start test ollama: %w", err)
	}
	if _, err := srv.CreateMiniLM(ctx); err != nil {
		srv.Close()
		return nil, fmt.Errorf("create %s: %w", MiniLMModel, err)
	}
	return srv, nil
}

// MiniLM creates [MiniLMModel] on s and returns its name; it fails tb if it cannot.
func MiniLM(tb testing.TB, s *Server) string {
	tb.Helper()
	return mustCreate(tb, 5*time.Minute, MiniLMModel, s.CreateMiniLM)
}

// mustCreate creates a model with create within timeout and returns its name; it fails
// tb if it cannot.
func mustCreate(tb testing.TB, timeout time.Duration, model string, create func(context.Context) (string, error)) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	name, err := create(ctx)
	if err != nil {
		tb.Fatalf("create %s: %v", model, err)
	}
	return name
}
