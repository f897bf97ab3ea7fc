package app

import (
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/provider"
)

// Event names an event the backend sends to the frontend, as area:what. Each carries
// the payload type listed in [Events]; frontend/src/lib/bridge.gen.ts is generated from
// that list (go generate ./app), and a test fails when it is stale.
type Event string

// Every event the backend sends.
const (
	EventLibraryChanged  Event = "library:changed"
	EventLibrarySwitched Event = "library:switched"
	EventStatusChanged   Event = "status:changed"
	EventAnswerStart     Event = "answer:start"
	EventAnswerToken     Event = "answer:token"
	EventAnswerDone      Event = "answer:done"
	EventAnswerError     Event = "answer:error"
	EventSessionChanged  Event = "session:changed"
	EventMeterChanged    Event = "meter:changed"
	EventModelPull       Event = "model:pull"
	EventWatchSynced     Event = "watch:synced"
	EventMemoryChanged   Event = "memory:changed"
	EventDocumentOpen    Event = "document:open"
	EventLibraryKnown    Event = "library:known"
	EventSummaryStart    Event = "summary:start"
	EventSummaryToken    Event = "summary:token"
	EventSummarySection  Event = "summary:section"
	EventSummaryDone     Event = "summary:done"
	EventSummaryError    Event = "summary:error"
	EventCardsProgress   Event = "cards:progress"
)

// EventPayload pairs an event with a value of the type it carries (and of the other
// type it may carry instead).
type EventPayload struct {
	Name    Event
	Payload any
	Or      any
}

// Events lists every event with its payload type, in the order above.
var Events = []EventPayload{
	// A Document added, changed or removed (Status library.StatusRemoved).
	{EventLibraryChanged, Document{}, nil},
	// The LibraryFolder after the app changed to another library folder: everything the
	// frontend shows must be fetched again.
	{EventLibrarySwitched, LibraryFolder{}, nil},
	{EventStatusChanged, engine.Status{}, nil},
	{EventAnswerStart, AnswerStart{}, nil},
	{EventAnswerToken, AnswerToken{}, nil},
	{EventAnswerDone, AnswerDone{}, nil},
	{EventAnswerError, AnswerError{}, nil},
	// A session created, answered in or renamed (library.Session), or deleted
	// (SessionDeleted).
	{EventSessionChanged, library.Session{}, SessionDeleted{}},
	// The Meter after an answer was paid for or the settings changed.
	{EventMeterChanged, Meter{}, nil},
	// A model download's progress.
	{EventModelPull, PullEvent{}, nil},
	// A watched folder's changes were taken in.
	{EventWatchSynced, engine.WatchSync{}, nil},
	// The MemorySettings after memories were learnt or edited.
	{EventMemoryChanged, MemorySettings{}, nil},
	// A Document given to Carrel from outside (a file manager's Open with, a second
	// launch) has been read: the frontend shows it in the viewer.
	{EventDocumentOpen, Document{}, nil},
	// A file added from the window was already in the library (the same content): the
	// Document it already is, so the frontend can say so.
	{EventLibraryKnown, Document{}, nil},
	// A summary (StartSummary) began: its passages and the model calls planned.
	{EventSummaryStart, SummaryStart{}, nil},
	// The next piece of the model's text for the summary's current step.
	{EventSummaryToken, SummaryToken{}, nil},
	// A section of the summary is done (grounded; the overview comes last).
	{EventSummarySection, SummaryPart{}, nil},
	{EventSummaryDone, SummaryDone{}, nil},
	{EventSummaryError, SummaryError{}, nil},
	// Cards asked of the model: passages done so far.
	{EventCardsProgress, CardsProgress{}, nil},
}

// Emitter sends an event to the frontend.
type Emitter interface {
	Emit(name Event, data any)
}

// pathIDPrefix starts the id of a Document event for a file that failed before it had
// an identity (a missing file): "path:" and its path.
const pathIDPrefix = "path:"

// stoppedMessage is the message of answer:error and summary:error when the user stopped
// the answer or summary (the frontend tells a stop from a failure by it).
const stoppedMessage = "stopped"

// AnswerStart opens an answer: the passages it is given, before any token.
type AnswerStart struct {
	AskID     string         `json:"ask_id"`
	Question  string         `json:"question"`
	Citations []chat.Passage `json:"citations"`
	// SessionID is the study session the answer is saved in.
	SessionID string `json:"session_id"`
}

// AnswerToken is the next piece of an answer's text.
type AnswerToken struct {
	AskID string `json:"ask_id"`
	Text  string `json:"text"`
}

// AnswerDone closes an answer.
type AnswerDone struct {
	AskID      string             `json:"ask_id"`
	Answer     string             `json:"answer"`
	Citations  []chat.Passage     `json:"citations"`
	Usage      chat.Usage         `json:"usage"`
	Model      string             `json:"model"`
	Mode       library.AnswerMode `json:"mode"`
	Note       string             `json:"note"`
	Provider   provider.Name      `json:"provider"`
	Truncated  bool               `json:"truncated"`
	Question   string             `json:"question"`
	Standalone string             `json:"standalone"`
	SessionID  string             `json:"session_id"`
	MessageID  int64              `json:"message_id"`
	// Warning is a budget warning (from 80% of the cloud budget).
	Warning string       `json:"warning"`
	Claims  []chat.Claim `json:"claims"`
	// Cached is true when the answer came from the answer cache; CachedFrom says whence.
	Cached     bool             `json:"cached"`
	CachedFrom *chat.CachedFrom `json:"cached_from"`
}

// AnswerError ends an answer that failed or was stopped.
type AnswerError struct {
	AskID string `json:"ask_id"`
	// Message says why (stoppedMessage when the user stopped it).
	Message string `json:"message"`
	// Partial is the text that arrived before.
	Partial string `json:"partial"`
	// Pull names the chat model to download when it is not installed in Ollama.
	Pull string `json:"pull,omitempty"`
	// AnswerSaved is there when what arrived was saved in a session.
	*AnswerSaved
}

// AnswerSaved says where a stopped or failed answer was saved.
type AnswerSaved struct {
	SessionID string         `json:"session_id"`
	MessageID int64          `json:"message_id"`
	Stopped   bool           `json:"stopped"`
	Citations []chat.Passage `json:"citations"`
}

// SessionDeleted is session:changed for a deleted session.
type SessionDeleted struct {
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// SummaryStart opens a summary: what it covers and its passages, before any token.
type SummaryStart struct {
	ID       string              `json:"id"`
	DocID    string              `json:"doc_id"`
	Title    string              `json:"title"`
	Scope    engine.SummaryScope `json:"scope"`
	Steps    int                 `json:"steps"`
	Passages []chat.Passage      `json:"passages"`
}

// SummaryToken is the next piece of the model's text in step Step (0-based) of Steps.
type SummaryToken struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Step     int    `json:"step"`
	Steps    int    `json:"steps"`
	Reducing bool   `json:"reducing"`
}

// SummaryPart is a section of a summary, done.
type SummaryPart struct {
	ID      string                `json:"id"`
	Section engine.SummarySection `json:"section"`
	Step    int                   `json:"step"`
	Steps   int                   `json:"steps"`
}

// SummaryDone closes a summary: all of it, saved in its session.
type SummaryDone struct {
	ID      string         `json:"id"`
	Summary engine.Summary `json:"summary"`
}

// SummaryError ends a summary that failed or was stopped (stoppedMessage); what was done is
// saved in SessionID when MessageID is not 0.
type SummaryError struct {
	ID        string `json:"id"`
	Message   string `json:"message"`
	SessionID string `json:"session_id"`
	MessageID int64  `json:"message_id"`
}

// CardsProgress counts the passages the model was asked for cards so far (Key is the
// id Cancel takes).
type CardsProgress struct {
	Key   string `json:"key"`
	Done  int    `json:"done"`
	Total int    `json:"total"`
	Kept  int    `json:"kept"`
}
