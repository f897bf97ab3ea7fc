package intake

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"

	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
)

// Reread reads a document again from its original file, as if it were added for the
// first time: text (OCR included), passages, word boxes and vectors are all replaced
// together, so they stay consistent with each other. Adding the same bytes again is
// skipped, so this is how a document ingested by an older Carrel gains what a newer one
// keeps (the word boxes of its OCR'd pages, say).
//
// It refuses, leaving the document as it is, when the file is gone or its bytes changed
// (that is a new document: add it again), and when the document has OCR'd pages but OCR
// cannot run now (reading it again would lose their text).
func (in *Intake) Reread(ctx context.Context, docID string, progress ProgressFunc) (Result, error) {
	d, err := in.checkReread(ctx, docID)
	if err != nil {
		return Result{}, err
	}
	if !in.claim(docID) {
		return Result{}, fmt.Errorf("re-read %s: it is being added right now", d.Title)
	}
	// Not ready, so that the ingest below does not skip the same bytes.
	err = in.lib.SetStatus(ctx, docID, library.StatusQueued, "", 0, 0)
	in.release(docID)
	if err != nil {
		return Result{}, fmt.Errorf("re-read %s: %w", d.Title, err)
	}
	res, err := in.IngestFile(ctx, d.Path, progress)
	if err == nil && res.Status == Skipped {
		// Another ingest of the same bytes claimed it in between and will finish it.
		return res, nil
	}
	return res, err
}

// CanReread says why [Intake.Reread] would refuse to read a document again, or nil.
func (in *Intake) CanReread(ctx context.Context, docID string) error {
	_, err := in.checkReread(ctx, docID)
	return err
}

func (in *Intake) checkReread(ctx context.Context, docID string) (library.Document, error) {
	d, err := in.lib.Document(ctx, docID)
	if err != nil {
		return d, fmt.Errorf("re-read: %w", err)
	}
	id, _, err := hashFile(d.Path)
	if err != nil {
		return d, fmt.Errorf("re-read %s: its file cannot be read (%v): add it again from where it is now", d.Title, err)
	}
	if id != docID {
		return d, fmt.Errorf("re-read %s: %s has changed since it was added: add it again to read the new version", d.Title, d.Path)
	}
	if info, err := in.DocumentInfo(docID); err == nil && len(info.OCRPages) > 0 && !ingest.OCRAvailable() {
		return d, fmt.Errorf("re-read %s: its scanned pages need OCR, which cannot run here: install tesseract-ocr (and unset CARREL_OCR=off)", d.Title)
	}
	return d, nil
}

// OCRPageCount is how many pages of a document were read by OCR (0 when none, or when
// its info cannot be read).
func (in *Intake) OCRPageCount(docID string) int {
	info, err := in.DocumentInfo(docID)
	if err != nil {
		return 0
	}
	return len(info.OCRPages)
}

// rereadFile lists the documents [Intake.RereadMissingWords] has re-read, so that one
// whose pages give no word boxes however often it is read is not read at every start.
const rereadFile = "reread.json"

// MissingWords lists the ready documents with OCR'd pages but no word boxes stored for
// any of them: OCR'd before boxes were kept, so the viewer cannot highlight on their
// scanned pages.
func (in *Intake) MissingWords(ctx context.Context) ([]library.Document, error) {
	docs, err := in.lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	var out []library.Document
	for _, d := range docs {
		if d.Status != library.StatusReady || in.OCRPageCount(d.ID) == 0 {
			continue
		}
		pages, err := in.lib.WordPages(ctx, d.ID)
		if err != nil {
			return nil, err
		}
		if len(pages) == 0 {
			out = append(out, d)
		}
	}
	return out, nil
}

// RereadMissingWords re-reads, once each, the documents [Intake.MissingWords] lists,
// when OCR can run. It returns the ids it re-read; a document that fails is logged by
// the caller through the returned error and left as it was.
func (in *Intake) RereadMissingWords(ctx context.Context, progress ProgressFunc) ([]string, error) {
	if !ingest.OCRAvailable() {
		return nil, nil
	}
	docs, err := in.MissingWords(ctx)
	if err != nil || len(docs) == 0 {
		return nil, err
	}
	done := in.rereadDone()
	var ids []string
	var errs []error
	for _, d := range docs {
		if ctx.Err() != nil || slices.Contains(done, d.ID) {
			continue
		}
		done = append(done, d.ID)
		if err := in.saveRereadDone(done); err != nil {
			return ids, err
		}
		if _, err := in.Reread(ctx, d.ID, progress); err != nil {
			errs = append(errs, err)
			continue
		}
		ids = append(ids, d.ID)
	}
	return ids, errors.Join(errs...)
}

func (in *Intake) rereadDone() []string {
	var ids []string
	p := filepath.Join(in.dir, rereadFile)
	b, err := os.ReadFile(p)
	if err == nil {
		err = json.Unmarshal(b, &ids)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		// Then every document counts as not yet re-read: more work, nothing lost.
		slog.Warn("re-read: the record of re-read documents is unreadable; starting over", "file", p, "err", err)
		return nil
	}
	return ids
}

func (in *Intake) saveRereadDone(ids []string) error {
	b, _ := json.Marshal(ids)
	p := filepath.Join(in.dir, rereadFile)
	if err := os.WriteFile(p+".tmp", b, 0o644); err != nil {
		return fmt.Errorf("record re-read documents: %w", err)
	}
	if err := os.Rename(p+".tmp", p); err != nil {
		return fmt.Errorf("record re-read documents: %w", err)
	}
	return nil
}
