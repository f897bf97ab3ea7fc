package intake

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/library"
)

// Reconcile makes both indexes agree with SQLite, the source of truth, after a crash or
// kill: vectors of chunks that no longer exist are removed, chunks whose vectors were lost
// are marked for embedding again, and a lexical index that disagrees is rebuilt. Documents
// chunked before parents existed are re-chunked first.
func (in *Intake) Reconcile(ctx context.Context) error {
	if _, err := in.rechunkUnparented(ctx); err != nil {
		return fmt.Errorf("re-chunk documents of an older library: %w", err)
	}
	embedded, err := in.lib.EmbeddedSeqs(ctx)
	if err != nil {
		return err
	}
	want := make(map[int64]bool, len(embedded))
	for _, s := range embedded {
		want[s] = true
	}
	var orphans []int64
	have := map[int64]bool{}
	for _, id := range in.vec.IDs() {
		have[id] = true
		if !want[id] {
			orphans = append(orphans, id)
		}
	}
	if len(orphans) > 0 {
		if err := in.vec.Remove(orphans); err != nil {
			return fmt.Errorf("remove stale vectors: %w", err)
		}
		if err := in.vec.Save(); err != nil {
			return err
		}
	}
	var lost []int64
	for _, s := range embedded {
		if !have[s] {
			lost = append(lost, s)
		}
	}
	if err := in.lib.MarkEmbedded(ctx, lost, false); err != nil {
		return err
	}

	units, err := in.lexicalUnits(ctx)
	if err != nil {
		return err
	}
	if n, err := in.lex.Count(); err != nil || n != uint64(units) {
		return in.rebuildLexical(ctx)
	}
	return nil
}

// rebuildLexical re-indexes every parent (or chunk: lexicalOnParents) into a fresh
// lexical index.
func (in *Intake) rebuildLexical(ctx context.Context) error {
	if err := in.lex.Close(); err != nil {
		return err
	}
	lex, err := FreshLexical(filepath.Join(in.dir, LexicalDir))
	if err != nil {
		return fmt.Errorf("recreate lexical index: %w", err)
	}
	in.lex = lex
	batch := make([]index.LexDoc, 0, 512)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := in.lex.Add(batch)
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
		err = in.lib.EachParent(ctx, add)
	} else {
		err = in.lib.EachChunk(ctx, add)
	}
	if err != nil {
		return fmt.Errorf("rebuild lexical index: %w", err)
	}
	return flush()
}

// FreshLexical removes the word index in dir and opens an empty one in its place
// (Reconcile fills it from the library). What dir holds is removed, not dir itself: it
// may be a mount point or a link of the user's.
func FreshLexical(dir string) (*index.Lexical, error) {
	if err := emptyDir(dir); err != nil {
		return nil, fmt.Errorf("remove the word index: %w", err)
	}
	return index.OpenLexical(dir)
}

// emptyDir removes what dir holds, keeping dir itself.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
