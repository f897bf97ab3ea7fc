// Package envconfig is the one place that reads the environment variables Carrel
// understands. Each setting is a function that reads its variable when called, so a
// change (or a test's t.Setenv) takes effect at the next call; [All] lists every setting
// with its meaning, for documentation and for `carrel env`-style listings.
//
// Settings that belong to a library (models, provider, budget) live in the library's
// config.json (backend/settings), not here: the environment is for the machine (where
// things are, what is installed) and for switches that measure or debug Carrel.
package envconfig

import (
	"os"
	"strings"
	"sync"

	"github.com/carrel-app/carrel/backend/provider"
)

// Var describes one environment variable.
type Var struct {
	Name string
	// Usage says what it does and what values mean.
	Usage string
	// Value reads its current value ("" when unset).
	Value func() string
}

// The variables, by name.
const (
	LibraryVar      = "CARREL_LIBRARY"
	OCRVar          = "CARREL_OCR"
	TesseractVar    = "CARREL_TESSERACT"
	FFmpegVar       = "CARREL_FFMPEG"
	WhisperVar      = "CARREL_WHISPER"
	WhisperModelVar = "CARREL_WHISPER_MODEL"
	CacheDirVar     = "CARREL_CACHE_DIR"
	RerankVar       = "CARREL_RERANK"
	OllamaBinVar    = "CARREL_OLLAMA_BIN"
	OllamaTuneVar   = "CARREL_OLLAMA_TUNE"
	UIDumpVar       = "CARREL_UI_DUMP"
	CrashpointVar   = "CARREL_CRASHPOINT"
	ResolveVar      = "CARREL_RESOLVE"
	OllamaHostVar   = "OLLAMA_HOST"
	EmbedThreadsVar = "CARREL_EMBED_THREADS"
	OpenAIKeyVar    = "OPENAI_API_KEY"
	AnthropicKeyVar = "ANTHROPIC_API_KEY"
)

func get(name string) string { return os.Getenv(name) }

// Library is the library folder to open, overriding the one chosen in the app; "" when
// unset.
func Library() string { return get(LibraryVar) }

// OCROff reports whether OCR of scanned pages is switched off (CARREL_OCR=off, in any
// case): scanned documents are then reported as needing OCR instead of being read.
func OCROff() bool { return strings.EqualFold(get(OCRVar), "off") }

// Tesseract is the Tesseract program to run for OCR; "" looks for `tesseract` on PATH.
func Tesseract() string { return get(TesseractVar) }

// FFmpeg is the program that decodes audio and video; "" looks for `ffmpeg` on PATH.
func FFmpeg() string { return get(FFmpegVar) }

// Whisper is whisper.cpp's command-line program; "" looks for `whisper-cli` (or
// `whisper-cpp`) on PATH.
func Whisper() string { return get(WhisperVar) }

// WhisperModel is the ggml model file whisper.cpp runs when the settings name none.
func WhisperModel() string { return get(WhisperModelVar) }

// CacheDir is where ingest keeps its caches (the compiled PDFium module); "" uses the
// user cache directory.
func CacheDir() string { return get(CacheDirVar) }

// Reranker is the reranker run on retrieved passages: [RerankLexical], the lexical reader
// (backend/rerank), unless the variable says otherwise; [RerankOff] (or any other value)
// leaves retrieval's order.
func Reranker() Rerank {
	if v := get(RerankVar); v != "" {
		return Rerank(v)
	}
	return RerankLexical
}

// Rerank names a reranker.
type Rerank string

// The rerankers: backend/rerank's lexical reader, or none.
const (
	RerankLexical Rerank = "lexical"
	RerankOff     Rerank = "off"
)

// OllamaHost is the Ollama server's address as Ollama itself reads it (host, host:port
// or URL); "" means 127.0.0.1:11434. A library's config.json ollama_host wins over it.
func OllamaHost() string { return get(OllamaHostVar) }

// EmbedThreads is how many CPU threads the embedding model is asked to run on: a number,
// "server" for the Ollama server's own choice, "" for Carrel's (backend/llm: every core
// but one on 4 cores or more when the server is on this machine, else the server's).
func EmbedThreads() string { return strings.TrimSpace(get(EmbedThreadsVar)) }

// OllamaBin is the Ollama binary the tests and benches run; "" builds one into the user
// cache (internal/testollama).
func OllamaBin() string { return get(OllamaBinVar) }

// OllamaTuneOff reports whether the test Ollama is to be built plain (CARREL_OLLAMA_TUNE=off,
// in any case): ggml for baseline x86-64, a binary that runs on any x86-64 machine, instead
// of one compiled for this CPU (internal/testollama).
func OllamaTuneOff() bool { return strings.EqualFold(get(OllamaTuneVar), "off") }

// APIKey is a cloud provider's key from the environment (provider.OpenAI: OPENAI_API_KEY,
// provider.Anthropic: ANTHROPIC_API_KEY); the OS keyring is asked first (backend/llm). "" for an
// unknown provider or an unset variable.
func APIKey(p provider.Name) string {
	name := APIKeyVar(p)
	if name == "" {
		return ""
	}
	heldMu.Lock()
	k, ok := held[name]
	heldMu.Unlock()
	if ok {
		return k
	}
	return strings.TrimSpace(get(name))
}

var (
	heldMu sync.Mutex
	// held are the API keys HoldKeys took out of the environment, by variable.
	held map[string]string
)

// HoldKeys moves the cloud API keys from the process environment into memory: [APIKey]
// still returns them, but no child process inherits them. Every program Carrel starts
// (Ollama, Tesseract, ffmpeg, the recognisers, the browser xdg-open opens, WebKit's
// helper processes) would otherwise carry them in an environment other programs of the
// user can read (ps e, /proc/PID/environ), some for longer than Carrel runs. main calls
// it first thing, before any goroutine or child starts; os.Unsetenv is not safe beside
// concurrent environment reads in C code.
func HoldKeys() {
	heldMu.Lock()
	defer heldMu.Unlock()
	if held == nil {
		held = map[string]string{}
	}
	for _, name := range []string{OpenAIKeyVar, AnthropicKeyVar} {
		if v, ok := os.LookupEnv(name); ok {
			held[name] = strings.TrimSpace(v)
			os.Unsetenv(name)
		}
	}
}

// APIKeyVar is the variable holding a provider's key, or "" for an unknown provider.
func APIKeyVar(p provider.Name) string {
	switch p {
	case provider.OpenAI:
		return OpenAIKeyVar
	case provider.Anthropic:
		return AnthropicKeyVar
	}
	return ""
}

// GCTunedByUser reports whether GOGC or GOMEMLIMIT is set: ingest then leaves the
// garbage collector as the user set it instead of raising its target.
func GCTunedByUser() bool { return os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" }

// UIDump is the file the desktop window writes its visible text to whenever the page
// changes, for the window test (app/uidump.go); "" (always, for users) writes nothing.
func UIDump() string { return get(UIDumpVar) }

// Crashpoint arms backend/crashpoint for the crash-injection tests: NAME:N kills the
// process the N-th time it reaches point NAME, "count" only counts; "" (always, for
// users) arms nothing.
func Crashpoint() string { return get(CrashpointVar) }

// Resolve maps host names of online sources to other addresses, as curl's --resolve
// does: "host:port:address" entries separated by commas ("news.ycombinator.com:443:
// 127.0.0.1:8443"). The request and its Host header are unchanged; only the connection
// goes elsewhere. For tests and for reaching a site through a local mirror; "" (always,
// for users) maps nothing.
func Resolve() string { return get(ResolveVar) }

// Language is the user's language from the locale (LC_ALL, LC_MESSAGES, LANG) as a
// BCP 47 tag ("de", "pt-BR"); "" for the C/POSIX locale or none. YouTube captions in
// this language are preferred, English otherwise.
func Language() string {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := get(name)
		if v == "" {
			continue
		}
		v, _, _ = strings.Cut(v, ".")
		v, _, _ = strings.Cut(v, "@")
		if v == "C" || v == "POSIX" {
			return ""
		}
		return strings.ReplaceAll(v, "_", "-")
	}
	return ""
}

// All lists every variable Carrel reads, in a stable order. API keys are listed with
// their value hidden.
func All() []Var {
	hidden := func(name string) func() string {
		return func() string {
			if get(name) == "" && APIKey(provider.Name(strings.ToLower(strings.TrimSuffix(name, "_API_KEY")))) == "" {
				return ""
			}
			return "(set)"
		}
	}
	return []Var{
		{LibraryVar, "library folder to open (wins over the folder chosen in the app)", Library},
		{OllamaHostVar, "Ollama's address (default 127.0.0.1:11434; a library's ollama_host wins)", OllamaHost},
		{EmbedThreadsVar, "threads the embedding model runs on: N, or server for Ollama's own choice (default: every core but one from 4 cores on, when Ollama runs on this machine)", EmbedThreads},
		{OCRVar, "off: do not OCR scanned pages", func() string { return get(OCRVar) }},
		{TesseractVar, "Tesseract program for OCR (default: tesseract on PATH)", Tesseract},
		{FFmpegVar, "ffmpeg program that decodes audio and video (default: ffmpeg on PATH)", FFmpeg},
		{WhisperVar, "whisper.cpp program for transcribing recordings (default: whisper-cli on PATH)", Whisper},
		{WhisperModelVar, "whisper.cpp model file (ggml-*.bin) when the settings name none", WhisperModel},
		{CacheDirVar, "ingest's cache folder, the compiled PDFium module (default: the user cache folder's carrel)", CacheDir},
		{RerankVar, "off: leave retrieved passages in retrieval's order (default lexical: the lexical reader reorders them; see docs/retrieval.md)", func() string { return string(Reranker()) }},
		{OpenAIKeyVar, "OpenAI API key, when the OS keyring has none", hidden(OpenAIKeyVar)},
		{AnthropicKeyVar, "Anthropic API key, when the OS keyring has none", hidden(AnthropicKeyVar)},
		{"GOGC", "Go's GC target; set (or GOMEMLIMIT), ingest leaves the GC alone", func() string { return os.Getenv("GOGC") }},
		{"GOMEMLIMIT", "Go's soft memory limit; see GOGC", func() string { return os.Getenv("GOMEMLIMIT") }},
		{OllamaBinVar, "tests and benches: the Ollama binary to run (default: built into the user cache)", OllamaBin},
		{OllamaTuneVar, "tests and benches: off builds the test Ollama for baseline x86-64 instead of this CPU", func() string { return get(OllamaTuneVar) }},
		{ResolveVar, "online sources: host:port:address entries (commas between) that send a host's connections elsewhere, like curl --resolve (unset: nothing)", Resolve},
		{CrashpointVar, "crash tests: NAME:N kills the process at the N-th pass of a named write point (unset: nothing)", Crashpoint},
		{UIDumpVar, "window test: file the desktop window writes its visible text to (unset: nothing written)", UIDump},
	}
}
