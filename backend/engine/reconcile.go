package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/library"
)

// reconcile makes both indexes agree with SQLite, the source of truth, after a crash or
// kill: vectors of chunks that no longer exist are removed, chunks whose vectors were lost
// are marked for embedding again, and a lexical index that disagrees is rebuilt. Documents
// chunked before parents existed are re-chunked first.
func (e *Engine) reconcile(ctx context.Context) error {
	if _, err := e.rechunkUnparented(ctx); err != nil {
		return fmt.Errorf("re-chunk documents of an older library: %w", err)
	}
	embedded, err := e.lib.EmbeddedSeqs(ctx)
	if err != nil {
		return err
	}
	want := make(map[int64]bool, len(embedded))
	for _, s := range embedded {
		want[s] = true
	}
	var orphans []int64
	have := map[int64]bool{}
	for _, id := range e.vec.IDs() {
		have[id] = true
		if !want[id] {
			orphans = append(orphans, id)
		}
	}
	if len(orphans) > 0 {
		if err := e.vec.Remove(orphans); err != nil {
			return fmt.Errorf("remove stale vectors: %w", err)
		}
		if err := e.vec.Save(); err != nil {
			return err
		}
	}
	var lost []int64
	for _, s := range embedded {
		if !have[s] {
			lost = append(lost, s)
		}
	}
	if err := e.lib.MarkEmbedded(ctx, lost, false); err != nil {
		return err
	}

	units, err := e.lexicalUnits(ctx)
	if err != nil {
		return err
	}
	if n, err := e.lex.Count(); err != nil || n != uint64(units) {
		return e.rebuildLexical(ctx)
	}
	return nil
}

// rebuildLexical re-indexes every parent (or chunk: lexicalOnParents) into a fresh
// lexical index.
func (e *Engine) rebuildLexical(ctx context.Context) error {
	if err := e.lex.Close(); err != nil {
		return err
	}
	if err := emptyDir(e.lexDir()); err != nil {
		return fmt.Errorf("remove lexical index: %w", err)
	}
	lex, err := index.OpenLexical(e.lexDir())
	if err != nil {
		return fmt.Errorf("recreate lexical index: %w", err)
	}
	e.lex = lex
	batch := make([]index.LexDoc, 0, 512)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := e.lex.Add(batch)
		batch = batch[:0]
		return err
	}
	add := func(c library.Chunk, title string) error {
		batch = append(batch, lexDoc(c, c.DocID, title, lexicalOnParents))
		if len(batch) == cap(batch) {
			return flush()
		}
		return nil
	}
	if lexicalOnParents {
		err = e.lib.EachParent(ctx, add)
	} else {
		err = e.lib.EachChunk(ctx, add)
	}
	if err != nil {
		return fmt.Errorf("rebuild lexical index: %w", err)
	}
	return flush()
}

// openLexical opens the lexical index, starting a fresh one when the stored one was
// written by an incompatible version (reconcile then fills it from SQLite).
func openLexical(dir string) (*index.Lexical, error) {
	lex, err := index.OpenLexical(dir)
	if errors.Is(err, index.ErrSchemaMismatch) {
		if err := emptyDir(dir); err != nil {
			return nil, err
		}
		lex, err = index.OpenLexical(dir)
	}
	return lex, err
}
