package workspace

import (
	"sync"
	"sync/atomic"
	"testing"
)

// verifies a switch waits for the calls inside, keeps new calls out while it runs, and is
// not starved by a stream of calls.
func TestGate(t *testing.T) {
	var g Gate
	var switching atomic.Bool
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for !stop.Load() {
				leave := g.Enter()
				if switching.Load() {
					t.Error("a call entered during a switch")
				}
				leave()
				leave() // twice is harmless
			}
		})
	}
	for range 50 {
		done := g.Switch()
		switching.Store(true)
		switching.Store(false)
		done()
	}
	stop.Store(true)
	wg.Wait()
}
