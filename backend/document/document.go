// Package document names what Carrel knows a document as, declared once for every layer
// that reads, stores, chunks or shows one: its kind (how its file is read) and its type
// (what kind of writing it is). The values are stored in SQLite, in chunking.json's
// keys and sent to the frontend as they are spelled here.
package document

// Kind is how a document's file is read: its format family, whatever its extension.
type Kind string

// Kinds of document.
const (
	KindPDF   Kind = "pdf"
	KindText  Kind = "text" // plain text and Markdown
	KindDOCX  Kind = "docx"
	KindEPUB  Kind = "epub"
	KindEmail Kind = "email"
	KindHTML  Kind = "html" // web pages, saved whole (.mhtml) or not
	KindCode  Kind = "code" // source files
	// KindThread is a discussion thread saved by backend/online.
	KindThread Kind = "thread"
	// Recordings: their text is a transcript, each passage tied to the time it was said.
	KindAudio Kind = "audio" // .mp3 .m4a .wav .ogg .flac
	KindVideo Kind = "video" // .mp4 .mkv .webm .mov, and videos by URL (captions)
)

// Type is what kind of writing a document is, whatever its file format; backend/ingest
// detects it, and chunking is tuned per type (backend/chunk).
type Type string

// Document types.
const (
	TypePaper    Type = "paper"         // research paper, thesis chapter, preprint
	TypeTextbook Type = "textbook"      // book with chapters and exercises
	TypeDocs     Type = "documentation" // manuals, API references, specifications, standards
	TypeCode     Type = "code"          // source code
	TypeMail     Type = "mail"          // e-mail
	TypeGeneral  Type = "general"       // anything else: essays, literature, notes, articles
)

// Types lists the document types, most specific first.
var Types = []Type{TypePaper, TypeTextbook, TypeDocs, TypeCode, TypeMail, TypeGeneral}
