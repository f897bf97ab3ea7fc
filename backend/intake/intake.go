// Package intake takes documents into an open library and keeps its indexes in step with
// it: a file is admitted (its bytes hashed, a copy being read skipped), read
// (backend/ingest), cut into passages (backend/chunk), stored in SQLite, indexed by its
// words (bleve) and embedded (FAISS), and said ready once a search finds it. Files come
// one at a time (IngestFile) or in bursts through one Queue (the window, the CLI and
// watched folders alike); documents are re-read, re-chunked, embedded late, removed, and
// after a crash the indexes are reconciled with the library. The coordinator
// (backend/engine) opens the stores, hands them over and answers the few questions in
// Coordinator.
package intake

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
)

// Coordinator is what intake needs of the open library's coordinator (backend/engine).
type Coordinator interface {
	// Writable is nil when the library can be changed, else the reason it cannot.
	Writable() error
	// Embedding is the embedding model as it stands now.
	Embedding(ctx context.Context) Embedding
	// Media are the options for reading recordings (the transcriber chosen).
	Media() ingest.MediaOptions
	// Changed says a document's passages changed or went: answers that used it are stale.
	Changed(ctx context.Context, docID string)
	// Ingested says a burst of ingest ended (an IngestFile, a queue running dry, an
	// EmbedPending that embedded something): the relevance threshold may be measured
	// again.
	Ingested(ctx context.Context)
}

// Embedding is the state of the embedding model.
type Embedding struct {
	Model string
	// OK: installed and reachable.
	OK bool
	// Embed embeds texts with Model (the caller adds the task prefixes).
	Embed func(ctx context.Context, texts []string) ([][]float32, error)
}

// LexicalDir is the word index's folder in the library folder.
const LexicalDir = "bleve"

// Stores are the open library's parts intake writes.
type Stores struct {
	// Dir is the library folder: the document info, attachments, chunk sizes and the
	// word index's files live under it.
	Dir string
	Lib *library.Library
	Lex *index.Lexical
	Vec *index.Vectors
	// EmbedBatch is how many passages go to the embedding model at once.
	EmbedBatch int
}

// Intake takes documents into one open library. It is safe for concurrent use.
type Intake struct {
	co  Coordinator
	dir string
	lib *library.Library
	lex *index.Lexical
	vec *index.Vectors
	// embedBatch: Stores.EmbedBatch.
	embedBatch int

	// mu serialises index writes of different documents.
	mu sync.Mutex
	// inflight holds the ids of documents being ingested.
	inflightMu sync.Mutex
	inflight   map[string]bool
}

// New makes the intake of an open library.
func New(co Coordinator, s Stores) *Intake {
	return &Intake{co: co, dir: s.Dir, lib: s.Lib, lex: s.Lex, vec: s.Vec, embedBatch: s.EmbedBatch, inflight: map[string]bool{}}
}

// Lexical is the word index: the one opened, or the one Reconcile rebuilt in its place.
func (in *Intake) Lexical() *index.Lexical { return in.lex }

// Closing waits for the index writes in progress and holds off new ones until done is
// called, so that the coordinator can close the stores under no writer.
func (in *Intake) Closing() (done func()) {
	in.mu.Lock()
	return in.mu.Unlock
}

// ResetEmbedded marks every passage for embedding again (the embedding model changed),
// between documents' index writes.
func (in *Intake) ResetEmbedded(ctx context.Context) error {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.lib.ResetEmbedded(ctx)
}

// claim marks a document as being ingested; it reports false if it already is.
func (in *Intake) claim(id string) bool {
	in.inflightMu.Lock()
	defer in.inflightMu.Unlock()
	if in.inflight[id] {
		return false
	}
	in.inflight[id] = true
	return true
}

func (in *Intake) release(id string) {
	in.inflightMu.Lock()
	delete(in.inflight, id)
	in.inflightMu.Unlock()
}

// writable is the coordinator's Writable.
func (in *Intake) writable() error { return in.co.Writable() }

// chunkProfiles returns the chunk sizes per document type: the defaults, overridden by
// DIR/chunking.json when there is one (a broken file is reported and ignored).
func (in *Intake) chunkProfiles() chunk.Profiles {
	p, err := chunk.LoadProfiles(filepath.Join(in.dir, chunk.ProfilesFile))
	if err != nil {
		slog.Warn("intake: chunk sizes from the defaults", "err", err)
	}
	return p
}
