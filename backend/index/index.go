// Package index holds Carrel's two persistent search indexes over chunks:
//
//   - [Vectors]: dense embeddings in FAISS (through the cgo binding in
//     [github.com/carrel-app/carrel/backend/index/faiss]), searched by cosine
//     similarity.
//   - [Lexical]: a bleve full-text index scored with BM25, tuned for natural
//     questions and for identifiers typed verbatim.
//
// Both are derived data: SQLite holds the chunks, and the engine can rebuild
// either index from it. Each is crash-safe on its own (Vectors.Save replaces
// files by rename; bleve's scorch persists each batch before returning), and
// [Vectors.IDs] lets the engine reconcile the vectors with SQLite after a
// crash.
package index

import (
	"errors"
	"os"
	"path/filepath"
)

var (
	// ErrModelMismatch means the vector index was built with another
	// embedding model or dimension; the engine must Reset and re-embed.
	ErrModelMismatch = errors.New("index: embedding model mismatch")
	// ErrNoModel means Vectors was used before Ensure or Reset.
	ErrNoModel = errors.New("index: vectors have no model yet; call Ensure")
	// ErrSchemaMismatch means the lexical index on disk was built by an
	// incompatible version of this package; delete it and re-index.
	ErrSchemaMismatch = errors.New("index: lexical index schema mismatch")
	// ErrClosed is returned by the methods of a closed index.
	ErrClosed = errors.New("index: closed")
)

// writeFileSync writes data to path and fsyncs it before closing.
func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// renameDurable renames tmp over final and syncs the directory.
func renameDurable(tmp, final string) error {
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	return syncDir(filepath.Dir(final))
}
