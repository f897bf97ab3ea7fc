package ingest

import (
	"context"
	"os"
	"testing"
	"time"
)

func engineRunning() bool {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	return shared.e != nil
}

// verifies the idle release: an engine in use is never released however long the use
// lasts, one unused for the idle time is stopped, and the next use starts it again and
// reads pages with it.
func TestIdleRelease(t *testing.T) {
	if err := Shutdown(); err != nil {
		t.Fatal(err)
	}
	const idle = 300 * time.Millisecond
	SetIdleRelease(idle)
	defer SetIdleRelease(0)

	e, done, err := useEngine()
	if err != nil {
		t.Fatal(err)
	}
	in, err := e.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	e.release(in)
	time.Sleep(3 * idle)
	if !engineRunning() {
		t.Fatal("the engine was released while in use")
	}
	done()
	done() // a second call must not count twice
	for deadline := time.Now().Add(10 * idle); engineRunning(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the engine is still running %v after its last use", 10*idle)
		}
	}

	// Started again on the next use, from the compilation cache.
	start := time.Now()
	e, done, err = useEngine()
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	data, err := os.ReadFile(corpusFile(t, "Walden.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := extractPDF(context.Background(), e, data, "", nil, nil)
	if err != nil || len(res.pages) != 2 {
		t.Fatalf("after the release: %v", err)
	}
	t.Logf("restart and 2 pages took %v", time.Since(start))
}
