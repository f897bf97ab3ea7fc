// Package document names what Carrel knows a document as, declared once for every layer
// that reads, stores, chunks or shows one: its kind (how its file is read), its type
// (what kind of writing it is) and, for a recording, what turned its speech into text.
// The values are stored in SQLite, in chunking.json's keys and config.json and sent to
// the frontend as they are spelled here.
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

// Recognizer is what turned a recording's speech into text: stored with its transcript,
// chosen in config.json ("transcriber") and shown in Settings.
type Recognizer string

// Recognizers.
const (
	// RecognizerWhisper is whisper.cpp's command-line program with a model file the user
	// chose: good text, offline.
	RecognizerWhisper Recognizer = "whisper.cpp"
	// RecognizerPocketSphinx is CMU PocketSphinx with its US English model (Debian
	// pocketsphinx, pocketsphinx-en-us): offline and everywhere, but weak.
	RecognizerPocketSphinx Recognizer = "pocketsphinx"
	// RecognizerOpenAI is OpenAI's transcription endpoint, used only when the user has
	// turned OpenAI on; priced per minute.
	RecognizerOpenAI Recognizer = "openai"
	// RecognizerCaptions marks a transcript that is a video's own captions, not speech
	// recognised here.
	RecognizerCaptions Recognizer = "captions"
	// RecognizerNone names none: in the settings, the best local one at hand; among the
	// tools found, none there.
	RecognizerNone Recognizer = ""
)
