package testollama

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/carrel-app/carrel/backend/envconfig"
)

// Version is the Ollama release the tests run. Later releases do not build
// from the Go module zip.
const Version = "v0.6.5"

// Binary returns the path of the Ollama binary: $CARREL_OLLAMA_BIN if set;
// else <user cache dir>/carrel/ollama-v0.6.5[-KEY]/ollama, building it there with
// `go install github.com/ollama/ollama@v0.6.5` first if it is missing. On
// linux/amd64 ggml is compiled for this machine's CPU and KEY names that CPU
// (see hostTarget; CARREL_OLLAMA_TUNE=off builds the plain, portable one). The
// build takes about 5 minutes on 2 cores; a file lock keeps test packages
// that run in parallel from building it twice.
func Binary() (string, error) {
	if p := envconfig.OllamaBin(); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("CARREL_OLLAMA_BIN: %w", err)
		}
		return p, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find cache dir: %w", err)
	}
	target := hostTarget()
	dir := filepath.Join(cache, "carrel", "ollama-"+Version)
	if target.Key != "" {
		dir += "-" + target.Key
	}
	bin := filepath.Join(dir, "ollama")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if isFile(bin) {
		return bin, nil
	}

	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	unlock, err := lockFile(dir + ".lock")
	if err != nil {
		return "", fmt.Errorf("lock %s: %w", dir, err)
	}
	defer unlock()
	if isFile(bin) { // built by another process while we waited
		return bin, nil
	}

	gobin, err := os.MkdirTemp(dir, "build-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(gobin)
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if !isFile(goCmd) {
		goCmd = "go"
	}
	slog.Info("building Ollama for tests; this takes about 5 minutes", "version", Version, "into", dir, "cflags", target.CFlags)
	began := time.Now()
	cmd := exec.Command(goCmd, "install", "github.com/ollama/ollama@"+Version)
	cmd.Dir = gobin // outside any module
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=", "GOWORK=off", "CGO_ENABLED=1")
	if target.CFlags != "" {
		cmd.Env = append(cmd.Env, "CGO_CFLAGS="+target.CFlags, "CGO_CXXFLAGS="+target.CFlags)
		// Say which CPU the binary is for, for whoever finds the folder.
		if err := os.WriteFile(filepath.Join(dir, "cpu.txt"), []byte(target.CFlags+"\n"+target.CPU+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go install github.com/ollama/ollama@%s: %w\n%s", Version, err, out)
	}
	built := filepath.Join(gobin, filepath.Base(bin))
	if err := os.Rename(built, bin); err != nil {
		return "", err
	}
	slog.Info("built Ollama", "path", bin, "took", time.Since(began).Round(time.Second))
	return bin, nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
