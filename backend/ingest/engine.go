package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// The process-wide engine, started on first use. PDFium is needed only for the pages
// our own extractor cannot read, for respacing and for OCR, so an app may never start
// it; once started it holds a compiled module and instance memory (hundreds of MB), which
// [SetIdleRelease] lets go of when no PDF has needed it for a while.
var shared struct {
	mu  sync.Mutex
	e   *engine
	err error
	// holders counts the ingests using e (useEngine); e is released only at 0.
	holders   int
	lastUse   time.Time
	idleAfter time.Duration // 0: never released
	timer     *time.Timer
}

// sharedEngine returns the process-wide engine, starting it if needed. It
// has runtime.NumCPU() instances and a compilation cache in
// [CacheDir]/wazero.
func sharedEngine() (*engine, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	return sharedEngineLocked()
}

func sharedEngineLocked() (*engine, error) {
	if shared.e != nil || shared.err != nil {
		return shared.e, shared.err
	}
	start := time.Now()
	shared.e, shared.err = newEngine(moduleCacheDir(), runtime.NumCPU())
	if shared.e != nil {
		slog.Info("ingest: PDFium started", "took", time.Since(start).Round(time.Millisecond), "instances", shared.e.size)
	}
	return shared.e, shared.err
}

// useEngine returns the process-wide engine, starting it if needed, and keeps it from
// being released for idleness until done is called.
func useEngine() (e *engine, done func(), err error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	e, err = sharedEngineLocked()
	if err != nil {
		return nil, func() {}, err
	}
	shared.holders++
	var once sync.Once
	return e, func() { once.Do(doneUsing) }, nil
}

func doneUsing() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.holders--
	shared.lastUse = time.Now()
	if shared.holders > 0 || shared.idleAfter <= 0 {
		return
	}
	if shared.timer == nil {
		shared.timer = time.AfterFunc(shared.idleAfter, releaseIfIdle)
	} else {
		shared.timer.Reset(shared.idleAfter)
	}
}

// SetIdleRelease makes the PDFium engine stop, freeing its memory, once no PDF has
// used it for d (0, the default, keeps it until [Shutdown]). The next PDF that needs it
// starts it again from the compilation cache (see [PrepareCache]).
func SetIdleRelease(d time.Duration) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	shared.idleAfter = d
}

func releaseIfIdle() {
	shared.mu.Lock()
	e := shared.e
	if e == nil || shared.holders > 0 || shared.idleAfter <= 0 || time.Since(shared.lastUse) < shared.idleAfter {
		shared.mu.Unlock()
		return
	}
	shared.e = nil
	shared.mu.Unlock()
	if err := e.close(); err != nil {
		slog.Warn("ingest: stopping the idle PDF engine", "err", err)
	}
	freeMemory()
	slog.Info("ingest: PDFium released after being idle", "idle", shared.idleAfter)
}

// freeMemory hands the engine's freed heap back to the OS now rather than over the
// next minutes, so that the app's footprint drops when the engine goes.
func freeMemory() { debug.FreeOSMemory() }

// moduleCacheDir is where wazero keeps compiled PDFium: [CacheDir]/wazero, or "".
func moduleCacheDir() string {
	dir := CacheDir()
	if dir != "" {
		dir = filepath.Join(dir, "wazero")
	}
	return dir
}

// PrepareCache compiles PDFium into the compilation cache when the cache holds no
// compiled module yet, then frees it all again. Compiling takes seconds and loading from
// the cache well under one, so an app calls this in the background after launch: the
// first PDF that needs PDFium starts quickly, and an app that never meets one keeps no
// PDFium in memory. It reports whether it compiled.
func PrepareCache(ctx context.Context) (bool, error) {
	dir := moduleCacheDir()
	if dir == "" || ctx.Err() != nil {
		return false, ctx.Err()
	}
	if cached(dir) {
		return false, nil
	}
	shared.mu.Lock()
	running := shared.e != nil
	shared.mu.Unlock()
	if running {
		return false, nil // it compiled into the cache as it started
	}
	start := time.Now()
	e, err := newEngine(dir, 1)
	if err != nil {
		return false, err
	}
	if err := e.close(); err != nil {
		return true, fmt.Errorf("ingest: close the PDF engine after compiling: %w", err)
	}
	freeMemory()
	slog.Info("ingest: PDFium compiled into the cache", "took", time.Since(start).Round(time.Millisecond), "dir", dir)
	return true, nil
}

// cached reports whether dir holds any file (wazero writes one per compiled module, in a
// folder per wazero version).
func cached(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			found = true
			return fs.SkipAll
		}
		return nil
	})
	return found
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
	if shared.timer != nil {
		shared.timer.Stop()
	}
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
