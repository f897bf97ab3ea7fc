package intake

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/carrel-app/carrel/backend/document"
)

// DocInfo is what ingest learned about a document beyond the library's columns, kept in
// a small JSON file per document (DIR/docinfo/ID.json) beside the library.
type DocInfo struct {
	// DocType is what kind of writing the document is (see Result.DocType).
	DocType document.Type `json:"doc_type,omitempty"`
	// OCRPages are the 1-based pages whose text was read by OCR (the UI marks them "OCR").
	OCRPages []int `json:"ocr_pages,omitempty"`
	// Warnings are problems that did not stop the ingest.
	Warnings []string `json:"warnings,omitempty"`
	// URL is where an online source was fetched from (its canonical address).
	URL string `json:"url,omitempty"`
}

func (in *Intake) docInfoPath(docID string) string {
	return filepath.Join(in.dir, "docinfo", filepath.Base(docID)+".json")
}

// putDocInfo saves a document's DocInfo, or removes it when there is nothing to say.
func (in *Intake) putDocInfo(docID string, info DocInfo) error {
	p := in.docInfoPath(docID)
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
func (in *Intake) DocumentInfo(docID string) (DocInfo, error) {
	var info DocInfo
	b, err := os.ReadFile(in.docInfoPath(docID))
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

// SetURL records that a document is a snapshot of url, an online source's canonical
// address (see DocInfo.URL).
func (in *Intake) SetURL(docID, url string) error {
	info, err := in.DocumentInfo(docID)
	if err == nil && info.URL != url {
		info.URL = url
		err = in.putDocInfo(docID, info)
	}
	return err
}
