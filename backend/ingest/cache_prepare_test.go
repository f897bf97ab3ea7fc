package ingest

import (
	"context"
	"testing"
)

// verifies PrepareCache on the tests' shared compilation cache: when it is empty (a
// fresh machine; this file sorts first so that it runs before any test starts PDFium) it
// compiles PDFium into it, when it is filled it does nothing, and either way no engine is
// left running. (Compiling into a fresh cache on every run would cost a minute of CPU.)
func TestPrepareCache(t *testing.T) {
	if err := Shutdown(); err != nil {
		t.Fatal(err)
	}
	before := cached(moduleCacheDir())
	compiled, err := PrepareCache(context.Background())
	if err != nil || compiled == before {
		t.Fatalf("PrepareCache with the cache filled=%v: compiled=%v, %v", before, compiled, err)
	}
	if !cached(moduleCacheDir()) {
		t.Fatal("nothing in the cache after PrepareCache")
	}
	if engineRunning() {
		t.Fatal("PrepareCache left an engine running")
	}
	if compiled, err := PrepareCache(context.Background()); err != nil || compiled {
		t.Fatalf("PrepareCache on a filled cache = %v, %v", compiled, err)
	}
	t.Logf("compiled now: %v", compiled)
}
