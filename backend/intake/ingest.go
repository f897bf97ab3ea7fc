package intake

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
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/crashpoint"
	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
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
	// DocType is what kind of writing the document is; chunk sizes follow it.
	DocType document.Type `json:"doc_type,omitempty"`
	// OCRPages are the 1-based pages whose text was read by OCR from scanned images.
	OCRPages []int `json:"ocr_pages,omitempty"`
	// Warnings are problems that did not stop the ingest ("Pages 3–5 are scanned and
	// have no text: install tesseract-ocr to read them.").
	Warnings []string `json:"warnings,omitempty"`
	// Attachments are the outcomes of a mail's attachments, each ingested as a
	// document of its own.
	Attachments []Result `json:"attachments,omitempty"`
	// URL is an online source's canonical address (engine.IngestURL), and Replaced the
	// documents of the same URL it replaced because the content changed.
	URL      string   `json:"url,omitempty"`
	Replaced []string `json:"replaced,omitempty"`
	// Kind is how the file was read ("pdf", "audio", "video", …), and Transcript, for
	// a recording, what transcribed it ("PocketSphinx (US English)") and Duration its
	// length in seconds.
	Kind       document.Kind `json:"kind,omitempty"`
	Transcript string        `json:"transcript,omitempty"`
	Duration   float64       `json:"duration,omitempty"`
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
func (in *Intake) IngestFile(ctx context.Context, path string, progress ProgressFunc) (Result, error) {
	r, err := in.ingestTree(ctx, path, progress, 0, nil)
	in.co.Ingested(ctx)
	return r, in.explainFull(err)
}

func (in *Intake) ingestTree(ctx context.Context, path string, progress ProgressFunc, depth int, lb *lexBatch) (Result, error) {
	var atts []ingest.Attachment
	res, err := in.ingestOne(ctx, path, progress, &atts, lb)
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
		p, err := in.saveAttachment(res.DocID, a)
		if err != nil {
			res.Attachments = append(res.Attachments, Result{Path: a.Name, Status: Failed, Error: OneLine(err)})
			continue
		}
		r, err := in.ingestTree(ctx, p, progress, depth+1, lb)
		if err != nil {
			return res, err
		}
		res.Attachments = append(res.Attachments, r)
	}
	return res, nil
}

// saveAttachment writes an attachment under DIR/attachments/MAILID/ so that it has a path
// the viewer can open, as every document must.
func (in *Intake) saveAttachment(mailID string, a ingest.Attachment) (string, error) {
	dir := filepath.Join(in.dir, "attachments", mailID[:min(16, len(mailID))])
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
func (in *Intake) ingestOne(ctx context.Context, path string, progress ProgressFunc, atts *[]ingest.Attachment, lb *lexBatch) (Result, error) {
	if progress == nil {
		progress = func(library.Document) {}
	}
	res := Result{Path: path}
	if err := in.writable(); err != nil {
		return res, err
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		path = abs
	}
	doc, claimed, err := in.admit(ctx, path, &res)
	if !claimed || err != nil {
		return res, err
	}
	// Released on return, or, when the document's lexical entries wait in a batch, once
	// they are written (a second copy of the same bytes is skipped until then).
	held := false
	defer func() {
		if !held {
			in.release(doc.ID)
		}
	}()
	if err := in.lib.PutDocument(ctx, &doc); err != nil {
		return res, err
	}
	progress(doc)
	fail := func(msg string) (Result, error) {
		doc.Status, doc.Error = library.StatusFailed, msg
		res.Status, res.Error = Failed, msg
		if err := in.lib.PutDocument(context.WithoutCancel(ctx), &doc); err != nil {
			return res, err
		}
		progress(doc)
		return res, nil
	}

	src, err := ingest.FileWithOptions(ctx, path, ingest.Options{Media: in.co.Media(), Progress: func(done, total int) {
		doc.Done, doc.Total = done, total
		progress(doc)
	}})
	if err != nil {
		return fail(OneLine(err))
	}
	*atts, src.Attachments = src.Attachments, nil
	describe(&doc, &res, src)
	parents := treeOf(src, in.chunkProfiles().For(src.DocType))
	if len(parents) == 0 {
		return fail("no text found in this document")
	}
	info := DocInfo{DocType: src.DocType, OCRPages: src.OCRPages, Warnings: src.Warnings, URL: src.URL}
	if old, err := in.DocumentInfo(doc.ID); err == nil && info.URL == "" {
		info.URL = old.URL // a document fetched by URL (a PDF) read again
	}
	if err := in.putDocInfo(doc.ID, info); err != nil {
		return res, err
	}

	in.mu.Lock()
	defer in.mu.Unlock()
	chunks, err := in.store(ctx, &doc, src, parents, lb)
	if err != nil {
		return res, err
	}
	res.Pages, res.Chunks = doc.Pages, doc.Chunks
	if err := in.embedDocument(ctx, &doc, &res, chunks, progress); err != nil {
		return res, err
	}
	held = lb != nil
	if err := in.ready(ctx, doc, lb, progress); err != nil {
		return res, err
	}
	res.Status = Inserted
	return res, nil
}

// admit refuses what cannot be read (folders, pipes, oversized or missing files) and
// what is read already or being read, recording why in res; otherwise it claims the
// document, which the caller releases, and returns it as being extracted.
func (in *Intake) admit(ctx context.Context, path string, res *Result) (doc library.Document, claimed bool, err error) {
	// Refuse folders, pipes and oversized files before reading a byte of them.
	if err := ingest.Admit(path); err != nil {
		var ie *ingest.Error
		if errors.As(err, &ie) {
			res.Status, res.Error = Failed, OneLine(err)
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
	if !in.claim(id) {
		res.Status, res.Error = Skipped, ""
		return doc, false, nil
	}
	if old, err := in.lib.Document(ctx, id); err == nil && old.Status == library.StatusReady {
		in.release(id)
		res.Status, res.Pages, res.Chunks = Skipped, old.Pages, old.Chunks
		return doc, false, nil
	}
	doc = library.Document{ID: id, Path: path, Title: filepath.Base(path), Kind: kindOf(path), Bytes: size, Status: library.StatusExtracting}
	if old, err := in.lib.Document(ctx, id); err == nil {
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
func (in *Intake) store(ctx context.Context, doc *library.Document, src *ingest.Document, parents []library.Parent, lb *lexBatch) ([]library.Chunk, error) {
	pages := make([]string, len(src.Pages))
	for i, p := range src.Pages {
		pages[i] = p.Text
	}
	if err := in.dropIndexed(ctx, doc.ID); err != nil {
		return nil, err
	}
	if err := in.lib.ReplaceTree(ctx, doc.ID, pages, parents); err != nil {
		return nil, err
	}
	crashpoint.Hit("ingest.stored")
	chunks := childrenOf(parents)
	if err := in.lib.ReplacePageWords(ctx, doc.ID, ocrWords(src.Pages)); err != nil {
		return nil, err
	}
	if err := in.lib.ReplaceTranscript(ctx, doc.ID, transcriptOf(src.Transcript)); err != nil {
		return nil, err
	}
	if err := lb.add(in.lex, lexDocsOf(doc.ID, doc.Title, parents)); err != nil {
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
func (in *Intake) embedDocument(ctx context.Context, doc *library.Document, res *Result, chunks []library.Chunk, progress ProgressFunc) error {
	emb := in.co.Embedding(ctx)
	if !emb.OK {
		return nil
	}
	doc.Status, doc.Done, doc.Total = library.StatusEmbedding, 0, len(chunks)
	if err := in.lib.PutDocument(ctx, doc); err != nil {
		return err
	}
	progress(*doc)
	if err := in.embed(ctx, emb, chunks, func(done int) {
		doc.Done = done
		progress(*doc)
	}); err != nil && ctx.Err() == nil {
		slog.Warn("intake: embedding stopped", "path", doc.Path, "err", err)
		res.Warnings = append(res.Warnings, "Embedding stopped ("+OneLine(err)+"): the document is searchable by its words; its vectors are added when embedding works again.")
	}
	return nil
}

// ready marks the document ready in the library and tells progress. In a batch (lb not
// nil) its lexical entries may wait: the library and progress say ready once a search
// can find it, and the document's claim is released then. A crash before leaves it
// unready, to be read again at the next start (Interrupted).
func (in *Intake) ready(ctx context.Context, doc library.Document, lb *lexBatch, progress ProgressFunc) error {
	n := doc.Chunks
	if lb == nil {
		doc.Status, doc.Error, doc.Done, doc.Total = library.StatusReady, "", n, n
		if err := in.lib.PutDocument(ctx, &doc); err != nil {
			return err
		}
		progress(doc)
		return nil
	}
	if err := in.lib.PutDocument(ctx, &doc); err != nil {
		in.release(doc.ID)
		return err
	}
	lb.whenWritten(doc.ID, func() {
		defer in.release(doc.ID)
		doc.Status, doc.Error, doc.Done, doc.Total = library.StatusReady, "", n, n
		// An update, not an insert: a document removed meanwhile stays removed.
		if err := in.lib.SetStatus(context.WithoutCancel(ctx), doc.ID, doc.Status, "", n, n); err != nil {
			slog.Error("intake: marking a document ready", "path", doc.Path, "err", err)
			return
		}
		progress(doc)
	})
	return nil
}

// dropIndexed removes a document's chunks from both indexes (before re-ingesting or
// removing it). Callers hold ingestMu.
func (in *Intake) dropIndexed(ctx context.Context, docID string) error {
	in.co.Changed(ctx, docID) // answers that searched it are stale
	old, err := in.lib.DocumentChunks(ctx, docID)
	if err != nil {
		return err
	}
	if len(old) > 0 {
		seqs := make([]int64, len(old))
		for i, c := range old {
			seqs[i] = c.Seq
		}
		if err := in.vec.Remove(seqs); err != nil {
			return fmt.Errorf("remove vectors: %w", err)
		}
		if err := in.vec.Save(); err != nil {
			return fmt.Errorf("save vectors: %w", err)
		}
		crashpoint.Hit("drop.vectors")
	}
	if err := in.lex.DeleteDoc(docID); err != nil {
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
func (in *Intake) embed(ctx context.Context, emb Embedding, chunks []library.Chunk, progress func(done int)) (err error) {
	model := emb.Model
	prefix := llm.DocPrefix(model)
	var unsaved []int64
	saved := time.Now()
	save := func() error {
		if len(unsaved) == 0 {
			return nil
		}
		if err := in.vec.Save(); err != nil {
			return err
		}
		crashpoint.Hit("embed.saved")
		if err := in.lib.MarkEmbedded(context.WithoutCancel(ctx), unsaved, true); err != nil {
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
	for start := 0; start < len(chunks); start += in.embedBatch {
		batch := chunks[start:min(len(chunks), start+in.embedBatch)]
		texts := make([]string, len(batch))
		ids := make([]int64, len(batch))
		for i, c := range batch {
			texts[i] = prefix + c.Text
			ids[i] = c.Seq
		}
		vecs, err := emb.Embed(ctx, texts)
		if err != nil {
			return fmt.Errorf("embed: %w", err)
		}
		if len(vecs) != len(batch) {
			return fmt.Errorf("embed: the model returned %d vectors for %d texts", len(vecs), len(batch))
		}
		if err := in.vec.Ensure(model, len(vecs[0])); errors.Is(err, index.ErrModelMismatch) {
			// The embedding model changed: vectors of two models cannot be mixed, so start
			// a new index and mark every chunk for embedding again (EmbedPending).
			unsaved = unsaved[:0]
			if err := in.vec.Reset(model, len(vecs[0])); err != nil {
				return err
			}
			if err := in.lib.ResetEmbedded(ctx); err != nil {
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
		if err := in.lib.MarkNoVector(ctx, none); err != nil {
			return err
		}
		// Remove first so that a retry after a crash never leaves duplicate ids.
		if err := in.vec.Remove(ids); err != nil {
			return err
		}
		if err := in.vec.Add(ids, vecs); err != nil {
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
func (in *Intake) EmbedPending(ctx context.Context) (int, error) {
	emb := in.co.Embedding(ctx)
	if !emb.OK || in.writable() != nil {
		return 0, nil
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	n := 0
	for {
		chunks, err := in.lib.Unembedded(ctx, 256)
		if err != nil || len(chunks) == 0 {
			if n > 0 {
				in.co.Ingested(ctx)
			}
			return n, err
		}
		if err := in.embed(ctx, emb, chunks, func(int) {}); err != nil {
			return n, err
		}
		n += len(chunks)
	}
}

// Remove deletes a document and everything derived from it. The library row goes first:
// index entries left by a crash after it point at nothing and are skipped by retrieval.
func (in *Intake) Remove(ctx context.Context, docID string) error {
	if err := in.writable(); err != nil {
		return err
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	chunks, err := in.lib.DocumentChunks(ctx, docID)
	if err != nil {
		return err
	}
	if err := in.lib.DeleteDocument(ctx, docID); err != nil {
		return err
	}
	in.co.Changed(ctx, docID) // answers that searched it are stale
	_ = os.Remove(in.docInfoPath(docID))
	seqs := make([]int64, len(chunks))
	for i, c := range chunks {
		seqs[i] = c.Seq
	}
	if err := in.vec.Remove(seqs); err != nil {
		return fmt.Errorf("remove vectors: %w", err)
	}
	if err := in.vec.Save(); err != nil {
		return err
	}
	return in.lex.DeleteDoc(docID)
}

// Interrupted lists documents whose ingest a crash or quit cut short; the caller re-ingests
// them (IngestFile replaces whatever partial content they have).
func (in *Intake) Interrupted(ctx context.Context) ([]library.Document, error) {
	docs, err := in.lib.Documents(ctx)
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

// kindOf guesses a document's kind from its name until ingest has read it; a file of
// no kind Carrel reads keeps its extension as its kind.
func kindOf(path string) document.Kind {
	switch ext := strings.ToLower(filepath.Ext(path)); {
	case ext == ".pdf":
		return document.KindPDF
	case ext == ".txt", ext == ".text", ext == ".md", ext == ".markdown":
		return document.KindText
	case ext == ".eml":
		return document.KindEmail
	case ext == ".html", ext == ".htm", ext == ".xhtml", ext == ".mht", ext == ".mhtml":
		return document.KindHTML
	case ext == ".epub":
		return document.KindEPUB
	case ext == ".docx":
		return document.KindDOCX
	case ingest.IsMedia(path):
		return ingest.MediaKind(path)
	case ingest.Supported(path):
		return document.KindCode
	}
	return document.Kind(strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), "."))
}

// OneLine makes an error fit one line of the UI.
func OneLine(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
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

// explainFull says what to do about an ingest that failed because the disk is full.
func (in *Intake) explainFull(err error) error {
	if err != nil && library.DiskFull(err) {
		return fmt.Errorf("the disk holding the library (%s) is full: free some space, then add the file again (%w)", in.dir, err)
	}
	return err
}
