// Package crashpoint kills the process at named points of Carrel's writes, for the
// crash-injection tests (internal/crashtest). Unarmed, a point costs one load of a bool.
//
// Armed by the environment: CARREL_CRASHPOINT=NAME:N sends the process SIGKILL the N-th
// time NAME is reached (a kill the process cannot catch, as a power cut or the OOM
// killer would deal); CARREL_CRASHPOINT=count only counts, and [Counts] reports how often
// each point was reached, so a test can choose an N that lands inside the operation.
package crashpoint

import (
	"strconv"
	"strings"
	"sync"

	"github.com/carrel-app/carrel/backend/envconfig"
)

// Env is the variable that arms the points.
const Env = envconfig.CrashpointVar

var (
	armed  bool
	target string
	at     int

	mu     sync.Mutex
	counts = map[string]int{}
)

func init() {
	v := envconfig.Crashpoint()
	if v == "" {
		return
	}
	armed = true
	if name, n, ok := strings.Cut(v, ":"); ok {
		if k, err := strconv.Atoi(n); err == nil && k > 0 {
			target, at = name, k
		}
	}
}

// Hit marks that the process reached the point name; armed for it, the N-th hit kills
// the process.
func Hit(name string) {
	if !armed {
		return
	}
	mu.Lock()
	counts[name]++
	n := counts[name]
	mu.Unlock()
	if name == target && n == at {
		kill()
	}
}

// Counts returns how many times each point was reached since the process started (only
// when armed).
func Counts() map[string]int {
	mu.Lock()
	defer mu.Unlock()
	out := make(map[string]int, len(counts))
	for k, v := range counts {
		out[k] = v
	}
	return out
}
