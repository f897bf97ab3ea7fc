package workspace

import "sync"

// Gate keeps calls off an engine while the library folder is switched (one engine
// closed, another opened in its place): each call holds it shared for its duration, a
// switch exclusively. Both bridges to the frontend, the desktop app's bound methods and
// the browser's HTTP calls, pass through the same Gate, so neither can reach a library
// that is closing.
//
// A waiting switch holds off new calls (so a stream of calls cannot starve it), which
// means a call must not enter again while inside: a bridge method that needs another's
// work calls its unexported form. Work that a switch waits for (background ingests,
// answers) must not enter either.
type Gate struct {
	mu sync.RWMutex
}

// Enter waits while a switch is running or waiting, then holds the gate shared until the
// returned function is called: `defer gate.Enter()()`.
func (g *Gate) Enter() (leave func()) {
	g.mu.RLock()
	var once sync.Once
	return func() { once.Do(g.mu.RUnlock) }
}

// Switch waits until no call is inside, then holds the gate exclusively until the
// returned function is called.
func (g *Gate) Switch() (done func()) {
	g.mu.Lock()
	var once sync.Once
	return func() { once.Do(g.mu.Unlock) }
}
