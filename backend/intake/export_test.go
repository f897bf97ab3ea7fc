package intake

import "context"

// What the external tests (package intake_test, which open a real engine) look at inside.

// SetLexBatchSize sets how many word index entries a burst gathers before writing them,
// and returns what restores the size before.
func SetLexBatchSize(n int) (restore func()) {
	old := lexBatchSize
	lexBatchSize = n
	return func() { lexBatchSize = old }
}

// LexicalUnits is the number of entries the word index should hold.
func (in *Intake) LexicalUnits(ctx context.Context) (int, error) { return in.lexicalUnits(ctx) }

// Waiting is how many files wait in the queue.
func (q *Queue) Waiting() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}
