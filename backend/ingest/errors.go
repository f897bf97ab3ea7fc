package ingest

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// The catalogue of ingest failures. Each is a kind: [File] returns an
// [*Error] that matches exactly one of them with [errors.Is], and whose
// message is a one-line sentence a user can act on. Failures outside the
// catalogue (a missing file, a cancelled context) are returned wrapped with
// their usual kinds (fs.ErrNotExist, context.Canceled).
var (
	// ErrEncrypted: the PDF needs a password to be opened.
	ErrEncrypted = errors.New("password-protected")
	// ErrCorrupt: the file claims to be a PDF but cannot be read.
	ErrCorrupt = errors.New("damaged")
	// ErrEmpty: the file has zero bytes (or, for text, no text at all).
	ErrEmpty = errors.New("empty")
	// ErrNotPDF: the file is named .pdf but its content is something else.
	ErrNotPDF = errors.New("not a PDF")
	// ErrNoText: the PDF has pages but no text layer (scanned images).
	ErrNoText = errors.New("no text layer")
	// ErrUnsupported: a kind of file Carrel cannot read yet.
	ErrUnsupported = errors.New("unsupported file type")
	// ErrTooLarge: the file, or what it unpacks to, is over one of the
	// limits in limits.go.
	ErrTooLarge = errors.New("too large")
	// ErrNoAudio: an audio or video file with no audio track to transcribe.
	ErrNoAudio = errors.New("no audio track")
	// ErrMissingTool: a program needed to read the file is not installed (ffmpeg,
	// a speech recogniser); Detail says which and how to install it.
	ErrMissingTool = errors.New("a program is missing")
)

// formats names what Carrel reads, for ErrUnsupported's message.
const formats = "Carrel reads PDF, Word (.docx), EPUB, e-mail (.eml), web pages (.html, .mhtml), text, Markdown, source code, audio (.mp3, .m4a, .wav, .ogg, .flac) and video (.mp4, .mkv, .webm, .mov)"

// Error is an ingest failure from the catalogue above.
type Error struct {
	// Kind is one of the Err* sentinels of this package.
	Kind error
	// Path is the file that failed.
	Path string
	// Detail names what is broken or what the file looks like, when known
	// ("cross-reference table is missing", "a PNG image"). May be empty.
	Detail string
	// Err is the underlying cause from pdfcpu, pdfium or the OS, if any.
	Err error
}

// Error returns a one-line message that names the file and says what the
// user can do about it.
func (e *Error) Error() string {
	name := filepath.Base(e.Path)
	switch e.Kind {
	case ErrEncrypted:
		if !isPDFName(e.Path) {
			return fmt.Sprintf("%s is password-protected; save an unprotected copy and add that", name)
		}
		return fmt.Sprintf("%s is password-protected; enter its password, or save an unprotected copy and add that", name)
	case ErrTooLarge:
		return fmt.Sprintf("%s is too large: %s; split it, or add the parts you need", name, e.Detail)
	case ErrCorrupt:
		if !isPDFName(e.Path) {
			if e.Detail != "" {
				return fmt.Sprintf("%s is damaged and cannot be read (%s); try re-downloading it or saving it again from the program that made it", name, e.Detail)
			}
			return fmt.Sprintf("%s is damaged and cannot be read; try re-downloading it or saving it again from the program that made it", name)
		}
		if e.Detail != "" {
			return fmt.Sprintf("%s is damaged and cannot be read (%s); try re-downloading it or re-saving it from a PDF viewer", name, e.Detail)
		}
		return fmt.Sprintf("%s is damaged and cannot be read; try re-downloading it or re-saving it from a PDF viewer", name)
	case ErrEmpty:
		if e.Detail != "" {
			return fmt.Sprintf("%s is empty (%s); check that it was saved or downloaded completely", name, e.Detail)
		}
		return fmt.Sprintf("%s is empty (0 bytes); check that it was saved or downloaded completely", name)
	case ErrNotPDF:
		looks := e.Detail
		if looks == "" {
			looks = "unknown data"
		}
		return fmt.Sprintf("%s is a .pdf file that is not a PDF: it looks like %s; rename it or export it as PDF", name, looks)
	case ErrNoText:
		switch {
		case errors.Is(e.Err, ErrOCRMissing):
			return fmt.Sprintf("%s has no text layer: its %s", name, ErrOCRMissing)
		case e.Detail != "":
			return fmt.Sprintf("%s has no text layer, and %s", name, e.Detail)
		}
		return fmt.Sprintf("%s has no text layer and no scanned image to read by OCR: its pages are blank or drawings", name)
	case ErrNoAudio:
		if e.Detail != "" {
			return fmt.Sprintf("%s has no audio track to transcribe (%s)", name, e.Detail)
		}
		return fmt.Sprintf("%s has no audio track to transcribe: it holds no sound, only pictures", name)
	case ErrMissingTool:
		return fmt.Sprintf("%s cannot be read: %s", name, e.Detail)
	case ErrUnsupported:
		if e.Detail != "" {
			return fmt.Sprintf("%s: %s; %s", name, e.Detail, formats)
		}
		return fmt.Sprintf("%s: this type of file is not supported; %s", name, formats)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", name, e.Err)
	}
	return name + ": cannot be read"
}

// Unwrap lets errors.Is match both the kind and the underlying cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// isPDFName reports whether path names a PDF (or has no telling extension,
// as PDFs found by their header may not).
func isPDFName(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".pdf" || ext == ""
}

func newError(kind error, path, detail string, cause error) *Error {
	return &Error{Kind: kind, Path: path, Detail: detail, Err: cause}
}
