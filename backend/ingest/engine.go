package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// engine is a bounded set of PDFium instances sharing one wazero runtime
// and one compiled module. Instances are created on demand, kept while they
// work, and replaced when one fails in a way that may have left it broken.
type engine struct {
	pool  pdfium.Pool
	size  int
	idle  chan pdfium.Pdfium // instances ready for work
	slots chan struct{}      // one token per instance not yet created
	// Startup is how long creating the runtime and compiling (or loading
	// from cache) the module took.
	startup time.Duration
}

// newEngine compiles PDFium's WebAssembly module (or loads it from the
// compilation cache in cacheDir, if not "") and prepares up to size
// instances.
func newEngine(cacheDir string, size int) (*engine, error) {
	start := time.Now()
	size = max(size, 1)
	rc := wazero.NewRuntimeConfig().
		// The bundled module lowers setjmp/longjmp to exception handling.
		WithCoreFeatures(api.CoreFeaturesV2 | experimental.CoreFeaturesExceptionHandling)
	// WithCloseOnContextDone would let a stuck page be interrupted, but it
	// makes extraction about 3× slower; we check ctx between pages instead.
	if cacheDir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(cacheDir)
		if err != nil {
			slog.Warn("ingest: wazero compilation cache unavailable; PDFium will be compiled at every start", "dir", cacheDir, "err", err)
		} else {
			rc = rc.WithCompilationCache(cache)
		}
	}
	pool, err := webassembly.Init(webassembly.Config{
		MinIdle:       0,
		MaxIdle:       size,
		MaxTotal:      size,
		RuntimeConfig: rc,
		// No file system: documents are handed over in memory, and PDFium
		// is not given access to the user's files.
		FSConfig:     wazero.NewFSConfig(),
		Stdout:       io.Discard,
		Stderr:       io.Discard,
		ReuseWorkers: true,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errEngine, err)
	}
	e := &engine{
		pool:    pool,
		size:    size,
		idle:    make(chan pdfium.Pdfium, size),
		slots:   make(chan struct{}, size),
		startup: time.Since(start),
	}
	for range size {
		e.slots <- struct{}{}
	}
	return e, nil
}

// acquire returns an instance, waiting for one to be free if all are busy.
func (e *engine) acquire(ctx context.Context) (pdfium.Pdfium, error) {
	select {
	case in := <-e.idle:
		return in, nil
	default:
	}
	select {
	case in := <-e.idle:
		return in, nil
	case <-e.slots:
		in, err := e.pool.GetInstanceWithContext(ctx)
		if err != nil {
			e.slots <- struct{}{}
			return nil, fmt.Errorf("%w: start PDFium instance: %v", errEngine, err)
		}
		return in, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// tryAcquire returns an instance if one is free or can be created at once.
func (e *engine) tryAcquire(ctx context.Context) (pdfium.Pdfium, bool) {
	select {
	case in := <-e.idle:
		return in, true
	case <-e.slots:
		in, err := e.pool.GetInstanceWithContext(ctx)
		if err != nil {
			e.slots <- struct{}{}
			return nil, false
		}
		return in, true
	default:
		return nil, false
	}
}

// release gives a healthy instance back.
func (e *engine) release(in pdfium.Pdfium) { e.idle <- in }

// discard drops an instance that may be broken (a trap or a panic inside
// PDFium) and frees its slot for a fresh one.
func (e *engine) discard(in pdfium.Pdfium) {
	func() {
		defer func() { _ = recover() }()
		_ = in.Kill()
	}()
	e.slots <- struct{}{}
}

func (e *engine) close() error { return e.pool.Close() }

// The process-wide engine, started on first use.
var shared struct {
	mu  sync.Mutex
	e   *engine
	err error
}

// sharedEngine returns the process-wide engine, starting it if needed. It
// has runtime.NumCPU() instances and a compilation cache in
// [CacheDir]/wazero.
func sharedEngine() (*engine, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.e != nil || shared.err != nil {
		return shared.e, shared.err
	}
	dir := CacheDir()
	if dir != "" {
		dir = filepath.Join(dir, "wazero")
	}
	shared.e, shared.err = newEngine(dir, runtime.NumCPU())
	if shared.e != nil {
		slog.Debug("ingest: PDFium started", "took", shared.e.startup, "instances", shared.e.size, "cache", dir)
	}
	return shared.e, shared.err
}

// CacheDir is where ingest keeps its caches (today only the compiled PDFium
// module): $CARREL_CACHE_DIR if set, else the user cache directory's
// "carrel" folder. It returns "" when neither can be determined.
func CacheDir() string {
	if d := envconfig.CacheDir(); d != "" {
		return d
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "carrel")
}

// Warmup starts the PDFium engine now rather than at the first PDF, and
// returns how long the start took. The first start on a machine compiles
// PDFium (seconds); later starts load it from the cache (well under a
// second). An app calls it in the background at launch.
func Warmup(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	e, err := sharedEngine()
	if err != nil {
		return 0, err
	}
	in, err := e.acquire(ctx)
	if err != nil {
		return 0, err
	}
	e.release(in)
	return time.Since(start), nil
}

// Shutdown stops the PDFium engine and frees its memory. Ingesting a PDF
// afterwards starts a new engine. It must not be called while a PDF is
// being ingested.
func Shutdown() error {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	e := shared.e
	shared.e, shared.err = nil, nil
	if e == nil {
		return nil
	}
	return e.close()
}

var (
	// errPanic wraps a panic recovered from pdfcpu or PDFium.
	errPanic = errors.New("internal error")
	// errEngine: PDFium could not be started; not the document's fault.
	errEngine = errors.New("the PDF engine could not start")
)

// panicError turns a panic recovered in where into the error the document fails with,
// and logs the panic's stack: the reason the user sees names it, the log says where.
func panicError(where string, v any) error {
	slog.Error("ingest: recovered a panic", "in", where, "panic", v, "stack", stack())
	return fmt.Errorf("%w in %s: %v", errPanic, where, v)
}

// recovered logs a panic recovered from a best-effort step (a title, an outline, a
// probe), which the document is read without, and returns a warning for the document.
// Such a panic is a bug in a parser or in ours; it must be seen, not swallowed.
func recovered(step string, v any) string {
	slog.Warn("ingest: a step panicked; the document is read without it", "step", step, "panic", v, "stack", stack())
	return fmt.Sprintf("The %s could not be read (internal error: %v); the document was read without it.", step, v)
}

// stack is the current goroutine's stack, trimmed; called in a deferred recover it
// shows where the panic happened.
func stack() string {
	s := string(debug.Stack())
	if len(s) > 4000 {
		s = s[:4000] + "…"
	}
	return s
}
