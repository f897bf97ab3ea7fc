// Package faulttest holds tests of Carrel under faults a user's machine deals out: a
// full disk (a small tmpfs the tests mount, as root) during an ingest and during an index
// save, a library on a read-only folder, damaged index and database files, and an Ollama
// that is killed, frozen or loses its model while Carrel uses it. Each test shows the
// behaviour Carrel promises: a clear error, nothing corrupt (internal/crashtest.Check),
// and work that succeeds once the fault is gone.
package faulttest
