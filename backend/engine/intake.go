package engine

import (
	"context"

	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/intake"
)

// Ingest's types and values (backend/intake), by the names the engine's callers use.
type (
	Result       = intake.Result
	IngestStatus = intake.IngestStatus
	ProgressFunc = intake.ProgressFunc
	Queue        = intake.Queue
	QueueOptions = intake.QueueOptions
	DocInfo      = intake.DocInfo
	WatchOptions = intake.WatchOptions
	WatchSync    = intake.WatchSync
)

// Ingest outcomes.
const (
	Inserted = intake.Inserted
	Skipped  = intake.Skipped
	Failed   = intake.Failed
)

// Intake takes documents into the library and keeps its indexes in step with it: files
// one at a time or through a queue, watched folders, re-reading, re-chunking, late
// embedding, removing (backend/intake).
func (e *Engine) Intake() *intake.Intake { return e.in }

// intakePort is the engine as backend/intake sees it.
type intakePort struct{ e *Engine }

func (p intakePort) Writable() error { return p.e.CheckWritable() }

func (p intakePort) Embedding(ctx context.Context) intake.Embedding {
	st := p.e.Status(ctx)
	model := p.e.Config().EmbedModel
	return intake.Embedding{Model: model, OK: st.embedOK, Embed: func(ctx context.Context, texts []string) ([][]float32, error) {
		return p.e.ollama.Embed(ctx, model, texts)
	}}
}

func (p intakePort) Media() ingest.MediaOptions { return p.e.mediaOptions() }

// Changed forgets every cached answer that searched the document.
func (p intakePort) Changed(ctx context.Context, docID string) { p.e.answers.Forget(ctx, docID) }

// Ingested measures the relevance threshold again when the one kept no longer fits.
func (p intakePort) Ingested(ctx context.Context) { p.e.warmThreshold(ctx) }
