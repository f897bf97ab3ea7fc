package faulttest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/crashtest"
	"github.com/carrel-app/carrel/internal/testollama"
)

// soak is how long TestSoak keeps everything running at once. The README's test command
// runs a short one under -race; `go tool task test:soak` runs it for minutes.
var soak = flag.Duration("soak", 0, "run TestSoak for this long (0: skip it unless -run names it; then 15 s)")

// verifies Carrel under everything at once (issue 14, item 3), meant for -race: for the
// soak's length, files are ingested and removed, a watched folder's files are created,
// changed and deleted while the watcher follows them, documents are read again,
// questions are asked in new and continued sessions (answered by the test Ollama),
// sessions renamed and deleted, the answer cache cleared, cards made and graded. No
// operation may take over two minutes (a deadlock dumps every goroutine), none may fail
// in a way the others do not explain (a document removed meanwhile), and afterwards the
// library holds exactly the documents that should be there (the ingested minus the
// removed; the watched folder's files as they are), with SQLite, bleve and FAISS in
// agreement.
func TestSoak(t *testing.T) {
	length := *soak
	if length == 0 {
		if !strings.Contains(flag.Lookup("test.run").Value.String(), "Soak") {
			t.Skip("a soak runs when asked: -run TestSoak (go tool task test:soak)")
		}
		length = 15 * time.Second
	}
	srv := testollama.Start(t)
	root := t.TempDir()
	cfg := config(filepath.Join(root, "lib"), srv.Host)
	eng := open(t, cfg)
	defer eng.Close()
	plain, watched := filepath.Join(root, "plain"), filepath.Join(root, "watched")
	os.MkdirAll(plain, 0o755)
	os.MkdirAll(watched, 0o755)

	ctx, stop := context.WithTimeout(context.Background(), length)
	defer stop()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		live     = map[string]string{} // doc id → path, of the documents added outside the watched folder
		removed  = map[string]bool{}
		sessions []string
		ops      = map[string]*atomic.Int64{}
		failures []string
	)
	for _, k := range []string{"ingest", "remove", "reread", "ask", "session", "cache", "cards", "watch-change", "search"} {
		ops[k] = &atomic.Int64{}
	}
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	pick := func(r *rand.Rand) (string, bool) {
		mu.Lock()
		defer mu.Unlock()
		ids := make([]string, 0, len(live))
		for id := range live {
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			return "", false
		}
		sort.Strings(ids)
		return ids[r.IntN(len(ids))], true
	}
	// step runs one operation with its own deadline: past it the engine is deadlocked.
	step := func(kind string, f func(ctx context.Context) error) {
		octx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- f(octx) }()
		select {
		case err := <-done:
			ops[kind].Add(1)
			if err != nil {
				fail("%s: %v", kind, err)
			}
		case <-time.After(2*time.Minute + 10*time.Second):
			pprof.Lookup("goroutine").WriteTo(os.Stderr, 2)
			panic(kind + " has not returned in two minutes: a deadlock (goroutines above)")
		}
	}
	loop := func(name string, seed uint64, f func(r *rand.Rand, i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 7))
			for i := 0; ctx.Err() == nil; i++ {
				f(r, i)
			}
		}()
	}

	// The watcher, and a writer changing its folder.
	wctx, stopWatch := context.WithCancel(context.Background())
	watchDone := make(chan error, 1)
	go func() {
		watchDone <- eng.Intake().Watch(wctx, watched, engine.WatchOptions{Settle: 200 * time.Millisecond, Interval: time.Second})
	}()
	loop("watch-change", 1, func(r *rand.Rand, i int) {
		name := fmt.Sprintf("w%d", r.IntN(6))
		p := filepath.Join(watched, name+".md")
		step("watch-change", func(context.Context) error {
			if r.IntN(4) == 0 {
				if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
				return nil
			}
			note(t, watched, name, 3+r.IntN(6))
			// A changed file, not only a new one: its content differs each time.
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			fmt.Fprintf(f, "\nRevision %d of %s.\n", i, name)
			return f.Close()
		})
		time.Sleep(time.Duration(100+r.IntN(400)) * time.Millisecond)
	})
	loop("ingest", 2, func(r *rand.Rand, i int) {
		p := note(t, plain, fmt.Sprintf("p%d", i), 2+r.IntN(8))
		step("ingest", func(ctx context.Context) error {
			res, err := eng.Intake().IngestFile(ctx, p, nil)
			if err != nil {
				return err
			}
			if res.Status != engine.Inserted && res.Status != engine.Skipped {
				return fmt.Errorf("%s: %s %s", p, res.Status, res.Error)
			}
			mu.Lock()
			live[res.DocID] = p
			mu.Unlock()
			return nil
		})
	})
	loop("remove", 3, func(r *rand.Rand, i int) {
		time.Sleep(time.Duration(200+r.IntN(600)) * time.Millisecond)
		id, ok := pick(r)
		if !ok {
			return
		}
		step("remove", func(ctx context.Context) error {
			mu.Lock()
			delete(live, id)
			removed[id] = true
			mu.Unlock()
			return eng.Intake().Remove(ctx, id)
		})
	})
	loop("reread", 4, func(r *rand.Rand, i int) {
		time.Sleep(time.Duration(300+r.IntN(700)) * time.Millisecond)
		id, ok := pick(r)
		if !ok {
			return
		}
		step("reread", func(ctx context.Context) error {
			_, err := eng.Intake().Reread(ctx, id, nil)
			mu.Lock()
			gone := removed[id]
			mu.Unlock()
			if err != nil && gone {
				return nil // removed meanwhile: refusing is right
			}
			return err
		})
	})
	loop("ask", 5, func(r *rand.Rand, i int) {
		q := []string{"What did the cabin cost?", "Where did Thoreau build?", "How many nails were counted?", "What is in section 3?"}[r.IntN(4)]
		step("ask", func(ctx context.Context) error {
			opt := asking.Options{Fresh: r.IntN(3) == 0}
			mu.Lock()
			if len(sessions) > 0 && r.IntN(2) == 0 {
				opt.SessionID = sessions[r.IntN(len(sessions))]
			}
			mu.Unlock()
			ans, err := eng.Asking().Ask(ctx, q, opt, nil)
			if err != nil && opt.SessionID != "" && errors.Is(err, library.ErrNotFound) {
				return nil // the session was deleted meanwhile
			}
			if err != nil {
				return err
			}
			mu.Lock()
			if opt.SessionID == "" {
				sessions = append(sessions, ans.SessionID)
			}
			mu.Unlock()
			return nil
		})
		step("search", func(ctx context.Context) error {
			_, err := eng.Search(ctx, "chimney boards", engine.SearchOptions{})
			return err
		})
	})
	loop("edit", 6, func(r *rand.Rand, i int) {
		time.Sleep(time.Duration(300+r.IntN(700)) * time.Millisecond)
		mu.Lock()
		var id string
		if len(sessions) > 0 {
			id = sessions[r.IntN(len(sessions))]
		}
		mu.Unlock()
		switch {
		case id != "" && r.IntN(3) > 0:
			step("session", func(ctx context.Context) error {
				if r.IntN(2) == 0 {
					err := eng.Asking().Rename(ctx, id, fmt.Sprintf("Soak %d", i))
					if errors.Is(err, library.ErrNotFound) {
						return nil
					}
					return err
				}
				mu.Lock()
				for j, s := range sessions {
					if s == id {
						sessions = append(sessions[:j], sessions[j+1:]...)
						break
					}
				}
				mu.Unlock()
				return eng.Asking().Delete(ctx, id)
			})
		case r.IntN(2) == 0:
			step("cache", func(ctx context.Context) error { _, err := eng.Asking().ClearCache(ctx); return err })
		default:
			doc, ok := pick(r)
			if !ok {
				return
			}
			step("cards", func(ctx context.Context) error {
				made, err := eng.MakeCards(ctx, "", []string{doc})
				mu.Lock()
				gone := removed[doc]
				mu.Unlock()
				if err != nil && gone {
					return nil
				}
				if err != nil {
					return err
				}
				cards, err := eng.DueCards(ctx, made.Deck.ID, 3)
				if err != nil {
					return err
				}
				for _, c := range cards {
					if _, err := eng.GradeCard(ctx, c.ID, 1+r.IntN(4)); err != nil && !errors.Is(err, library.ErrNotFound) {
						return err
					}
				}
				return nil
			})
		}
	})
	wg.Wait()
	stopWatch()
	if err := <-watchDone; err != nil && !errors.Is(err, context.Canceled) {
		fail("watch: %v", err)
	}
	var counts []string
	for k, n := range ops {
		counts = append(counts, fmt.Sprintf("%s %d", k, n.Load()))
	}
	sort.Strings(counts)
	t.Logf("soak of %s: %s", length, strings.Join(counts, ", "))
	t.Run("every operation ran and none failed", func(t *testing.T) {
		for _, f := range failures {
			t.Error(f)
		}
		for _, k := range []string{"ingest", "ask", "watch-change"} {
			if ops[k].Load() == 0 {
				t.Errorf("no %s ran in the soak", k)
			}
		}
	})

	want := map[string]string{}
	for id, p := range live {
		want[id] = p
	}
	files, _ := filepath.Glob(filepath.Join(watched, "*.md"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		want[hex.EncodeToString(sum[:])] = p
	}
	// The watcher started again catches up with the folder, as at a start; the library
	// must come to hold exactly want.
	sctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go eng.Intake().Watch(sctx, watched, engine.WatchOptions{Poll: true, Interval: 200 * time.Millisecond, Settle: 50 * time.Millisecond})
	var docs []library.Document
	got := map[string]string{}
	for deadline := time.Now().Add(time.Minute); ; {
		var err error
		if docs, err = eng.Library().Documents(context.Background()); err != nil {
			t.Fatal(err)
		}
		clear(got)
		for _, d := range docs {
			got[d.ID] = d.Path
		}
		if same(got, want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	cancel()
	have := map[string]string{}
	t.Run("sessions asked in and not deleted, and no other", func(t *testing.T) {
		listed, err := eng.Asking().Sessions(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range listed {
			have[s.ID] = s.Title
		}
		kept := map[string]string{}
		for _, id := range sessions {
			kept[id] = ""
		}
		if !same(have, kept) {
			t.Errorf("the library lists %d sessions, the soak kept %d (asked in and not deleted)", len(have), len(kept))
		}
	})
	t.Run("no document failed", func(t *testing.T) {
		for _, d := range docs {
			if d.Status == library.StatusFailed {
				t.Errorf("a document failed in the soak: %s %s", d.Path, d.Error)
			}
		}
	})
	t.Run("the library holds exactly the documents there should be", func(t *testing.T) {
		for id, p := range want {
			if _, ok := got[id]; !ok {
				t.Errorf("missing from the library: %s (%s)", p, id[:12])
			}
		}
		for id, p := range got {
			if _, ok := want[id]; !ok {
				t.Errorf("in the library but removed or changed since: %s (%s)", p, id[:12])
			}
		}
	})
	eng.Close()
	var st crashtest.State
	t.Run("SQLite, bleve and FAISS agree", func(t *testing.T) { st = consistent(t, cfg) })
	t.Logf("after the soak: %d documents (%d in the watched folder), %d chunks, %d vectors, %d sessions", len(docs), len(files), st.Chunks, st.Vectors, len(have))
}

func same(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}
