package llm

import (
	"context"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/internal/testollama"
)

// verifies the threads Embed has the real server load the embedding model's runner with
// (num_thread): on a server of this machine by default every core but one from 4 cores
// on, all of them below (on the 2-core test machine, 2), EmbedThreads or
// CARREL_EMBED_THREADS when set, and the server's own choice (all physical cores, MiniLM's
// Modelfile setting none) when told.
func TestEmbedThreads(t *testing.T) {
	if testing.Short() {
		t.Skip("embeds with a real model")
	}
	srv := testollama.StartEmpty(t)
	model := testollama.MiniLM(t, srv)
	o := NewOllama(srv.Host)
	ctx := context.Background()
	cores := physicalCores()
	if cores < 1 {
		t.Fatal("no cores counted on linux")
	}
	for _, c := range []struct {
		name, env string
		set, want int
	}{
		{"default", "", 0, defaultThreads(cores)},
		{"set", "", 1, 1},
		{"environment", "3", 0, 3},
		{"server's choice", "", -1, cores},
		{"server's choice from the environment", "server", 0, cores},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(envconfig.EmbedThreadsVar, c.env)
			o.EmbedThreads = c.set
			if _, err := o.Embed(ctx, model, []string{"how many threads embed this"}); err != nil {
				t.Fatal(err)
			}
			if got := runnerThreads(t, srv); got != c.want {
				t.Errorf("the runner embeds with %d threads, want %d", got, c.want)
			}
		})
	}
}

// defaultThreads is what the runner runs on by default on a machine of cores cores.
func defaultThreads(cores int) int {
	if cores < 4 {
		return cores
	}
	return cores - 1
}

// runnerThreads waits until the server runs one model runner (a reloaded one replaces the
// last) and returns its --threads.
func runnerThreads(t *testing.T, srv *testollama.Server) int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		runners, err := srv.RunnerArgs()
		if err != nil {
			t.Fatal(err)
		}
		if len(runners) == 1 {
			args := runners[0]
			i := slices.Index(args, "--threads")
			if i < 0 || i+1 >= len(args) {
				t.Fatalf("runner started without --threads: %q", args)
			}
			n, err := strconv.Atoi(args[i+1])
			if err != nil {
				t.Fatalf("runner --threads %q", args[i+1])
			}
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d runners after 30 s, want 1: %q", len(runners), runners)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// verifies that a server elsewhere is left its own choice of threads: its cores are not
// this machine's.
func TestEmbedThreadsRemote(t *testing.T) {
	t.Setenv(envconfig.EmbedThreadsVar, "")
	for host, local := range map[string]bool{
		"http://127.0.0.1:11434": true, "localhost": true, "http://[::1]:11434": true, "127.0.0.2:9000": true,
		"http://10.0.0.7:11434": false, "https://ollama.example.org": false, "gpu-box:11434": false,
	} {
		o := NewOllama(host)
		want := 0
		if local {
			want = DefaultEmbedThreads()
		}
		if got := o.embedThreads(); got != want {
			t.Errorf("%s: embed threads %d, want %d", host, got, want)
		}
	}
}
