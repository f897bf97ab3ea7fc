package ingest

import "fmt"

// Limits that keep one hostile or oversized file from exhausting memory.
// A file over its limit fails with [ErrTooLarge]; nothing else is affected.
const (
	// MaxFileSize is the largest file read at all (PDF, Word, EPUB): it is
	// read into memory whole, and PDFium holds a second copy.
	MaxFileSize = 512 << 20
	// MaxTextFileSize is the largest text, Markdown, HTML, mail or source
	// file: their text is copied a few times while it is cleaned.
	MaxTextFileSize = 64 << 20
	// MaxCodeFileSize is the largest source file picked up from a folder;
	// larger ones are nearly always generated (bundles, lock files, data).
	MaxCodeFileSize = 1 << 20
	// MaxUnpacked caps the bytes decompressed from one Word or EPUB file
	// (a zip bomb expands a few KB into gigabytes), and MaxText the text
	// kept from any one document.
	MaxUnpacked = 128 << 20
	MaxText     = 64 << 20
	// MaxZipEntries caps the entries of a Word or EPUB archive.
	MaxZipEntries = 20000
	// MaxAttachments caps the attachments returned for one mail, and
	// MaxMIMEParts the parts read from it.
	MaxAttachments = 100
	MaxMIMEParts   = 1000
)

// humanBytes formats n as "512 MB", "3.2 KB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	units := "KMGTPE"
	v, i := float64(n)/unit, 0
	for v >= unit && i < len(units)-1 {
		v /= unit
		i++
	}
	if v >= 10 || v == float64(int64(v)) {
		return fmt.Sprintf("%.0f %cB", v, units[i])
	}
	return fmt.Sprintf("%.1f %cB", v, units[i])
}
