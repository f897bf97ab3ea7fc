// Command testollama starts a real Ollama server with the tiny test model for
// callers outside Go tests (the browser end-to-end test, `task bench`).
//
// It prints one JSON line on stdout once the models are created:
//
//	{"host":"http://127.0.0.1:PORT","chat_model":"tiny","embed_model":"tiny-embed"}
//
// and serves until SIGINT or SIGTERM, or until its standard input closes when
// that is a pipe (so a parent that dies takes the server with it); then it
// stops the server and removes its files. The server's log goes to stderr, or to
// the file named by -log. With -binary it only builds the Ollama binary if it
// is missing and fetches MiniLM's weights if they are (a setup or CI step, so
// tests do not wait for them) and prints the binary's path.
//
// With -minilm it also creates the real embedding model all-MiniLM-L6-v2 as
// all-minilm, and the line gains "minilm":"all-minilm".
//
// With -empty the server has no models (a server to pull into; the line then has empty
// model names). With -registry it also serves its chat model from a local registry over
// plain HTTP (see testollama.ServeRegistry) and the line gains the name another Ollama
// pulls it by, with insecure: true:
//
//	{..., "pull":"127.0.0.1:PORT/library/tiny:latest"}
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/carrel-app/carrel/internal/testollama"
)

func main() {
	dir := flag.String("dir", "", "directory for the models and the server's HOME (default: a new temporary directory, removed on exit)")
	logPath := flag.String("log", "", "write the server's log to this file instead of stderr")
	timeout := flag.Duration("timeout", 2*time.Minute, "how long to wait for the server and models (not counting a first build of Ollama)")
	binary := flag.Bool("binary", false, "only make sure the Ollama binary (building it if needed, ~5 minutes) and MiniLM's weights exist, print the binary's path and exit")
	empty := flag.Bool("empty", false, "start the server without models")
	registry := flag.Bool("registry", false, "also serve the chat model from a local registry and print its pull name as \"pull\"")
	minilm := flag.Bool("minilm", false, "also create the real embedding model all-minilm and print its name as \"minilm\"")
	flag.Parse()
	if *empty && (*registry || *minilm) {
		fmt.Fprintln(os.Stderr, "testollama: -registry and -minilm need the models that -empty leaves out")
		os.Exit(2)
	}
	if *binary {
		bin, err := testollama.Binary()
		if err == nil {
			_, err = testollama.MiniLMPath()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "testollama:", err)
			os.Exit(1)
		}
		fmt.Println(bin)
		return
	}
	if err := run(*dir, *logPath, *timeout, *empty, *registry, *minilm); err != nil {
		fmt.Fprintln(os.Stderr, "testollama:", err)
		os.Exit(1)
	}
}

func run(dir, logPath string, timeout time.Duration, empty, registry, minilm bool) error {
	var logw io.Writer = os.Stderr
	if logPath != "" {
		f, err := os.Create(logPath)
		if err != nil {
			return err
		}
		defer f.Close()
		logw = f
	}
	if _, err := testollama.Binary(); err != nil { // may build; not bounded by timeout
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, timeout)
	start := testollama.StartServer
	if empty {
		start = testollama.StartEmptyServer
	}
	srv, err := start(startCtx, dir, logw)
	if err == nil && minilm {
		if _, err = srv.CreateMiniLM(startCtx); err != nil {
			srv.Close()
		}
	}
	cancel()
	if err != nil {
		return err
	}
	defer srv.Close()

	info := map[string]string{
		"host":        srv.Host,
		"chat_model":  srv.ChatModel,
		"embed_model": srv.EmbedModel,
	}
	if minilm {
		info["minilm"] = testollama.MiniLMModel
	}
	if registry {
		url, closeRegistry := testollama.ServeRegistry(srv.ModelsDir, srv.ChatModel)
		defer closeRegistry()
		info["pull"] = testollama.PullName(url, srv.ChatModel)
	}
	line, _ := json.Marshal(info)
	if _, err := fmt.Printf("%s\n", line); err != nil {
		return err
	}

	// Only a pipe or socket counts: /dev/null (no stdin, as under CI) would
	// end the server at once.
	stdinClosed := make(chan struct{})
	if fi, err := os.Stdin.Stat(); err == nil && fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
		go func() {
			io.Copy(io.Discard, os.Stdin)
			close(stdinClosed)
		}()
	}
	select {
	case <-ctx.Done():
	case <-stdinClosed:
	}
	return nil
}
