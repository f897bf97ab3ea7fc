// Package cli is Carrel's headless command line, in the same binary as the desktop app:
//
//	carrel [--library DIR] ingest PATH...
//	carrel [--library DIR] search [--json] [--k N] [--mode hybrid|lexical|vector] QUESTION
//	carrel [--library DIR] ask [--json] [--session ID] QUESTION
//	carrel [--library DIR] sessions list|show|export|rename|delete
//	carrel [--library DIR] study cards|decks|review|export|edit|suspend|unsuspend|delete
//	carrel [--library DIR] status
//	carrel [--library DIR] serve [--addr HOST:PORT] [--open]
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/carrel-app/carrel/app"
	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/retrieve"
)

// ErrNoCommand means no subcommand was given: the caller opens the desktop window.
var ErrNoCommand = errors.New("no command")

// OpenFiles is returned (and matches ErrNoCommand) when the arguments are files or folders
// rather than a command: `carrel FILE...`, as a file manager's "Open with" runs it. The
// desktop window opens and adds them.
type OpenFiles struct {
	Paths []string // absolute
}

func (o *OpenFiles) Error() string        { return "no command: open " + strings.Join(o.Paths, ", ") }
func (o *OpenFiles) Is(target error) bool { return target == ErrNoCommand }

// Env is what a command runs with.
type Env struct {
	Stdout, Stderr io.Writer
	Stdin          io.Reader // nil: os.Stdin
	Assets         fs.FS     // the built frontend, for serve
	Version        string    // printed by --version
}

const usage = `Carrel: study your own documents, offline.

Usage:
  carrel [flags]                      open the desktop app
  carrel [flags] FILE...              open the desktop app and add the files (a running window takes them)
  carrel [flags] ingest PATH|URL...   add files, folders, web pages or threads (http/https URLs);
                                      one JSON line per document
  carrel [flags] search [--json] [--k N] [--mode hybrid|lexical|vector] QUESTION
  carrel [flags] ask [--json] [--session ID] [--docs IDS] [--override-budget] [--fresh] QUESTION
                                      ask in a new study session, or continue one
                                      (--fresh: ask the model even if the answer cache has it)
  carrel [flags] sessions list|show ID|export ID|rename ID TITLE|delete ID
  carrel [flags] study cards|decks|review|export|edit|suspend|delete   flashcards (carrel study for help)
  carrel [flags] keys status|set PROVIDER|delete PROVIDER   API keys in the OS keyring
  carrel [flags] status               what works now (Ollama, models, mode)
  carrel [flags] stats [--json]       questions, latency, tokens and cost, per day and in total
  carrel [flags] memory list|add|edit|rm|on|off   what Carrel remembers about you
  carrel [flags] cache status|clear|on|off|calibrate   the answer cache
  carrel [flags] serve [--addr 127.0.0.1:8080] [--open]   the app in a browser (open the link it prints)

Flags:
`

// Parse reads the global flags; it returns the engine config and the remaining args.
func Parse(args []string, stderr io.Writer) (engine.Config, []string, error) {
	fsg := flag.NewFlagSet("carrel", flag.ContinueOnError)
	fsg.SetOutput(stderr)
	dir := fsg.String("library", engine.DefaultDir(), "library `folder` (also $CARREL_LIBRARY)")
	host := fsg.String("ollama-host", "", "Ollama address (default $OLLAMA_HOST or 127.0.0.1:11434)")
	chatModel := fsg.String("chat-model", "", "chat model (default from DIR/config.json, else "+engine.DefaultChatModel+")")
	embedModel := fsg.String("embed-model", "", "embedding model (default from DIR/config.json, else "+engine.DefaultEmbedModel+")")
	maxTokens := fsg.Int("max-tokens", 0, "longest answer in tokens (default 1024)")
	provider := fsg.String("provider", "", "who answers: ollama, openai or anthropic (default from DIR/config.json, else ollama)")
	cloudModel := fsg.String("cloud-model", "", "the OpenAI or Anthropic model (default "+engine.DefaultOpenAIModel+" / "+engine.DefaultAnthropicModel+")")
	budget := fsg.Float64("budget", -1, "cap in US dollars on cloud spending in total (0: none; default from DIR/config.json)")
	version := fsg.Bool("version", false, "print the version and exit")
	fsg.Usage = func() {
		fmt.Fprint(stderr, usage)
		fsg.PrintDefaults()
	}
	// macOS passes -psn_… to apps started from Finder.
	var clean []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-psn_") {
			clean = append(clean, a)
		}
	}
	if err := fsg.Parse(clean); err != nil {
		return engine.Config{}, nil, err
	}
	if *version {
		return engine.Config{}, nil, errVersion
	}
	cfg, err := engine.LoadConfig(*dir)
	if err != nil {
		return cfg, nil, err
	}
	if *host != "" {
		cfg.OllamaHost = *host
	}
	if *chatModel != "" {
		cfg.ChatModel = *chatModel
	}
	if *embedModel != "" {
		cfg.EmbedModel = *embedModel
	}
	if *maxTokens > 0 {
		cfg.MaxTokens = *maxTokens
	}
	if err := applyAnswerFlags(&cfg, *provider, *cloudModel, *budget); err != nil {
		return cfg, nil, err
	}
	return cfg, fsg.Args(), nil
}

// errVersion is Parse's answer to --version.
var errVersion = errors.New("version asked")

// Run runs one command and returns the process exit code. With no command it returns
// ErrNoCommand (or *OpenFiles, when the arguments are files) and the config for the
// desktop app.
func Run(args []string, env Env) (engine.Config, int, error) {
	cfg, rest, err := Parse(args, env.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return cfg, 0, nil
	}
	if errors.Is(err, errVersion) {
		v := env.Version
		if v == "" {
			v = "dev"
		}
		fmt.Fprintln(env.Stdout, "carrel", v)
		return cfg, 0, nil
	}
	if err != nil {
		return cfg, 2, err
	}
	if len(rest) == 0 {
		return cfg, 0, ErrNoCommand
	}
	cmd, cmdArgs := rest[0], rest[1:]
	run, ok := map[string]func(context.Context, *engine.Engine, []string, Env) error{
		"ingest": ingestCmd, "search": searchCmd, "ask": askCmd, "status": statusCmd, "serve": serveCmd, "sessions": sessionsCmd, "keys": keysCmd, "eval": evalCmd, "stats": statsCmd, "memory": memoryCmd, "cache": cacheCmd,
		"study": studyCmd,
	}[cmd]
	if !ok {
		if paths, ok := existingPaths(rest); ok {
			return cfg, 0, &OpenFiles{Paths: paths}
		}
		return cfg, 2, fmt.Errorf("unknown command %q: use ingest, search, ask, sessions, study, memory, cache, keys, stats, status or serve (carrel -h for help)", cmd)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	finished := make(chan struct{})
	defer close(finished) // after eng.Close: closing is part of stopping
	go stopPromptly(ctx, stop, finished, env.Stderr)
	eng, err := engine.Open(cfg)
	if err != nil {
		return cfg, 1, err
	}
	defer eng.Close()
	// Said before the command's own output: what was repaired at open, and a library
	// that cannot be changed (status reports both in its own output).
	if cmd != "status" {
		for _, n := range eng.Notices() {
			fmt.Fprintln(env.Stderr, "carrel:", n)
		}
		if r := eng.ReadOnlyReason(); r != "" {
			fmt.Fprintln(env.Stderr, "carrel:", r)
		}
	}
	if err := run(ctx, eng, cmdArgs, env); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			return cfg, 2, err
		}
		if ctx.Err() != nil {
			return cfg, 130, errors.New("interrupted")
		}
		return cfg, 1, err
	}
	return cfg, 0, nil
}

// stopGrace is how long a command may take to wind down after SIGINT or SIGTERM.
const stopGrace = 3 * time.Second

// stopPromptly makes a signal end the process soon whatever the command is doing: the
// command's context is cancelled at the first signal, a second signal kills at once, and
// a command still busy after stopGrace is ended (the library is built to survive a kill
// at any moment: SQLite transactions, index files replaced by rename).
func stopPromptly(ctx context.Context, stop context.CancelFunc, finished <-chan struct{}, stderr io.Writer) {
	select {
	case <-finished:
		return
	case <-ctx.Done():
	}
	stop() // back to the default: the next signal ends the process
	select {
	case <-finished:
	case <-time.After(stopGrace):
		fmt.Fprintf(stderr, "carrel: still busy %s after the signal; stopping now\n", stopGrace)
		os.Exit(130)
	}
}

type usageError struct{ error }

// FilesFrom picks the files and folders out of a command line given to another Carrel
// (a second launch's arguments, handed to the running window), relative to the folder it
// was started in. Flags are skipped with their values; a command line with a command
// gives none.
func FilesFrom(args []string, wd string) []string {
	_, rest, err := Parse(args, io.Discard)
	if err != nil || len(rest) == 0 {
		return nil
	}
	for i, a := range rest {
		if !filepath.IsAbs(a) && !strings.HasPrefix(a, "file:") {
			rest[i] = filepath.Join(wd, a)
		}
	}
	paths, _ := existingPaths(rest)
	return paths
}

// existingPaths returns args as absolute paths when every one names an existing file or
// folder (a command's name is never taken for a file: `carrel ./ingest` is).
func existingPaths(args []string) ([]string, bool) {
	out := make([]string, 0, len(args))
	for _, a := range args {
		// A file manager may pass file:// URIs when the desktop entry asks for %U.
		if u, err := url.Parse(a); err == nil && u.Scheme == "file" {
			a = u.Path
		}
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, false
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, false
		}
		out = append(out, abs)
	}
	return out, len(out) > 0
}

func ingestCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	if len(args) == 0 {
		return usageError{errors.New("ingest: give one or more files, folders or web addresses")}
	}
	enc := json.NewEncoder(env.Stdout)
	failed := 0
	var urls, paths []string
	for _, a := range args {
		if engine.IsURL(a) {
			urls = append(urls, a)
		} else {
			paths = append(paths, a)
		}
	}
	files := engine.ExpandPaths(paths)
	last := map[string]string{}
	progress := func(d library.Document) {
		line := fmt.Sprintf("%s: %s", d.Title, d.Status)
		if d.Total > 0 && (d.Status == library.StatusExtracting || d.Status == library.StatusEmbedding) {
			line += fmt.Sprintf(" %d/%d", d.Done, d.Total)
		}
		if line != last[d.ID] {
			fmt.Fprintln(env.Stderr, line)
			last[d.ID] = line
		}
	}
	// Several files are extracted at once; results are printed in the order given, each as
	// soon as it and every file before it are done.
	done := make([]*engine.Result, len(files))
	next := 0
	var encErr error
	_, err := eng.Intake().IngestFiles(ctx, files, 0, progress, func(i int, r engine.Result) {
		done[i] = &r
		for next < len(done) && done[next] != nil {
			r := done[next]
			if r.Status == engine.Failed {
				failed++
				fmt.Fprintf(env.Stderr, "[%d/%d] %s: failed: %s\n", next+1, len(files), r.Path, r.Error)
			}
			if err := enc.Encode(r); err != nil && encErr == nil {
				encErr = err
			}
			next++
		}
	})
	if err = errors.Join(err, encErr, ctx.Err()); err != nil {
		return err
	}
	// Web addresses are fetched one by one, each the user's explicit request.
	for i, u := range urls {
		r, err := eng.IngestURL(ctx, u, progress)
		if err != nil {
			return err
		}
		if r.Status == engine.Failed {
			failed++
			fmt.Fprintf(env.Stderr, "[%d/%d] %s: failed: %s\n", i+1, len(urls), u, r.Error)
		}
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if n, err := eng.Intake().EmbedPending(ctx); err != nil {
		fmt.Fprintf(env.Stderr, "embedding: %v (documents stay searchable by words)\n", err)
	} else if n > 0 {
		fmt.Fprintf(env.Stderr, "embedded %d earlier chunks\n", n)
	}
	if failed > 0 {
		fmt.Fprintf(env.Stderr, "%d of %d documents failed\n", failed, len(files)+len(urls))
	}
	return nil
}

func searchCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	fsg := flag.NewFlagSet("search", flag.ContinueOnError)
	fsg.SetOutput(env.Stderr)
	asJSON := fsg.Bool("json", false, "print JSON")
	k := fsg.Int("k", 10, "number of hits")
	mode := fsg.String("mode", string(retrieve.Hybrid), "hybrid, lexical or vector")
	docs := fsg.String("docs", "", "comma-separated document ids to search (default all)")
	if err := fsg.Parse(args); err != nil {
		return usageError{err}
	}
	q := strings.Join(fsg.Args(), " ")
	if q == "" {
		return usageError{errors.New("search: give a question")}
	}
	m, err := retrieve.ParseMode(*mode)
	if err != nil {
		return usageError{err}
	}
	hits, err := eng.Search(ctx, q, engine.SearchOptions{K: *k, Mode: m, DocIDs: splitList(*docs)})
	if err != nil {
		return err
	}
	if *asJSON {
		if hits == nil {
			hits = []engine.Hit{}
		}
		return json.NewEncoder(env.Stdout).Encode(hits)
	}
	if len(hits) == 0 {
		fmt.Fprintln(env.Stdout, "Nothing found.")
	}
	for i, h := range hits {
		fmt.Fprintf(env.Stdout, "%2d. %s, page %d  (%s, %.4f)\n    %s\n", i+1, h.DocTitle, h.Page, h.MatchType, h.Score, snippet(h.Text, 200))
	}
	return nil
}

func askCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	fsg := flag.NewFlagSet("ask", flag.ContinueOnError)
	fsg.SetOutput(env.Stderr)
	asJSON := fsg.Bool("json", false, "print one JSON object at the end instead of streaming")
	docs := fsg.String("docs", "", "comma-separated document ids to search (default all, or the session's)")
	session := fsg.String("session", "", "continue this study session (default: start a new one)")
	override := fsg.Bool("override-budget", false, "answer with the cloud model even past the budget cap")
	fresh := fsg.Bool("fresh", false, "ask the model even when the answer cache holds an answer (and replace it)")
	if err := fsg.Parse(args); err != nil {
		return usageError{err}
	}
	q := strings.Join(fsg.Args(), " ")
	if q == "" {
		return usageError{errors.New("ask: give a question")}
	}
	opt := asking.Options{SessionID: *session, OverrideBudget: *override, Fresh: *fresh}
	if *docs != "" || *session == "" {
		opt.DocIDs = splitList(*docs)
	}
	ans, err := eng.Asking().Ask(ctx, q, opt, func(ev asking.Event) error {
		if !*asJSON && !ev.IsStart {
			fmt.Fprint(env.Stdout, ev.Token)
		}
		return nil
	})
	if ans == nil {
		return err
	}
	if err != nil && strings.TrimSpace(ans.Text) != "" {
		// A partial answer is printed; the error itself is printed by the caller.
		fmt.Fprintln(env.Stderr, "answer cut short")
	}
	if *asJSON {
		return errors.Join(err, json.NewEncoder(env.Stdout).Encode(ans))
	}
	if ans.Mode != chat.ModeModel {
		fmt.Fprintln(env.Stdout, ans.Text)
	} else {
		fmt.Fprintln(env.Stdout)
	}
	if ans.Note != "" {
		fmt.Fprintln(env.Stdout, "\n"+ans.Note)
	}
	if ans.Cached != nil {
		fmt.Fprintln(env.Stdout, "\n"+cachedLine(ans.Cached))
	}
	if len(ans.Citations) > 0 {
		fmt.Fprintln(env.Stdout, "\nSources:")
	}
	for _, c := range ans.Citations {
		fmt.Fprintf(env.Stdout, "[%d] %s, page %d: %s\n", c.N, c.DocTitle, c.Page, snippet(c.Text, 120))
	}
	printAnswerFooter(env, ans)
	return err
}

func statsCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	fsg := flag.NewFlagSet("stats", flag.ContinueOnError)
	fsg.SetOutput(env.Stderr)
	asJSON := fsg.Bool("json", false, "print JSON")
	if err := fsg.Parse(args); err != nil {
		return usageError{err}
	}
	st, err := eng.Asking().Stats(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(env.Stdout).Encode(st)
	}
	t := st.Total
	fmt.Fprintf(env.Stdout, "%d questions (%d from the cache, %d not in the documents, %d without a model)\n", t.Questions, t.CacheHits, t.NotFound, t.NoModel)
	fmt.Fprintf(env.Stdout, "tokens %d in, %d out; cost $%.4f, saved by the cache $%.4f\n", t.PromptTokens, t.CompletionTokens, t.CostUSD, t.SavedUSD)
	fmt.Fprintf(env.Stdout, "first token p50 %.0f ms (p95 %.0f); whole answer p50 %.0f ms; retrieval p50 %.1f ms\n",
		t.TTFTUncached.P50, t.TTFTUncached.P95, t.TotalUncached.P50, t.Retrieval.P50)
	return nil
}

func statusCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	st := eng.Status(ctx)
	if err := ctx.Err(); err != nil {
		return err // interrupted: the probe's "unreachable" would not be true
	}
	enc := json.NewEncoder(env.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(st)
}

func serveCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	fsg := flag.NewFlagSet("serve", flag.ContinueOnError)
	fsg.SetOutput(env.Stderr)
	addr := fsg.String("addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free one)")
	open := fsg.Bool("open", false, "open the app in the default browser")
	if err := fsg.Parse(args); err != nil {
		return usageError{err}
	}
	if env.Assets == nil {
		return errors.New("serve: this build has no frontend")
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	bound := ln.Addr().String()
	srv := app.NewServer(ctx, eng, env.Assets, app.ServerOptions{Addr: bound})
	defer srv.Stop()
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	// The link holds this run's key: whoever has it can use the library, so it goes to
	// this terminal only (and to the browser through a private file with --open).
	link := "http://" + bound + "/?token=" + srv.Token()
	json.NewEncoder(env.Stdout).Encode(map[string]string{"url": link})
	fmt.Fprintf(env.Stderr, "Carrel is at %s\n(the link holds this run's key; without it the app is locked)\n", link)
	if host, _, _ := net.SplitHostPort(bound); !isLoopback(host) {
		fmt.Fprintf(env.Stderr, "warning: %s is not a loopback address; the app still answers only to localhost names\n", bound)
	}
	if *open {
		page, err := openBrowser(link)
		if err != nil {
			fmt.Fprintf(env.Stderr, "could not open a browser (%v): open the link above\n", err)
		} else {
			// The browser may read it late; it names a key that dies with this run.
			defer os.Remove(page)
		}
	}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func snippet(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
