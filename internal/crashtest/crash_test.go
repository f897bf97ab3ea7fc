package crashtest

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/crashpoint"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
)

var (
	crashRuns = flag.Int("crash.runs", 8, "kills to inject (go tool task test:crash runs 60)")
	crashSeed = flag.Uint64("crash.seed", 0, "seed of the kill schedule (0: from the clock; printed)")
)

// The child process: this test binary run again with childOp set, doing one operation on
// a library until it finishes or is killed.
const (
	childOp    = "CARREL_CRASHTEST_OP"
	childDir   = "CARREL_CRASHTEST_DIR"
	childHost  = "CARREL_CRASHTEST_HOST"
	childFiles = "CARREL_CRASHTEST_FILES"
)

func TestMain(m *testing.M) {
	if op := os.Getenv(childOp); op != "" {
		if err := child(op); err != nil {
			fmt.Fprintln(os.Stderr, "crash child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The questions asked by the "ask" operation and after every kill.
const (
	question = "What did Thoreau build by the pond?"
	followUp = "And what did it cost him?"
)

func config(dir, host string) engine.Config {
	// Batches of 8: several embedding batches (and kill points) per document.
	return engine.Config{Dir: dir, OllamaHost: host, ChatModel: testollama.ChatModel, EmbedModel: testollama.EmbedModel,
		EmbedBatch: 8, MaxTokens: 24}
}

// child runs one operation as the user's Carrel would, then prints how often each crash
// point was reached.
func child(op string) error {
	ctx := context.Background()
	eng, err := engine.Open(config(os.Getenv(childDir), os.Getenv(childHost)))
	if err != nil {
		return err
	}
	if err := operate(ctx, eng, op, strings.Split(os.Getenv(childFiles), "\n")); err != nil {
		eng.Close()
		return err
	}
	if err := eng.Close(); err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(crashpoint.Counts())
}

// operate is one operation the harness kills: the same calls the app and the CLI make.
func operate(ctx context.Context, eng *engine.Engine, op string, files []string) error {
	switch op {
	case "ingest":
		if _, err := eng.Intake().IngestFiles(ctx, files, 2, nil, nil); err != nil {
			return err
		}
	case "embed":
	case "reread":
		docs, err := eng.Library().Documents(ctx)
		if err != nil {
			return err
		}
		for _, d := range docs {
			if _, err := eng.Intake().Reread(ctx, d.ID, nil); err != nil {
				return err
			}
		}
	case "rechunk":
		if _, err := eng.Intake().Rechunk(ctx); err != nil {
			return err
		}
	case "ask":
		ans, err := eng.Asking().Ask(ctx, question, asking.Options{}, nil)
		if err != nil {
			return err
		}
		if _, err := eng.Asking().Ask(ctx, followUp, asking.Options{SessionID: ans.SessionID}, nil); err != nil {
			return err
		}
		// The same question again: a cache lookup, and a cache write if the first
		// answer was not kept.
		if _, err := eng.Asking().Ask(ctx, question, asking.Options{}, nil); err != nil {
			return err
		}
	default:
		return fmt.Errorf("unknown operation %q", op)
	}
	_, err := eng.Intake().EmbedPending(ctx)
	return err
}

// fixture is what every run starts from.
type fixture struct {
	host  string
	files []string
	// templates are library folders each operation starts from.
	templates map[string]string
	// before and after are each document's chunk ids before the operation and after it
	// finished (they differ only for rechunk).
	before, after map[string][]string
}

var ops = []string{"ingest", "embed", "reread", "rechunk", "ask"}

// verifies that a SIGKILL at any moment of ingest, embedding, re-read, re-chunk, a session
// save or a cache write leaves a library that reopens consistent (Check), in which every
// document is either complete (its passages exactly those of a finished run) or listed as
// interrupted, searching and asking work, and a retry finishes the operation with the
// same passages and vectors a run without a kill gives.
//
// Half the kills come from named crash points (backend/crashpoint) reached a chosen
// number of times, counted by a first run of each operation; the other half from a
// seeded random delay within the operation's measured duration.
func TestCrash(t *testing.T) {
	srv := testollama.Start(t)
	fx := newFixture(t, srv.Host)
	census := map[string]map[string]int{}
	took := map[string]time.Duration{}
	for _, op := range ops {
		dir := fx.runDir(t, op)
		began := time.Now()
		out, killed, err := fx.run(op, dir, "count", 0)
		took[op] = time.Since(began)
		if err != nil || killed {
			t.Fatalf("%s without a kill: killed=%v %v", op, killed, err)
		}
		counts := map[string]int{}
		if err := json.Unmarshal(out, &counts); err != nil {
			t.Fatalf("%s: crash point counts: %v: %s", op, err, out)
		}
		census[op] = counts
		if err := fx.verify(dir, op, false); err != nil {
			t.Fatalf("%s without a kill: %v", op, err)
		}
		t.Logf("%s: %s, crash points %v", op, took[op].Round(time.Millisecond), census[op])
	}

	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))
	runs, recovered, byPoint, byDelay := 0, 0, 0, 0
	reached := map[string]int{}
	for attempt := 0; runs < *crashRuns && attempt < 4**crashRuns; attempt++ {
		op := ops[runs%len(ops)]
		dir := fx.runDir(t, op)
		var arm string
		var delay time.Duration
		if points := sortedKeys(census[op]); runs%2 == 0 && len(points) > 0 {
			p := points[rng.IntN(len(points))]
			arm = fmt.Sprintf("%s:%d", p, 1+rng.IntN(census[op][p]))
		} else {
			// The child's start (process, library open) is part of the measured time.
			delay = time.Duration(rng.Int64N(int64(took[op])))
		}
		_, killed, err := fx.run(op, dir, arm, delay)
		if err != nil {
			t.Errorf("%s (kill %q after %s): %v", op, arm, delay, err)
			continue
		}
		if !killed {
			continue // finished before the kill: draw again
		}
		runs++
		if arm != "" {
			byPoint++
			reached[strings.Split(arm, ":")[0]]++
		} else {
			byDelay++
		}
		if err := fx.verify(dir, op, true); err != nil {
			t.Errorf("run %d, %s killed %s: %v", runs, op, what(arm, delay), err)
			continue
		}
		recovered++
	}
	line := fmt.Sprintf("crash runs=%d recovered=%d (at crash points %d, after random delays %d; seed %d; points %v)",
		runs, recovered, byPoint, byDelay, seed, reached)
	fmt.Println(line)
	t.Log(line)
	if runs < *crashRuns {
		t.Errorf("only %d of %d runs were killed before finishing", runs, *crashRuns)
	}
}

func what(arm string, delay time.Duration) string {
	if arm != "" {
		return "at " + arm
	}
	return "after " + delay.Round(time.Millisecond).String()
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// newFixture copies the corpus, builds the template libraries and records each
// document's passages before and after a re-chunk.
func newFixture(t *testing.T, host string) *fixture {
	t.Helper()
	ctx := context.Background()
	root := t.TempDir()
	fx := &fixture{host: host, templates: map[string]string{}}
	docs := filepath.Join(root, "docs")
	os.MkdirAll(docs, 0o755)
	for _, name := range []string{"Walden.pdf", "OptimizeTest.pdf"} {
		b, err := os.ReadFile(testcorpus.File(t, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(docs, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fx.files = append(fx.files, p)
	}
	for i, topic := range []string{"pond", "beans"} {
		var b strings.Builder
		fmt.Fprintf(&b, "# Notes on the %s\n\n", topic)
		for j := range 30 {
			fmt.Fprintf(&b, "## Part %d\n\nThoreau wrote about the %s in chapter %d, paragraph %d. He measured, counted and "+
				"recorded what he spent on boards, nails and lime, and what the %s gave back in season %d.\n\n", j, topic, i+j, j*7, topic, j)
		}
		p := filepath.Join(docs, topic+".md")
		os.WriteFile(p, []byte(b.String()), 0o644)
		fx.files = append(fx.files, p)
	}

	open := func(dir, host string) *engine.Engine {
		eng, err := engine.Open(config(dir, host))
		if err != nil {
			t.Fatal(err)
		}
		return eng
	}
	// ingest: an empty library.
	fx.templates["ingest"] = filepath.Join(root, "t-empty")
	os.MkdirAll(fx.templates["ingest"], 0o755)
	// embed: ingested without Ollama, so every passage waits for its vector.
	fx.templates["embed"] = filepath.Join(root, "t-lexical")
	eng := open(fx.templates["embed"], "127.0.0.1:9")
	if _, err := eng.Intake().IngestFiles(ctx, fx.files, 2, nil, nil); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	// reread, ask: ingested and embedded.
	full := filepath.Join(root, "t-full")
	eng = open(full, host)
	if res, err := eng.Intake().IngestFiles(ctx, fx.files, 2, nil, nil); err != nil {
		t.Fatal(err)
	} else {
		for _, r := range res {
			if r.Status != engine.Inserted {
				t.Fatalf("template ingest: %+v", r)
			}
		}
	}
	eng.Close()
	fx.templates["reread"], fx.templates["ask"] = full, full
	st, err := Check(full)
	if err != nil || st.Pending > 0 || st.Vectors != st.Chunks {
		t.Fatalf("template library: %+v %v", st, err)
	}
	fx.before = chunkIDs(st)
	// rechunk: the same with other chunk sizes in force.
	fx.templates["rechunk"] = filepath.Join(root, "t-rechunk")
	copyDir(t, full, fx.templates["rechunk"])
	prof := chunk.Profiles{}
	for k := range chunk.DefaultProfiles() {
		prof[k] = chunk.Options{Target: 500, Min: 150, Max: 700, Overlap: 0.1, ChildTarget: 200, ChildMin: 60, ChildMax: 300, ChildOverlap: 0.1}
	}
	b, _ := json.Marshal(prof)
	if err := os.WriteFile(filepath.Join(fx.templates["rechunk"], chunk.ProfilesFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	after := filepath.Join(root, "t-rechunked")
	copyDir(t, fx.templates["rechunk"], after)
	eng = open(after, host)
	if _, err := eng.Intake().Rechunk(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Intake().EmbedPending(ctx); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	st, err = Check(after)
	if err != nil {
		t.Fatal(err)
	}
	fx.after = chunkIDs(st)
	changed := 0
	for id, c := range fx.after {
		if !slices.Equal(c, fx.before[id]) {
			changed++
		}
	}
	if changed < 2 {
		t.Fatalf("re-chunking with other sizes changed the passages of %d documents, want at least 2", changed)
	}
	return fx
}

func chunkIDs(st State) map[string][]string {
	out := map[string][]string{}
	for id, d := range st.Docs {
		out[id] = d.Chunks
	}
	return out
}

// runDir copies op's template into a new folder.
func (fx *fixture) runDir(t *testing.T, op string) string {
	dir := filepath.Join(t.TempDir(), "lib")
	copyDir(t, fx.templates[op], dir)
	return dir
}

// run runs op in a child process on dir, armed with the crash point arm ("NAME:N",
// "count" to count only) or killed after delay (if > 0). It returns the child's output
// and whether it died of SIGKILL.
func (fx *fixture) run(op, dir, arm string, delay time.Duration) ([]byte, bool, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childOp+"="+op, childDir+"="+dir, childHost+"="+fx.host,
		childFiles+"="+strings.Join(fx.files, "\n"))
	if arm != "" {
		cmd.Env = append(cmd.Env, crashpoint.Env+"="+arm)
	}
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return nil, false, err
	}
	if delay > 0 {
		timer := time.AfterFunc(delay, func() { cmd.Process.Signal(syscall.SIGKILL) })
		defer timer.Stop()
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		<-done
		return nil, false, fmt.Errorf("the operation hung for 5 minutes: %s", errb.String())
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("%v: %s", err, errb.String())
	}
	return []byte(out.String()), false, nil
}

// verify reopens a library an operation left (killed or not) and checks it, then
// retries the operation and checks that the result is what a run without a kill gives.
func (fx *fixture) verify(dir, op string, killed bool) error {
	ctx := context.Background()
	eng, err := engine.Open(config(dir, fx.host))
	if err != nil {
		return fmt.Errorf("reopen: %w", err)
	}
	interrupted, err := eng.Intake().Interrupted(ctx)
	if err != nil {
		eng.Close()
		return err
	}
	// A kill must not damage anything: an index found damaged at open (rebuilt from the
	// database, so Check below would pass) means a write that is not crash-safe.
	for _, n := range eng.Notices() {
		if strings.Contains(n, "damaged") {
			eng.Close()
			return fmt.Errorf("reopened with a repair: %s", n)
		}
	}
	// Search and ask work on whatever the kill left.
	hits, serr := eng.Search(ctx, "Thoreau pond", engine.SearchOptions{})
	ans, aerr := eng.Asking().Ask(ctx, question, asking.Options{}, nil)
	if err := errors.Join(serr, aerr, eng.Close()); err != nil {
		return fmt.Errorf("after reopening: %w", err)
	}
	if ans == nil || strings.TrimSpace(ans.Text) == "" {
		return fmt.Errorf("after reopening, ask gave no answer: %+v", ans)
	}
	st, err := Check(dir)
	if err != nil {
		return fmt.Errorf("after reopening: %w", err)
	}
	if err := fx.complete(st, op, interrupted, killed); err != nil {
		return fmt.Errorf("after reopening: %w", err)
	}
	ready := 0
	for _, d := range st.Docs {
		if d.Status == library.StatusReady {
			ready++
		}
	}
	if ready > 0 && len(hits) == 0 {
		return fmt.Errorf("after reopening, %d documents are ready but a search finds nothing", ready)
	}

	// The retry: what the app does at its next start (re-ingest the interrupted
	// documents), then the operation again.
	eng, err = engine.Open(config(dir, fx.host))
	if err != nil {
		return fmt.Errorf("reopen for the retry: %w", err)
	}
	for _, d := range interrupted {
		if _, err := eng.Intake().IngestFile(ctx, d.Path, nil); err != nil {
			eng.Close()
			return fmt.Errorf("retry %s: %w", d.Title, err)
		}
	}
	if err := operate(ctx, eng, op, fx.files); err != nil {
		eng.Close()
		return fmt.Errorf("retry %s: %w", op, err)
	}
	if err := eng.Close(); err != nil {
		return err
	}
	if st, err = Check(dir); err != nil {
		return fmt.Errorf("after the retry: %w", err)
	}
	want := fx.before
	if op == "rechunk" {
		want = fx.after
	}
	for id, c := range want {
		d, ok := st.Docs[id]
		switch {
		case !ok:
			return fmt.Errorf("after the retry, document %.12s is missing", id)
		case d.Status != library.StatusReady:
			return fmt.Errorf("after the retry, document %.12s is %s", id, d.Status)
		case !slices.Equal(d.Chunks, c):
			return fmt.Errorf("after the retry, document %.12s has %d passages, a clean run %d", id, len(d.Chunks), len(c))
		}
	}
	if len(st.Docs) != len(want) || st.Pending > 0 || st.Vectors != st.Chunks {
		return fmt.Errorf("after the retry: %d documents (want %d), %d chunks waiting for vectors, %d vectors for %d chunks",
			len(st.Docs), len(want), st.Pending, st.Vectors, st.Chunks)
	}
	if op == "ask" && (st.Messages < 1 || st.CacheEntries > st.Messages) {
		return fmt.Errorf("after the retry: %d messages, %d cache entries", st.Messages, st.CacheEntries)
	}
	return nil
}

// complete checks that every document is complete (its passages those of a finished
// run before or after the operation) or listed as interrupted, and that an operation
// on existing documents lost none.
func (fx *fixture) complete(st State, op string, interrupted []library.Document, killed bool) error {
	waiting := map[string]bool{}
	for _, d := range interrupted {
		waiting[d.ID] = true
	}
	for id, d := range st.Docs {
		switch {
		case d.Status == library.StatusReady:
			if !slices.Equal(d.Chunks, fx.before[id]) && !(op == "rechunk" && slices.Equal(d.Chunks, fx.after[id])) {
				return fmt.Errorf("document %.12s is ready with %d passages that no finished run gives (%d before, %d after)",
					id, len(d.Chunks), len(fx.before[id]), len(fx.after[id]))
			}
		case d.Status == library.StatusFailed:
			return fmt.Errorf("document %.12s failed", id)
		case !waiting[id]:
			return fmt.Errorf("document %.12s is %s but not listed as interrupted", id, d.Status)
		case !killed:
			return fmt.Errorf("document %.12s is %s after a run without a kill", id, d.Status)
		}
	}
	if op != "ingest" && len(st.Docs) != len(fx.before) {
		return fmt.Errorf("%d documents, want %d", len(st.Docs), len(fx.before))
	}
	return nil
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		out, err := os.Create(dst)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, src); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}
