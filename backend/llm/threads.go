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
// on 4 cores or more every core but one, on fewer 0 (the server's own choice, all of them).
//
// llama.cpp's threads wait for each other at a spinning barrier after every operation of
// the model's graph. With as many threads as cores, any other runnable thread (Carrel
// reading the next files, the window, a question being answered by the chat model, the
// user's other programs) preempts one of them, and the others spin until it runs again:
// on the 2-core test machine under other work (load 14–19), MiniLM with 2 threads embedded
// 0.5–0.8 passages/s where one thread embedded 7–9. Leaving a core costs a quarter of the
// speed or less on 4 cores or more, and keeps embedding, background work, from collapsing
// and the window and answers responsive. On 2 cores it costs half when the machine is
// otherwise idle (Walden ready in 64.5 s with 2 threads, 116 s with one, at load ~2), the
// case a user adding a book mostly is, so there the server keeps all cores
// (docs/benchmarks.md).
func DefaultEmbedThreads() int {
	n := min(physicalCores(), runtime.NumCPU())
	if n < 4 {
		return 0
	}
	return n - 1
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
