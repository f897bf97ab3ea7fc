package testollama

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/envconfig"
)

func TestBinaryLookup(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("os.UserCacheDir follows XDG_CACHE_HOME only on Linux")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	name := "ollama-" + Version
	if k := hostTarget().Key; k != "" {
		name += "-" + k
	}
	cached := filepath.Join(cache, "carrel", name, "ollama")
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

// verifies that the tuned build's cache key follows the CPU's features, not their order, so
// that a binary built with -march=native is never picked on a CPU that lacks them.
func TestCPUIdentity(t *testing.T) {
	const zen4 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\nmodel name\t: AMD EPYC 9B14\nflags\t\t: fpu sse2 avx avx2 avx512f\n\nprocessor\t: 1\nflags\t\t: other\n"
	reordered := strings.Replace(zen4, "fpu sse2 avx avx2 avx512f", "avx512f avx2 fpu sse2 avx", 1)
	noAVX512 := strings.Replace(zen4, " avx512f", "", 1)
	a, b, c := cpuIdentity(zen4), cpuIdentity(reordered), cpuIdentity(noAVX512)
	if a == "" || a != b {
		t.Errorf("the same CPU with its flags reordered keys differently:\n%q\n%q", a, b)
	}
	if a == c {
		t.Errorf("CPUs with and without AVX-512 key the same: %q", a)
	}
	if strings.Contains(a, "other") {
		t.Errorf("identity read past the first processor: %q", a)
	}
	if got := cpuIdentity("processor\t: 0\n"); got != "" {
		t.Errorf("identity without flags = %q, want empty (the plain build)", got)
	}
	t.Setenv(envconfig.OllamaTuneVar, "off")
	if tg := hostTarget(); tg.Key != "" || tg.CFlags != "" {
		t.Errorf("%s=off gave the tuned build %+v", envconfig.OllamaTuneVar, tg)
	}
}
