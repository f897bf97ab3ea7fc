package llm

import (
	"net"
	"net/url"
	"runtime"
	"strconv"
	"strings"

	"github.com/carrel-app/carrel/backend/envconfig"
)

// DefaultEmbedThreads is the CPU threads a server on this machine is asked to embed with:
// every core but one, at least one (0 when the cores cannot be counted: the server's own
// choice then, all of them).
//
// llama.cpp's threads wait for each other at a spinning barrier after every operation of
// the model's graph. With as many threads as cores, any other runnable thread (Carrel
// reading the next files, the window, a question being answered by the chat model, the
// user's other programs) preempts one of them, and the others spin until it runs again:
// on the 2-core test machine under other work, MiniLM with 2 threads embedded 0.5–0.8
// passages/s where one thread embedded 7–9 (docs/benchmarks.md). Embedding a library is
// background work; leaving a core to the rest keeps it from collapsing and keeps the
// window and answers responsive, at the cost of one core's share when the machine is idle.
func DefaultEmbedThreads() int {
	n := physicalCores()
	if n <= 0 {
		return 0
	}
	return max(1, min(n, runtime.NumCPU())-1)
}

// embedThreads is the num_thread Embed sends, 0 for none (the server's own choice):
// EmbedThreads when set, then CARREL_EMBED_THREADS, then DefaultEmbedThreads for a server
// on this machine. A server elsewhere runs on cores Carrel does not see.
func (o *Ollama) embedThreads() int {
	switch {
	case o.EmbedThreads > 0:
		return o.EmbedThreads
	case o.EmbedThreads < 0:
		return 0
	}
	switch v := envconfig.EmbedThreads(); {
	case strings.EqualFold(v, "server"):
		return 0
	case v != "":
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	if !isLocal(o.host) {
		return 0
	}
	return DefaultEmbedThreads()
}

// isLocal reports whether base (a URL parseHost made) names this machine by a loopback
// address or "localhost".
func isLocal(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
