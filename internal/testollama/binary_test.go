package testollama

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestBinaryLookup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("os.UserCacheDir follows XDG_CACHE_HOME only on Linux")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	cached := filepath.Join(cache, "carrel", "ollama-"+Version, "ollama")
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cached, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	t.Setenv("CARREL_OLLAMA_BIN", "")
	if got, err := Binary(); err != nil || got != cached {
		t.Errorf("Binary() = %q, %v; want the cached %q", got, err, cached)
	}

	explicit := filepath.Join(t.TempDir(), "my-ollama")
	if err := os.WriteFile(explicit, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CARREL_OLLAMA_BIN", explicit)
	if got, err := Binary(); err != nil || got != explicit {
		t.Errorf("Binary() = %q, %v; want $CARREL_OLLAMA_BIN %q", got, err, explicit)
	}

	t.Setenv("CARREL_OLLAMA_BIN", filepath.Join(t.TempDir(), "missing"))
	if _, err := Binary(); err == nil {
		t.Error("Binary() accepted a missing $CARREL_OLLAMA_BIN")
	}
}
