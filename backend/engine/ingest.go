package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/crashpoint"
	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
)

// Ingest outcomes.
const (
	Inserted IngestStatus = "inserted"
	Skipped  IngestStatus = "skipped"
	Failed   IngestStatus = "failed"
)

// IngestStatus is the outcome of ingesting one file.
type IngestStatus string

// Result is the outcome of ingesting one file (the CLI prints it as JSON).
type Result struct {
	Path   string       `json:"path"`
	DocID  string       `json:"doc_id"`
	Status IngestStatus `json:"status"`
	Pages  int          `json:"pages"`
	Chunks int          `json:"chunks"`
	Error  string       `json:"error"`
	// DocType is what kind of writing the document is ("paper", "textbook",
	// "documentation", "code", "mail", "general"); chunk sizes follow it.
	DocType string `json:"doc_type,omitempty"`
	// OCRPages are the 1-based pages whose text was read by OCR from scanned images.
	OCRPages []int `json:"ocr_pages,omitempty"`
	// Warnings are problems that did not stop the ingest ("Pages 3–5 are scanned and
	// have no text: install tesseract-ocr to read them.").
	Warnings []string `json:"warnings,omitempty"`
	// Attachments are the outcomes of a mail's attachments, each ingested as a
	// document of its own.
	Attachments []Result `json:"attachments,omitempty"`
	// URL is an online source's canonical address (IngestURL), and Replaced the
	// documents of the same URL it replaced because the content changed.
	URL      string   `json:"url,omitempty"`
	Replaced []string `json:"replaced,omitempty"`
	// Kind is how the file was read ("pdf", "audio", "video", …), and Transcript, for
	// a recording, what transcribed it ("PocketSphinx (US English)") and Duration its
	// length in seconds.
	Kind       string  `json:"kind,omitempty"`
	Transcript string  `json:"transcript,omitempty"`
	Duration   float64 `json:"duration,omitempty"`
}

// maxAttachmentDepth bounds mails attached to mails attached to mails.
const maxAttachmentDepth = 3

// ProgressFunc hears every change of a document's state while it is ingested.
type ProgressFunc func(library.Document)

// IngestFile adds one file to the library: extract, chunk, store, index, embed. Failures
// are recorded on that document only and returned in the Result, never as an error that
// would stop a batch; the error return is for a broken library (disk, database).
//
// A mail's attachments are saved under the library folder (attachments/) and ingested
// after it, each as its own document; their results are in Result.Attachments.
func (e *Engine) IngestFile(ctx context.Context, path string, progress ProgressFunc) (Result, error) {
	r, err := e.ingestTree(ctx, path, progress, 0, nil)
	e.warmThreshold(ctx)
	return r, e.explainFull(err)
}

func (e *Engine) ingestTree(ctx context.Context, path string, progress ProgressFunc, depth int, lb *lexBatch) (Result, error) {
	var atts []ingest.Attachment
	res, err := e.ingestOne(ctx, path, progress, &atts, lb)
	if err != nil || len(atts) == 0 {
		return res, err
	}
	for _, a := range atts {
		if ctx.Err() != nil {
			break
		}
		if !ingest.Supported(a.Name) || depth+1 > maxAttachmentDepth {
			continue // images, signatures, calendar invites
		}
		p, err := e.saveAttachment(res.DocID, a)
		if err != nil {
			res.Attachments = append(res.Attachments, Result{Path: a.Name, Status: Failed, Error: oneLine(err)})
			continue
		}
		r, err := e.ingestTree(ctx, p, progress, depth+1, lb)
		if err != nil {
			return res, err
		}
		res.Attachments = append(res.Attachments, r)
	}
	return res, nil
}

// saveAttachment writes an attachment under DIR/attachments/MAILID/ so that it has a path
// the viewer can open, as every document must.
func (e *Engine) saveAttachment(mailID string, a ingest.Attachment) (string, error) {
	dir := filepath.Join(e.cfg.Dir, "attachments", mailID[:min(16, len(mailID))])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save attachment %s: %w", a.Name, err)
	}
	p := filepath.Join(dir, filepath.Base(a.Name))
	if err := os.WriteFile(p, a.Data, 0o644); err != nil {
		return "", fmt.Errorf("save attachment %s: %w", a.Name, err)
	}
	return p, nil
}

// ingestOne ingests the file at path; a mail's attachments are handed back in atts. Its
// steps: admit the file, extract its text, store and index it, embed it, say it is ready.
func (e *Engine) ingestOne(ctx context.Context, path string, progress ProgressFunc, atts *[]ingest.Attachment, lb *lexBatch) (Result, error) {
	if progress == nil {
		progress = func(library.Document) {}
	}
	res := Result{Path: path}
	if e.readOnly {
		return res, e.readOnlyError()
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		path = abs
	}
	doc, claimed, err := e.admit(ctx, path, &res)
	if !claimed || err != nil {
		return res, err
	}
	// Released on return, or, when the document's lexical entries wait in a batch, once
	// they are written (a second copy of the same bytes is skipped until then).
	held := false
	defer func() {
		if !held {
			e.release(doc.ID)
		}
	}()
	if err := e.lib.PutDocument(ctx, &doc); err != nil {
		return res, err
	}
	progress(doc)
	fail := func(msg string) (Result, error) {
		doc.Status, doc.Error = library.StatusFailed, msg
		res.Status, res.Error = Failed, msg
		if err := e.lib.PutDocument(context.WithoutCancel(ctx), &doc); err != nil {
			return res, err
		}
		progress(doc)
		return res, nil
	}

	src, err := ingest.FileWithOptions(ctx, path, ingest.Options{Media: e.mediaOptions(), Progress: func(done, total int) {
		doc.Done, doc.Total = done, total
		progress(doc)
	}})
	if err != nil {
		return fail(oneLine(err))
	}
	*atts, src.Attachments = src.Attachments, nil
	describe(&doc, &res, src)
	parents := treeOf(src, e.chunkProfiles().For(src.DocType))
	if len(parents) == 0 {
		return fail("no text found in this document")
	}
	info := DocInfo{DocType: src.DocType, OCRPages: src.OCRPages, Warnings: src.Warnings, URL: src.URL}
	if old, err := e.DocumentInfo(doc.ID); err == nil && info.URL == "" {
		info.URL = old.URL // a document fetched by URL (a PDF) read again
	}
	if err := e.putDocInfo(doc.ID, info); err != nil {
		return res, err
	}

	e.ingestMu.Lock()
	defer e.ingestMu.Unlock()
	chunks, err := e.store(ctx, &doc, src, parents, lb)
	if err != nil {
		return res, err
	}
	res.Pages, res.Chunks = doc.Pages, doc.Chunks
	if err := e.embedDocument(ctx, &doc, &res, chunks, progress); err != nil {
		return res, err
	}
	held = lb != nil
	if err := e.ready(ctx, doc, lb, progress); err != nil {
		return res, err
	}
	res.Status = Inserted
	return res, nil
}

// admit refuses what cannot be read (folders, pipes, oversized or missing files) and
// what is read already or being read, recording why in res; otherwise it claims the
// document, which the caller releases, and returns it as being extracted.
func (e *Engine) admit(ctx context.Context, path string, res *Result) (doc library.Document, claimed bool, err error) {
	// Refuse folders, pipes and oversized files before reading a byte of them.
	if err := ingest.Admit(path); err != nil {
		var ie *ingest.Error
		if errors.As(err, &ie) {
			res.Status, res.Error = Failed, oneLine(err)
			return doc, false, nil
		}
	}
	id, size, err := hashFile(path)
	if err != nil {
		res.Status, res.Error = Failed, err.Error()
		return doc, false, nil
	}
	res.DocID = id
	// The same bytes dropped twice at once: the second waits for nothing and is skipped.
	if !e.claim(id) {
		res.Status, res.Error = Skipped, ""
		return doc, false, nil
	}
	if old, err := e.lib.Document(ctx, id); err == nil && old.Status == library.StatusReady {
		e.release(id)
		res.Status, res.Pages, res.Chunks = Skipped, old.Pages, old.Chunks
		return doc, false, nil
	}
	doc = library.Document{ID: id, Path: path, Title: filepath.Base(path), Kind: kindOf(path), Bytes: size, Status: library.StatusExtracting}
	if old, err := e.lib.Document(ctx, id); err == nil {
		doc.AddedAt = old.AddedAt
	}
	return doc, true, nil
}

// describe takes what extraction learnt about the document into it and into res.
func describe(doc *library.Document, res *Result, src *ingest.Document) {
	doc.Title, doc.Author, doc.Pages = src.Title, src.Author, len(src.Pages)
	if doc.Title == "" {
		doc.Title = filepath.Base(doc.Path)
	}
	if src.Kind != "" {
		doc.Kind = src.Kind
	}
	if b, err := json.Marshal(src.Outline); err == nil {
		doc.Outline = string(b)
	}
	res.DocType, res.OCRPages, res.Warnings = src.DocType, src.OCRPages, src.Warnings
	res.Kind = doc.Kind
	if t := src.Transcript; t != nil {
		res.Transcript, res.Duration = t.Source, math.Round(t.Duration*10)/10
	}
}

// store replaces the document's pages, passages and word boxes in the library and its
// entries in the indexes, and returns its child chunks. Callers hold ingestMu.
func (e *Engine) store(ctx context.Context, doc *library.Document, src *ingest.Document, parents []library.Parent, lb *lexBatch) ([]library.Chunk, error) {
	pages := make([]string, len(src.Pages))
	for i, p := range src.Pages {
		pages[i] = p.Text
	}
	if err := e.dropIndexed(ctx, doc.ID); err != nil {
		return nil, err
	}
	if err := e.lib.ReplaceTree(ctx, doc.ID, pages, parents); err != nil {
		return nil, err
	}
	crashpoint.Hit("ingest.stored")
	chunks := childrenOf(parents)
	if err := e.lib.ReplacePageWords(ctx, doc.ID, ocrWords(src.Pages)); err != nil {
		return nil, err
	}
	if err := e.lib.ReplaceTranscript(ctx, doc.ID, transcriptOf(src.Transcript)); err != nil {
		return nil, err
	}
	if err := lb.add(e, lexDocsOf(doc.ID, doc.Title, parents)); err != nil {
		return nil, fmt.Errorf("index %s: %w", doc.Path, err)
	}
	crashpoint.Hit("ingest.indexed")
	doc.Chunks = len(chunks)
	return chunks, nil
}

// embedDocument embeds the document's chunks when the embedding model is at hand. An
// embedding failure (Ollama stopped, a full disk) leaves the document searchable
// lexically, with a warning in res; the missing vectors are filled in later by
// EmbedPending. Callers hold ingestMu.
func (e *Engine) embedDocument(ctx context.Context, doc *library.Document, res *Result, chunks []library.Chunk, progress ProgressFunc) error {
	if st := e.Status(ctx); !st.embedOK {
		return nil
	}
	doc.Status, doc.Done, doc.Total = library.StatusEmbedding, 0, len(chunks)
	if err := e.lib.PutDocument(ctx, doc); err != nil {
		return err
	}
	progress(*doc)
	if err := e.embed(ctx, chunks, func(done int) {
		doc.Done = done
		progress(*doc)
	}); err != nil && ctx.Err() == nil {
		slog.Warn("engine: embedding stopped", "path", doc.Path, "err", err)
		res.Warnings = append(res.Warnings, "Embedding stopped ("+oneLine(err)+"): the document is searchable by its words; its vectors are added when embedding works again.")
	}
	return nil
}

// ready marks the document ready in the library and tells progress. In a batch (lb not
// nil) its lexical entries may wait: the library and progress say ready once a search
// can find it, and the document's claim is released then. A crash before leaves it
// unready, to be read again at the next start (Interrupted).
func (e *Engine) ready(ctx context.Context, doc library.Document, lb *lexBatch, progress ProgressFunc) error {
	n := doc.Chunks
	if lb == nil {
		doc.Status, doc.Error, doc.Done, doc.Total = library.StatusReady, "", n, n
		if err := e.lib.PutDocument(ctx, &doc); err != nil {
			return err
		}
		progress(doc)
		return nil
	}
	if err := e.lib.PutDocument(ctx, &doc); err != nil {
		e.release(doc.ID)
		return err
	}
	lb.whenWritten(doc.ID, func() {
		defer e.release(doc.ID)
		doc.Status, doc.Error, doc.Done, doc.Total = library.StatusReady, "", n, n
		// An update, not an insert: a document removed meanwhile stays removed.
		if err := e.lib.SetStatus(context.WithoutCancel(ctx), doc.ID, doc.Status, "", n, n); err != nil {
			slog.Error("engine: marking a document ready", "path", doc.Path, "err", err)
			return
		}
		progress(doc)
	})
	return nil
}

// dropIndexed removes a document's chunks from both indexes (before re-ingesting or
// removing it). Callers hold ingestMu.
func (e *Engine) dropIndexed(ctx context.Context, docID string) error {
	e.forgetCachedFor(ctx, docID) // answers that searched it are stale
	old, err := e.lib.DocumentChunks(ctx, docID)
	if err != nil {
		return err
	}
	if len(old) > 0 {
		seqs := make([]int64, len(old))
		for i, c := range old {
			seqs[i] = c.Seq
		}
		if err := e.vec.Remove(seqs); err != nil {
			return fmt.Errorf("remove vectors: %w", err)
		}
		if err := e.vec.Save(); err != nil {
			return fmt.Errorf("save vectors: %w", err)
		}
		crashpoint.Hit("drop.vectors")
	}
	if err := e.lex.DeleteDoc(docID); err != nil {
		return fmt.Errorf("remove from lexical index: %w", err)
	}
	return nil
}

// embedSaveEvery is how often embedding saves the vector index and marks the chunks it
// holds. Saving rewrites the whole index file, so saving per batch grew quadratically with
// the library (768-d vectors of 100k chunks: ~300 MB rewritten every 32 chunks). A crash
// loses only the vectors not yet saved; their chunks are not marked, so EmbedPending
// embeds them again.
const embedSaveEvery = 5 * time.Second

// embed embeds chunks in batches and adds them to the vector index, saving it and marking
// the chunks at most every embedSaveEvery and at the end. Callers hold ingestMu.
func (e *Engine) embed(ctx context.Context, chunks []library.Chunk, progress func(done int)) (err error) {
	model := e.Config().EmbedModel
	prefix := docPrefix(model)
	var unsaved []int64
	saved := time.Now()
	save := func() error {
		if len(unsaved) == 0 {
			return nil
		}
		if err := e.vec.Save(); err != nil {
			return err
		}
		crashpoint.Hit("embed.saved")
		if err := e.lib.MarkEmbedded(context.WithoutCancel(ctx), unsaved, true); err != nil {
			return err
		}
		unsaved, saved = unsaved[:0], time.Now()
		return nil
	}
	defer func() {
		// Keep what was embedded before a failure (a cancelled ingest included).
		if serr := save(); err == nil {
			err = serr
		}
	}()
	for start := 0; start < len(chunks); start += e.cfg.EmbedBatch {
		batch := chunks[start:min(len(chunks), start+e.cfg.EmbedBatch)]
		texts := make([]string, len(batch))
		ids := make([]int64, len(batch))
		for i, c := range batch {
			texts[i] = prefix + c.Text
			ids[i] = c.Seq
		}
		vecs, err := e.ollama.Embed(ctx, model, texts)
		if err != nil {
			return fmt.Errorf("embed: %w", err)
		}
		if len(vecs) != len(batch) {
			return fmt.Errorf("embed: the model returned %d vectors for %d texts", len(vecs), len(batch))
		}
		if err := e.vec.Ensure(model, len(vecs[0])); errors.Is(err, index.ErrModelMismatch) {
			// The embedding model changed: vectors of two models cannot be mixed, so start
			// a new index and mark every chunk for embedding again (EmbedPending).
			unsaved = unsaved[:0]
			if err := e.vec.Reset(model, len(vecs[0])); err != nil {
				return err
			}
			if err := e.lib.ResetEmbedded(ctx); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		// A zero or non-finite vector (a model of words embeds a text of none it knows,
		// a table of "AAAA" rows, as zero) has no direction to search by: its chunk is
		// marked as having none and found by its words only, and the rest of the batch
		// and of the document are embedded as usual.
		ids, vecs, none := usableVectors(ids, vecs)
		if err := e.lib.MarkNoVector(ctx, none); err != nil {
			return err
		}
		// Remove first so that a retry after a crash never leaves duplicate ids.
		if err := e.vec.Remove(ids); err != nil {
			return err
		}
		if err := e.vec.Add(ids, vecs); err != nil {
			return err
		}
		crashpoint.Hit("embed.batch")
		unsaved = append(unsaved, ids...)
		if time.Since(saved) >= embedSaveEvery {
			if err := save(); err != nil {
				return err
			}
		}
		progress(start + len(batch))
	}
	return nil
}

// usableVectors splits a batch into the ids and vectors that can be indexed and the ids
// whose vectors are zero or not finite.
func usableVectors(ids []int64, vecs [][]float32) (okIDs []int64, okVecs [][]float32, none []int64) {
	for i, v := range vecs {
		var norm float64
		for _, f := range v {
			norm += float64(f) * float64(f)
		}
		if norm > 0 && !math.IsInf(norm, 0) && !math.IsNaN(norm) {
			okIDs, okVecs = append(okIDs, ids[i]), append(okVecs, v)
		} else {
			none = append(none, ids[i])
		}
	}
	return okIDs, okVecs, none
}

// EmbedPending embeds every chunk that has no vector yet (after the embedding model
// became available, or after a crash). It returns how many chunks it embedded.
func (e *Engine) EmbedPending(ctx context.Context) (int, error) {
	if st := e.Status(ctx); !st.embedOK || e.readOnly {
		return 0, nil
	}
	e.ingestMu.Lock()
	defer e.ingestMu.Unlock()
	n := 0
	for {
		chunks, err := e.lib.Unembedded(ctx, 256)
		if err != nil || len(chunks) == 0 {
			if n > 0 {
				e.warmThreshold(ctx)
			}
			return n, err
		}
		if err := e.embed(ctx, chunks, func(int) {}); err != nil {
			return n, err
		}
		n += len(chunks)
	}
}

// Remove deletes a document and everything derived from it. The library row goes first:
// index entries left by a crash after it point at nothing and are skipped by retrieval.
func (e *Engine) Remove(ctx context.Context, docID string) error {
	if e.readOnly {
		return e.readOnlyError()
	}
	e.ingestMu.Lock()
	defer e.ingestMu.Unlock()
	chunks, err := e.lib.DocumentChunks(ctx, docID)
	if err != nil {
		return err
	}
	if err := e.lib.DeleteDocument(ctx, docID); err != nil {
		return err
	}
	e.forgetCachedFor(ctx, docID) // answers that searched it are stale
	_ = os.Remove(e.docInfoPath(docID))
	seqs := make([]int64, len(chunks))
	for i, c := range chunks {
		seqs[i] = c.Seq
	}
	if err := e.vec.Remove(seqs); err != nil {
		return fmt.Errorf("remove vectors: %w", err)
	}
	if err := e.vec.Save(); err != nil {
		return err
	}
	return e.lex.DeleteDoc(docID)
}

// Interrupted lists documents whose ingest a crash or quit cut short; the caller re-ingests
// them (IngestFile replaces whatever partial content they have).
func (e *Engine) Interrupted(ctx context.Context) ([]library.Document, error) {
	docs, err := e.lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	var out []library.Document
	for _, d := range docs {
		if d.Status != library.StatusReady && d.Status != library.StatusFailed {
			out = append(out, d)
		}
	}
	return out, nil
}

func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", 0, fmt.Errorf("file not found: %s", path)
		}
		return "", 0, fmt.Errorf("cannot open %s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", 0, fmt.Errorf("%s is a folder: add the files inside it", path)
	}
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// kindOf guesses a document's kind from its name until ingest has read it.
func kindOf(path string) string {
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".pdf":
		return ingest.KindPDF
	case ext == ".txt", ext == ".text", ext == ".md", ext == ".markdown":
		return ingest.KindText
	case ext == ".eml":
		return ingest.KindEmail
	case ext == ".html", ext == ".htm", ext == ".xhtml", ext == ".mht", ext == ".mhtml":
		return ingest.KindHTML
	case ext == ".epub":
		return ingest.KindEPUB
	case ext == ".docx":
		return ingest.KindDOCX
	case ingest.IsMedia(path):
		return ingest.MediaKind(path)
	case ingest.Supported(path):
		return ingest.KindCode
	}
	return strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
}

// oneLine makes an error fit one line of the UI.
func oneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// claim marks a document as being ingested; it reports false if it already is.
func (e *Engine) claim(id string) bool {
	e.inflightMu.Lock()
	defer e.inflightMu.Unlock()
	if e.inflight[id] {
		return false
	}
	e.inflight[id] = true
	return true
}

func (e *Engine) release(id string) {
	e.inflightMu.Lock()
	delete(e.inflight, id)
	e.inflightMu.Unlock()
}

// Garbage collection during an ingest burst: an ingest allocates several times
// its input (pdfcpu's objects, page text, bleve's analysis) that is garbage a moment
// later, while the live heap stays small. Collecting at 4x the live heap rather than
// 2x cut a tenth of the CPU of ingesting the pdfcpu corpus; the soft memory limit
// keeps a large library's burst from growing the heap past what the default would
// have reached by much. GOGC or GOMEMLIMIT set in the environment are left alone.
const (
	ingestGCPercent = 400
	ingestMemLimit  = 1 << 30
)

var (
	gcMu    sync.Mutex
	gcUsers int
	gcPrev  int
	gcLimit int64
)

// ingestGC raises the GC target for the length of an ingest and returns what
// restores it; overlapping ingests share one raise.
func ingestGC() (restore func()) {
	if envconfig.GCTunedByUser() {
		return func() {}
	}
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcUsers == 0 {
		gcPrev = debug.SetGCPercent(ingestGCPercent)
		gcLimit = debug.SetMemoryLimit(ingestMemLimit)
	}
	gcUsers++
	return func() {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcUsers--; gcUsers == 0 {
			debug.SetGCPercent(gcPrev)
			debug.SetMemoryLimit(gcLimit)
		}
	}
}

// lexBatch gathers the lexical entries of several documents and adds them to the index
// together (a nil *lexBatch adds at once). Entries not yet flushed when the process dies
// are restored by the reconciliation at the next start, which rebuilds a lexical index
// whose count disagrees with the library.
//
// A full batch is written in the background: building a bleve segment is serial work
// that, done by the worker that filled the batch, held the ingest lock and stalled the
// other workers. Batches are written concurrently (bleve builds each segment in the
// caller's goroutine), so the last ones, written while nothing else is left to do, use
// every core instead of queueing behind each other: that tail was a third of the
// wall time of ingesting the pdfcpu corpus.
type lexBatch struct {
	mu      sync.Mutex
	pending []index.LexDoc
	// unwritten counts, per document, the writes of its entries not yet done (pending
	// counts as one); waiters run when it drops to none.
	unwritten map[string]int
	waiters   map[string][]func()

	wg    sync.WaitGroup
	errMu sync.Mutex
	err   error // the first background write's error
}

// lexBatchSize is how many entries are gathered before they are written: a few hundred
// pages. Fewer made more segments for bleve's merger; more made a longer tail. A
// variable for tests.
var lexBatchSize = 500

func (b *lexBatch) add(e *Engine, docs []index.LexDoc) error {
	if b == nil {
		return e.lex.Add(docs)
	}
	b.mu.Lock()
	if b.unwritten == nil {
		b.unwritten, b.waiters = map[string]int{}, map[string][]func(){}
	}
	for _, id := range docIDs(docs) {
		if !slices.ContainsFunc(b.pending, func(d index.LexDoc) bool { return d.DocID == id }) {
			b.unwritten[id]++
		}
	}
	b.pending = append(b.pending, docs...)
	var full []index.LexDoc
	if len(b.pending) >= lexBatchSize {
		full, b.pending = b.pending, nil
	}
	b.mu.Unlock()
	if full != nil {
		b.write(e, full)
	}
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.err
}

// docIDs lists the documents of entries, each once, in order.
func docIDs(docs []index.LexDoc) []string {
	var ids []string
	for _, d := range docs {
		if len(ids) == 0 || ids[len(ids)-1] != d.DocID {
			if !slices.Contains(ids, d.DocID) {
				ids = append(ids, d.DocID)
			}
		}
	}
	return ids
}

// whenWritten runs f once the lexical entries of docID are in the index: now if none
// wait (or b is nil: entries are added at once), else after the write that holds them.
func (b *lexBatch) whenWritten(docID string, f func()) {
	if b != nil {
		b.mu.Lock()
		if b.unwritten[docID] > 0 {
			b.waiters[docID] = append(b.waiters[docID], f)
			b.mu.Unlock()
			return
		}
		b.mu.Unlock()
	}
	f()
}

// write adds docs to the index in the background, then runs the waiters of the
// documents it completes (even after a failed write: the documents are stored, and
// the next start's reconciliation restores their entries).
func (b *lexBatch) write(e *Engine, docs []index.LexDoc) {
	b.wg.Go(func() {
		if err := e.lex.Add(docs); err != nil {
			b.errMu.Lock()
			if b.err == nil {
				b.err = err
			}
			b.errMu.Unlock()
		}
		var run []func()
		b.mu.Lock()
		for _, id := range docIDs(docs) {
			if b.unwritten[id]--; b.unwritten[id] <= 0 {
				delete(b.unwritten, id)
				run = append(run, b.waiters[id]...)
				delete(b.waiters, id)
			}
		}
		b.mu.Unlock()
		for _, f := range run {
			f()
		}
	})
}

// flush writes what is pending beside the background writes still running, waits for
// them all (and the waiters they run) and returns the first error of any write.
func (b *lexBatch) flush(e *Engine) error {
	b.mu.Lock()
	docs := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(docs) > 0 {
		b.write(e, docs)
	}
	b.wg.Wait()
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.err
}

// DocInfo is what ingest learned about a document beyond the library's columns, kept in
// a small JSON file per document (DIR/docinfo/ID.json) beside the library.
type DocInfo struct {
	// DocType is what kind of writing the document is (see Result.DocType).
	DocType string `json:"doc_type,omitempty"`
	// OCRPages are the 1-based pages whose text was read by OCR (the UI marks them "OCR").
	OCRPages []int `json:"ocr_pages,omitempty"`
	// Warnings are problems that did not stop the ingest.
	Warnings []string `json:"warnings,omitempty"`
	// URL is where an online source was fetched from (its canonical address).
	URL string `json:"url,omitempty"`
}

func (e *Engine) docInfoPath(docID string) string {
	return filepath.Join(e.cfg.Dir, "docinfo", filepath.Base(docID)+".json")
}

// putDocInfo saves a document's DocInfo, or removes it when there is nothing to say.
func (e *Engine) putDocInfo(docID string, info DocInfo) error {
	p := e.docInfoPath(docID)
	if info.DocType == "" && len(info.OCRPages) == 0 && len(info.Warnings) == 0 && info.URL == "" {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove document info: %w", err)
		}
		return nil
	}
	b, err := json.Marshal(info)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("save document info: %w", err)
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("save document info: %w", err)
	}
	return os.Rename(tmp, p)
}

// DocumentInfo returns what ingest recorded about a document beyond the library's
// columns: its OCR pages and warnings. A document with nothing recorded gives a zero
// DocInfo.
func (e *Engine) DocumentInfo(docID string) (DocInfo, error) {
	var info DocInfo
	b, err := os.ReadFile(e.docInfoPath(docID))
	if errors.Is(err, os.ErrNotExist) {
		return info, nil
	}
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(b, &info); err != nil {
		return DocInfo{}, fmt.Errorf("document info %s: %w", docID, err)
	}
	return info, nil
}

// chunkProfiles returns the chunk sizes per document type: the defaults, overridden by
// DIR/chunking.json when there is one (a broken file is reported and ignored).
func (e *Engine) chunkProfiles() chunk.Profiles {
	p, err := chunk.LoadProfiles(filepath.Join(e.cfg.Dir, chunk.ProfilesFile))
	if err != nil {
		slog.Warn("engine: chunk sizes from the defaults", "err", err)
	}
	return p
}

// ocrWords gives the word boxes of the pages read by OCR, by 1-based page, for the viewer
// to highlight on scanned pages.
func ocrWords(pages []ingest.Page) map[int]library.PageWords {
	out := map[int]library.PageWords{}
	for _, p := range pages {
		if p.OCR == nil {
			continue
		}
		words := make([]library.Word, len(p.OCR.Words))
		for i, w := range p.OCR.Words {
			words[i] = library.Word{X0: w.X0, Y0: w.Y0, X1: w.X1, Y1: w.Y1, Start: w.Start, End: w.End}
		}
		out[p.Number] = library.PageWords{Width: p.OCR.Width, Height: p.OCR.Height, Words: words}
	}
	return out
}

// transcriptOf is a recording's timed text as the library keeps it (nil for nil).
func transcriptOf(t *ingest.Transcript) *library.Transcript {
	if t == nil {
		return nil
	}
	out := &library.Transcript{Source: t.Source, Recognizer: t.Recognizer, MediaKind: t.Media.Kind,
		MediaPath: t.Media.Path, MediaURL: t.Media.URL, Duration: t.Duration, Segments: make([]library.Segment, len(t.Segments))}
	for i, s := range t.Segments {
		out.Segments[i] = library.Segment{Start: s.Start, End: s.End, Page: s.Page, From: s.From, To: s.To}
	}
	return out
}
