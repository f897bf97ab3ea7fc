package intake

import (
	"runtime/debug"
	"sync"

	"github.com/carrel-app/carrel/backend/envconfig"
)

// Garbage collection during an ingest burst: an ingest allocates several times
// its input (pdfcpu's objects, page text, bleve's analysis) that is garbage a moment
// later, while the live heap stays small. Collecting at 4x the live heap rather than
// 2x cut a tenth of the CPU of ingesting the pdfcpu corpus; the soft memory limit
// keeps a large library's burst from growing the heap past what the default would
// have reached by much. GOGC or GOMEMLIMIT set in the environment are left alone.
const (
	ingestGCPercent = 400
	ingestMemLimit  = 1 << 30
)

var (
	gcMu    sync.Mutex
	gcUsers int
	gcPrev  int
	gcLimit int64
)

// ingestGC raises the GC target for the length of an ingest and returns what
// restores it; overlapping ingests share one raise.
func ingestGC() (restore func()) {
	if envconfig.GCTunedByUser() {
		return func() {}
	}
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcUsers == 0 {
		gcPrev = debug.SetGCPercent(ingestGCPercent)
		gcLimit = debug.SetMemoryLimit(ingestMemLimit)
	}
	gcUsers++
	return func() {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcUsers--; gcUsers == 0 {
			debug.SetGCPercent(gcPrev)
			debug.SetMemoryLimit(gcLimit)
		}
	}
}
