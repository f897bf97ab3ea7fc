// Package ingest turns a source file into text with page numbers: the first
// step of Carrel's ingest → chunk → index → retrieve → answer pipeline.
//
// [File] reads a PDF, Word (.docx), EPUB, e-mail (.eml), web page (.html,
// .mhtml), plain-text, Markdown or source file and returns a [Document]: its
// metadata, the content hash of its bytes, the normalised text of every
// page (physical for PDF; about [TextPageSize] characters, chapters apart,
// for the others) and its outline. [Expand] turns folders into the files
// to read, and [Supported] tells which names are read. PDFs are read with pdfcpu for structure
// (validation, page count, info dictionary, bookmarks, encryption) and with
// PDFium, compiled to WebAssembly and run by wazero, for the text of each
// page in reading order. Failures are [*Error] values of a small catalogue
// ([ErrEncrypted], [ErrCorrupt], [ErrEmpty], [ErrNotPDF], [ErrNoText],
// [ErrUnsupported]) whose messages tell the user what to do.
package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/carrel-app/carrel/backend/document"
)

// Document is one ingested source file.
type Document struct {
	// Path is the file as given to [File].
	Path string
	// Title is the document's title: the PDF info dictionary's title, a
	// Markdown front-matter title or first heading, else the first line of
	// text, else the file name without its extension.
	Title string
	// Author is the author from the PDF info dictionary or Markdown front
	// matter; often empty.
	Author string
	// Kind is how the file was read.
	Kind document.Kind
	// SHA256 is the hex SHA-256 of the file's bytes: the document's identity.
	SHA256 string
	// Bytes is the size of the file.
	Bytes int64
	// Pages holds one entry per physical page, in order; Pages[i].Number is
	// i+1. Text files are cut into pages of about [TextPageSize] characters
	// at paragraph or line breaks so that citations can point into them.
	Pages []Page
	// Outline is the document's table of contents in reading order: PDF
	// bookmarks, or Markdown headings. May be empty.
	Outline []Heading
	// Attachments are files attached to a mail, to be ingested as
	// documents of their own (the mail's text does not include them).
	// Only mails have them.
	Attachments []Attachment
	// DocType is what kind of writing the document is, found by [DetectType];
	// chunk sizes follow it.
	DocType document.Type
	// OCRPages lists the 1-based pages whose text was read by OCR from a
	// scanned image (PDF pages without a text layer); their text may hold
	// recognition errors, and the viewer has no text layer to highlight in.
	OCRPages []int
	// Warnings lists problems that did not stop ingestion, such as a page
	// whose text could not be read. Each is a short sentence.
	Warnings []string
	// URL is the address the document was fetched from: a web page's
	// rel=canonical link, a thread's address; "" for other files.
	URL string
	// PagePassages asks for each page to be cut into passages of its own,
	// none crossing a page break: each comment of a thread is a page, and
	// a citation of it names that comment.
	PagePassages bool
	// Transcript is set for recordings (document.KindAudio, document.KindVideo): the timed text
	// the pages hold, see [LayoutTranscript].
	Transcript *Transcript
}

// Attachment is a file found inside a document (a mail's attachment).
type Attachment struct {
	// Name is the attachment's file name as the sender gave it, reduced to
	// a safe base name ("report.pdf"); never empty.
	Name string
	// Data is its content, decoded.
	Data []byte
}

// Page is the text of one physical page.
type Page struct {
	// Number is the 1-based physical page number (not the printed label).
	Number int
	// Text is the page's normalised text in reading order: lines separated
	// by "\n", paragraphs (where known) by "\n\n", no control characters,
	// no runs of spaces, no leading or trailing white space. It may be "".
	Text string
	// OCR is where the words of Text are on a page read by OCR (nil on
	// other pages), for the viewer to highlight in (ocr_words.go).
	OCR *OCRLayout
}

// Heading is one entry of a document outline.
type Heading struct {
	// Title is the heading text, white space collapsed.
	Title string
	// Page is the 1-based physical page the heading points to.
	Page int
	// Level is the depth in the outline, 1 for top-level entries.
	Level int
}

// Progress reports extraction progress: done of total pages. It is called
// from ingest's goroutines, never concurrently, with done increasing.
type Progress func(done, total int)

// Options tune [FileWithOptions].
type Options struct {
	// Password opens a password-protected PDF; ignored for other files.
	Password string
	// Progress, if not nil, is told about extracted pages.
	Progress Progress
	// OCR tunes the reading of scanned PDF pages; the zero value reads
	// them when Tesseract is installed.
	OCR OCROptions
	// Media tunes the transcription of audio and video files (media.go).
	Media MediaOptions
}

// File reads the file at path and returns its text and metadata. The kind of
// file is decided by its content (a PDF is recognised by its header whatever
// its name) and then by its extension (see [Supported]). Files over the
// limits in limits.go fail with [ErrTooLarge] before they are read.
//
// Errors are [*Error] values matching one of the Err* kinds with errors.Is,
// or wrapped OS errors and ctx.Err(). On [ErrNoText] the returned Document is
// not nil: it carries the metadata and the (empty) pages, so that a caller
// can offer OCR. ctx is checked between pages.
func File(ctx context.Context, path string, progress func(done, total int)) (*Document, error) {
	return FileWithOptions(ctx, path, Options{Progress: progress})
}

// FileWithOptions is [File] with a password and further options.
func FileWithOptions(ctx context.Context, path string, opts Options) (doc *Document, err error) {
	defer func() {
		if v := recover(); v != nil {
			doc, err = nil, fmt.Errorf("%s: %w", filepath.Base(path), panicError("ingest", v))
		}
	}()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ext := strings.ToLower(filepath.Ext(path))
	if mediaExts[ext] != "" {
		return fileMedia(ctx, path, opts)
	}
	data, err := readLimited(path)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	doc = &Document{
		Path:   path,
		SHA256: hex.EncodeToString(sum[:]),
		Bytes:  int64(len(data)),
	}
	if len(data) == 0 {
		return nil, newError(ErrEmpty, path, "", nil)
	}

	if err := readAs(ctx, doc, path, ext, data, opts); err != nil {
		var ie *Error
		if errors.As(err, &ie) && ie.Kind == ErrNoText {
			doc.DocType = document.TypeGeneral
			return doc, err
		}
		return nil, err
	}
	doc.DocType = DetectType(doc)
	if doc.Kind != document.KindPDF && doc.Kind != document.KindText && opts.Progress != nil {
		opts.Progress(len(doc.Pages), len(doc.Pages))
	}
	return doc, nil
}

// readAs reads data into doc as the format its content and extension say (setting
// doc.Kind), or says why it cannot be read.
func readAs(ctx context.Context, doc *Document, path, ext string, data []byte, opts Options) error {
	switch {
	case isPDF(data):
		doc.Kind = document.KindPDF
		return readPDF(ctx, doc, data, opts)
	case ext == ".pdf":
		return newError(ErrNotPDF, path, describe(data), nil)
	case isCFB(data) && (ext == ".docx" || ext == ".epub"):
		// A password-protected Office file is an OLE container holding
		// the encrypted package.
		return newError(ErrEncrypted, path, "", nil)
	case (ext == ".eml" || ext == ".mht" || ext == ".mhtml" || htmlExts[ext]) && looksBinary(data):
		return newError(ErrUnsupported, path,
			fmt.Sprintf("a %s file that is not text: it looks like %s", strings.TrimPrefix(ext, "."), describe(data)), nil)
	case ext == ".doc":
		return newError(ErrUnsupported, path, "old Word (.doc) files are not supported; save it as .docx or PDF", nil)
	case docxExts[ext]:
		doc.Kind = document.KindDOCX
		return readDOCX(ctx, doc, data)
	case ext == ".epub":
		doc.Kind = document.KindEPUB
		return readEPUB(ctx, doc, data)
	case ext == ".eml":
		doc.Kind = document.KindEmail
		return readEML(ctx, doc, data)
	case ext == ".mht" || ext == ".mhtml":
		doc.Kind = document.KindHTML
		return readMHTML(ctx, doc, data)
	case htmlExts[ext]:
		doc.Kind = document.KindHTML
		return readHTML(ctx, doc, data)
	case ext == ".json" && isThread(data):
		doc.Kind = document.KindThread
		return readThread(ctx, doc, data)
	case ext == ".json" && isCaptions(data):
		doc.Kind = document.KindVideo
		return readCaptions(ctx, doc, data)
	case textExts[ext] || isCode(path):
		if looksBinary(data) {
			return newError(ErrUnsupported, path,
				fmt.Sprintf("a %s file that is not text: it looks like %s", strings.TrimPrefix(ext, "."), describe(data)), nil)
		}
		if textExts[ext] {
			doc.Kind = document.KindText
			return readText(ctx, doc, data, ext, opts.Progress)
		}
		doc.Kind = document.KindCode
		return readCode(ctx, doc, data)
	default:
		detail := "files without an extension are not supported"
		if ext != "" {
			detail = ext + " files are not supported yet"
		}
		return newError(ErrUnsupported, path, detail, nil)
	}
}

// Admit checks, without reading it, that the file at path can be read: it
// exists, is a regular file (not a folder, device or pipe) and is within
// the size limit for its kind ([MaxFileSize], or [MaxTextFileSize] for
// text, web pages, mail and source). Errors are [*Error] values
// ([ErrUnsupported], [ErrTooLarge]) or wrapped OS errors.
func Admit(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return openError(path, err)
	}
	return admit(path, st)
}

func admit(path string, st os.FileInfo) error {
	if st.IsDir() {
		return newError(ErrUnsupported, path, "this is a folder; add the files inside it", nil)
	}
	if !st.Mode().IsRegular() {
		return newError(ErrUnsupported, path, "this is not a regular file (a device, pipe or socket)", nil)
	}
	if limit := sizeLimit(path); st.Size() > limit {
		return tooLarge(path, st.Size(), limit)
	}
	return nil
}

// sizeLimit is the largest file of path's kind that is read.
func sizeLimit(path string) int64 {
	ext := strings.ToLower(filepath.Ext(path))
	if textExts[ext] || htmlExts[ext] || ext == ".eml" || ext == ".mht" || ext == ".mhtml" || isCode(path) {
		return MaxTextFileSize
	}
	if mediaExts[ext] != "" {
		return MaxMediaFileSize
	}
	return MaxFileSize
}

func tooLarge(path string, n, limit int64) error {
	ext := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	what := "files"
	if ext != "" {
		what = ext + " files"
	}
	return newError(ErrTooLarge, path, fmt.Sprintf("%s, and Carrel reads %s up to %s", humanBytes(n), what, humanBytes(limit)), nil)
}

// readLimited reads the file at path whole, refusing what [Admit] refuses
// before reading it.
func readLimited(path string) ([]byte, error) {
	// Stat before opening: opening a named pipe would wait for a writer.
	if err := Admit(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if err := admit(path, st); err != nil {
		return nil, err
	}
	limit := sizeLimit(path)
	// Sized from the file's length: io.ReadAll's doubling allocated twice
	// the file. A file that grows while read still stops at limit+1.
	buf := bytes.NewBuffer(make([]byte, 0, min(st.Size(), limit)+bytes.MinRead))
	_, err = buf.ReadFrom(io.LimitReader(f, limit+1))
	data := buf.Bytes()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	if int64(len(data)) > limit { // it grew while we read it
		return nil, tooLarge(path, int64(len(data)), limit)
	}
	return data, nil
}

// openError words a failure to open path for the user, keeping its kind
// for errors.Is (fs.ErrNotExist, fs.ErrPermission).
func openError(path string, err error) error {
	name := filepath.Base(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s was moved or deleted since it was added: %w", name, fs.ErrNotExist)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s cannot be opened: permission denied; check the file's permissions: %w", name, fs.ErrPermission)
	}
	return fmt.Errorf("%s cannot be opened: %w", name, err)
}

// isCFB reports whether data is an OLE compound file (old Office formats,
// and password-protected new ones).
func isCFB(data []byte) bool {
	return bytes.HasPrefix(data, []byte("\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"))
}

var (
	docxExts = map[string]bool{".docx": true, ".docm": true, ".dotx": true}
	htmlExts = map[string]bool{".html": true, ".htm": true, ".xhtml": true}
)

var textExts = map[string]bool{".txt": true, ".text": true, ".md": true, ".markdown": true}

// isPDF reports whether data starts with a PDF header. The PDF spec and
// every reader tolerate some bytes before "%PDF-"; we allow 1 KiB.
func isPDF(data []byte) bool {
	head := data[:min(len(data), 1024)]
	return bytes.Contains(head, []byte("%PDF-"))
}

// magic lists signatures of file types users commonly mistake for, or
// rename to, PDF.
var magic = []struct {
	sig  string
	off  int
	name string
}{
	{"\x89PNG\r\n\x1a\n", 0, "a PNG image"},
	{"\xff\xd8\xff", 0, "a JPEG image"},
	{"GIF87a", 0, "a GIF image"},
	{"GIF89a", 0, "a GIF image"},
	{"II*\x00", 0, "a TIFF image"},
	{"MM\x00*", 0, "a TIFF image"},
	{"BM", 0, "a BMP image"},
	{"RIFF", 0, "a RIFF (WebP/WAV/AVI) file"},
	{"\x00\x00\x00\x0cjP  ", 0, "a JPEG 2000 image"},
	{"ftypheic", 4, "a HEIC image"},
	{"ftyp", 4, "a video or audio file (MP4/MOV)"},
	{"PK\x03\x04", 0, "a ZIP archive (Word, EPUB or other Office document?)"},
	{"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 0, "an old Microsoft Office document (.doc/.xls/.ppt)"},
	{"{\\rtf", 0, "an RTF document"},
	{"%!PS", 0, "a PostScript file"},
	{"AT&TFORM", 0, "a DjVu document"},
	{"\x1f\x8b", 0, "a gzip-compressed file"},
	{"7z\xbc\xaf\x27\x1c", 0, "a 7-Zip archive"},
	{"Rar!", 0, "a RAR archive"},
	{"\x7fELF", 0, "a program (ELF executable)"},
	{"MZ", 0, "a Windows program"},
	{"ID3", 0, "an MP3 audio file"},
	{"OggS", 0, "an Ogg audio file"},
	{"fLaC", 0, "a FLAC audio file"},
}

// describe names what data looks like, for ErrNotPDF and ErrUnsupported.
func describe(data []byte) string {
	binary := looksBinary(data)
	for _, m := range magic {
		if len(m.sig) <= 2 && !binary {
			continue // "BM…", "MZ…" may as well start a line of text
		}
		if len(data) >= m.off+len(m.sig) && string(data[m.off:m.off+len(m.sig)]) == m.sig {
			return m.name
		}
	}
	head := strings.ToLower(strings.TrimSpace(string(data[:min(len(data), 512)])))
	switch {
	case strings.HasPrefix(head, "<!doctype html") || strings.HasPrefix(head, "<html"):
		return "a web page (HTML)"
	case strings.HasPrefix(head, "<?xml") || strings.HasPrefix(head, "<svg"):
		return "an XML or SVG file"
	case strings.HasPrefix(head, "{") || strings.HasPrefix(head, "["):
		if !binary {
			return "JSON or other text"
		}
	}
	if !binary {
		return "plain text"
	}
	return "binary data of an unknown kind"
}

// looksBinary reports whether the start of data holds NUL bytes or many
// control characters, as text never does. UTF-16 text (with a BOM) is text.
func looksBinary(data []byte) bool {
	if hasUTF16BOM(data) {
		return false
	}
	head := data[:min(len(data), 8192)]
	ctl := 0
	for _, b := range head {
		switch {
		case b == 0:
			return true
		case b < 0x20 && b != '\n' && b != '\r' && b != '\t' && b != '\f' && b != 0x1b:
			ctl++
		}
	}
	return ctl*100 > len(head) // more than 1% control bytes
}
