package intake_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/intake"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testengine"
)

// notes writes n Markdown files, the i-th about word i and (i+1)×size bytes long.
func notes(t *testing.T, n, size int) (paths, words []string) {
	t.Helper()
	dir := t.TempDir()
	for i := range n {
		w := fmt.Sprintf("quokka%c%c", 'a'+i%26, 'a'+i/26)
		body := "# Note " + w + "\n\n" + strings.Repeat("The "+w+" keeps its notes in a notebook by the shore. ", (i+1)*size/50+1) + "\n"
		p := filepath.Join(dir, w+".md")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		paths, words = append(paths, p), append(words, w)
	}
	return paths, words
}

// verifies a queue says a document is ready, in the library, to Progress and to Done,
// only once a search finds it, though its lexical entries wait in the batch: each file's
// Done comes once, with the document searchable at that moment.
func TestQueueReadyMeansSearchable(t *testing.T) {
	eng := testengine.Open(t, engine.Config{})
	paths, words := notes(t, 12, 400)
	wordOf := map[string]string{}
	for i, p := range paths {
		wordOf[p] = words[i]
	}
	found := func(d library.Document, w string) bool {
		hits, err := eng.Intake().Lexical().Search(w, 1, []string{d.ID})
		return err == nil && len(hits) > 0
	}
	var mu sync.Mutex
	var problems, polledProblems []string // the queue's callbacks', the poller's
	ready, done := map[string]int{}, map[string]int{}
	// What a caller polling the library sees (the browser bridge's tests do).
	stop := make(chan struct{})
	polled := make(chan int)
	go func() {
		n := 0
		defer func() { polled <- n }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			docs, _ := eng.Library().Documents(context.Background())
			for _, d := range docs {
				if d.Status == library.StatusReady {
					n++
					if !found(d, wordOf[d.Path]) {
						mu.Lock()
						polledProblems = append(polledProblems, "ready in the library before searchable: "+d.Path)
						mu.Unlock()
					}
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	q := eng.Intake().NewQueue(context.Background(), intake.QueueOptions{Workers: 2,
		Progress: func(d library.Document) {
			if d.Status != library.StatusReady {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			ready[d.Path]++
			if !found(d, wordOf[d.Path]) {
				problems = append(problems, "ready before searchable: "+d.Path)
			}
		},
		Done: func(path string, r intake.Result, err error) {
			mu.Lock()
			defer mu.Unlock()
			done[path]++
			if err != nil || r.Status != intake.Inserted || !found(library.Document{ID: r.DocID}, wordOf[path]) {
				problems = append(problems, fmt.Sprintf("done %s: %+v %v", path, r, err))
			}
		}})
	// Two bursts: files given at once, then more after the first ran dry.
	if err := q.Add(paths[:8]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first 8 files", func() bool { mu.Lock(); defer mu.Unlock(); return len(done) == 8 })
	if err := q.Add(paths[8:]); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	n := <-polled
	t.Run("ready in the library only when searchable", func(t *testing.T) {
		if n == 0 {
			t.Error("the poller never saw a ready document")
		}
		for _, p := range polledProblems {
			t.Error(p)
		}
	})
	t.Run("ready and done once per file", func(t *testing.T) {
		for _, p := range paths {
			if ready[p] != 1 || done[p] != 1 {
				t.Errorf("%s: ready said %d times, done %d times", filepath.Base(p), ready[p], done[p])
			}
		}
	})
	t.Run("searchable at Progress and Done", func(t *testing.T) {
		for _, p := range problems {
			t.Error(p)
		}
	})
}

// verifies the order a queue reads files in: those given with AddFirst, then the largest
// waiting, then first come among equals (files that cannot be read last).
func TestQueueOrder(t *testing.T) {
	eng := testengine.Open(t, engine.Config{})
	paths, _ := notes(t, 5, 2000) // sizes grow with the index
	missing := filepath.Join(t.TempDir(), "gone.md")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var order []string
	seen := map[string]bool{}
	// One worker, held on the first file until everything is queued.
	hold := make(chan struct{})
	q := eng.Intake().NewQueue(ctx, intake.QueueOptions{Workers: 1,
		Progress: func(d library.Document) {
			if d.Path == paths[0] && !seen[d.Path] {
				<-hold
			}
			mu.Lock()
			defer mu.Unlock()
			if !seen[d.Path] {
				seen[d.Path] = true
				order = append(order, filepath.Base(d.Path))
			}
		},
		Done: func(path string, r intake.Result, err error) {
			if path == missing {
				mu.Lock()
				order = append(order, filepath.Base(path))
				mu.Unlock()
			}
		}})
	if err := q.Add(paths[:1]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first file taken", func() bool { return q.Waiting() == 0 })
	if err := q.Add([]string{missing, paths[1], paths[3], paths[2]}); err != nil {
		t.Fatal(err)
	}
	if err := q.AddFirst(paths[4:]); err != nil {
		t.Fatal(err)
	}
	close(hold)
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"quokkaaa.md", "quokkaea.md", "quokkada.md", "quokkaca.md", "quokkaba.md", "gone.md"}
	if fmt.Sprint(order) != fmt.Sprint(want) {
		t.Errorf("read in the order %v, want %v", order, want)
	}
}

// verifies a queue refuses, whole, files past its bound, and drops what waits when its
// context ends.
func TestQueueBoundAndCancel(t *testing.T) {
	eng := testengine.Open(t, engine.Config{})
	paths, _ := notes(t, 6, 200)
	ctx, cancel := context.WithCancel(context.Background())
	hold := make(chan struct{})
	var mu sync.Mutex
	n := 0
	q := eng.Intake().NewQueue(ctx, intake.QueueOptions{Workers: 1, Max: 4,
		Done: func(string, intake.Result, error) {
			<-hold
			mu.Lock()
			n++
			mu.Unlock()
		}})
	if err := q.Add(paths[:1]); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first file taken", func() bool { return q.Waiting() == 0 })
	if err := q.Add(paths[1:]); !errors.Is(err, intake.ErrQueueFull) {
		t.Fatalf("5 files into a queue of 4: %v", err)
	}
	if err := q.Add(paths[1:5]); err != nil {
		t.Fatal(err)
	}
	cancel()
	close(hold)
	q.Close()
	if n > 2 {
		t.Errorf("%d files were read after the context ended", n)
	}
	if err := q.Add(paths[5:]); err == nil {
		t.Error("a closed queue took a file")
	}
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
