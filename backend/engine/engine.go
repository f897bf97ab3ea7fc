// Package engine wires Carrel's backend together: the library, both indexes, the models
// and retrieval; taking documents in is backend/intake's (Engine.Intake) and asking in
// study sessions backend/asking's (Engine.Asking), each over the engine. The desktop
// bridge (app/) and the CLI both drive an Engine.
package engine

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/intake"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/memory"
	"github.com/carrel-app/carrel/backend/online"
	"github.com/carrel-app/carrel/backend/provider"
	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/backend/summary"
)

// Engine is an open library with its indexes and model connection. It is safe for
// concurrent use.
type Engine struct {
	cfg    Config
	lib    *library.Library
	lex    *index.Lexical
	vec    *index.Vectors
	ollama *llm.Ollama
	// in takes documents in (intake.go); answers is the answer cache, asker the
	// sessions and asking over it, memory what is kept about the user (asking.go).
	in *intake.Intake
	// summaries makes study summaries (summary.go).
	summaries *summary.Summaries
	answers   *cache.Answers
	asker     *asking.Asker
	memory    *memory.Store
	lock      *library.Lock // this process's hold on the library folder

	// cfgMu guards cfg.ChatModel and cfg.EmbedModel, which SetModels changes.
	cfgMu sync.RWMutex

	statusMu sync.Mutex
	status   Status
	statusAt time.Time
	numCtx   map[string]int

	// threshMu serialises measuring the relevance threshold (threshold.go); thresh is
	// the last one measured or read.
	threshMu sync.Mutex
	thresh   Threshold

	// readOnly: the library folder cannot be written (damage.go); notices are what Open
	// repaired (a damaged index rebuilt), for the status.
	readOnly bool
	notices  []string

	// hosts counts the connections made to each host (online.go); baseDial is the
	// dialler before it counts (online sources count theirs by name).
	hosts *online.HostLog
	// threadLinks caches each thread's permalinks by page (online.go SourceURL); a
	// document's snapshot never changes (new content is a new document).
	threadLinks sync.Map
	baseDial    func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Open opens the library in cfg.Dir, creating it if needed, and finishes or rolls back
// work a crash interrupted.
func Open(cfg Config) (*Engine, error) {
	cfg = cfg.WithDefaults()
	if err := checkDatabaseKept(cfg.Dir); err != nil {
		return nil, err
	}
	// A library on a read-only disk or folder opens for searching and reading, unlocked:
	// no lock file can be written there, and nothing in it can change.
	readOnly := !library.Writable(cfg.Dir)
	// Taken first and without waiting: a second process learns at once who holds the
	// library (the indexes would make it wait forever; see library.LockDir).
	var lock *library.Lock
	if !readOnly {
		var err error
		if lock, err = library.LockDir(cfg.Dir); err != nil {
			return nil, err
		}
	}
	opened := false
	defer func() {
		if !opened {
			lock.Unlock()
		}
	}()
	open := library.Open
	if readOnly {
		open = library.OpenReadOnly
	}
	lib, err := open(cfg.Dir)
	if err != nil {
		return nil, err
	}
	var notices []string
	lex, err := openLexicalKept(filepath.Join(cfg.Dir, intake.LexicalDir), readOnly, &notices)
	if err != nil {
		lib.Close()
		return nil, fmt.Errorf("open lexical index: %w", err)
	}
	vec, err := openVectorsKept(filepath.Join(cfg.Dir, "vectors"), "vector index", readOnly, &notices)
	if err != nil {
		lex.Close()
		lib.Close()
		return nil, fmt.Errorf("open vector index: %w", err)
	}
	// Every connection the engine opens is counted by host (Settings lists them);
	// online sources record theirs by name, before CARREL_RESOLVE maps it.
	hosts := online.OpenHostLog(filepath.Join(cfg.Dir, HostsFile))
	if readOnly {
		hosts = online.OpenHostLog("")
	}
	baseDial := cfg.Dial
	cfg.Dial = hosts.Dial(cfg.Dial)
	e := &Engine{cfg: cfg, lib: lib, lex: lex, vec: vec, ollama: newOllama(cfg), numCtx: map[string]int{},
		readOnly: readOnly, hosts: hosts, baseDial: baseDial}
	e.in = intake.New(intakePort{e}, intake.Stores{Dir: cfg.Dir, Lib: lib, Lex: lex, Vec: vec, EmbedBatch: cfg.EmbedBatch})
	e.summaries = summary.New(summaryPort{e}, lib)
	if err := e.openAnswers(context.Background(), readOnly, &notices); err != nil {
		e.Close()
		return nil, library.Explain(cfg.Dir, err)
	}
	if n := thresholdNotice(cfg.Dir, vec.Len(), e.Config().MinVectorScore != 0); n != "" {
		notices = append(notices, n)
	}
	e.notices = notices
	if readOnly {
		return e, nil // nothing can be repaired; what is there is searched
	}
	err = e.in.Reconcile(context.Background())
	e.lex = e.in.Lexical() // rebuilt when it disagreed with the library
	if err != nil {
		e.Close()
		return nil, library.Explain(cfg.Dir, fmt.Errorf("check indexes against the library: %w", err))
	}
	e.lock, opened = lock, true
	return e, nil
}

// Close closes the indexes and the library.
func (e *Engine) Close() error {
	defer e.in.Closing()()
	e.hosts.Close()
	err := errors.Join(e.vec.Close(), e.lex.Close(), e.answers.Close(), e.lib.Close())
	// Last, once nothing of the library is open any more.
	return errors.Join(err, e.lock.Unlock())
}

// Library gives read access to the library.
func (e *Engine) Library() *library.Library { return e.lib }

// Status describes what Carrel can do right now and why.
type Status struct {
	Library    string     `json:"library"`
	Mode       StatusMode `json:"mode"`
	Reason     string     `json:"reason"`
	Fix        string     `json:"fix"`
	Ollama     llm.Status `json:"ollama"`
	ChatModel  string     `json:"chat_model"`
	EmbedModel string     `json:"embed_model"`
	Documents  int        `json:"documents"`
	Chunks     int        `json:"chunks"`
	// Provider and AnswerModel answer questions: Ollama's chat model, or a cloud model.
	Provider    provider.Name `json:"provider"`
	AnswerModel string        `json:"answer_model"`
	// ReadOnly: the library's folder cannot be written, and ReadOnlyReason says so for a
	// banner; searching and reading work, changes are refused.
	ReadOnly       bool   `json:"read_only,omitempty"`
	ReadOnlyReason string `json:"read_only_reason,omitempty"`
	// Notices are repairs made when the library was opened ("The word index was
	// damaged … and has been rebuilt").
	Notices []string `json:"notices,omitempty"`
	chatOK  bool
	embedOK bool
}

// StatusMode is what Carrel can do with the models at hand.
type StatusMode string

// Modes of operation.
const (
	ModeFull    StatusMode = "full"     // answers by the chat model, hybrid search
	ModeLexical StatusMode = "lexical"  // answers by the chat model, lexical search only
	ModeNoModel StatusMode = "no-model" // answers are the best passages, highlighted
)

// Status checks Ollama and the configured models. Results are reused for a few seconds.
func (e *Engine) Status(ctx context.Context) Status {
	e.statusMu.Lock()
	cached, at := e.status, e.statusAt
	e.statusMu.Unlock()
	if time.Since(at) > 3*time.Second {
		cached = e.checkStatus(ctx)
		e.statusMu.Lock()
		e.status, e.statusAt = cached, time.Now()
		e.statusMu.Unlock()
	}
	cached.Documents, cached.Chunks, _ = e.lib.Counts(ctx)
	e.openStatus(&cached)
	return cached
}

// RefreshStatus forgets the cached status so the next Status checks again.
func (e *Engine) RefreshStatus() {
	e.statusMu.Lock()
	e.statusAt = time.Time{}
	e.statusMu.Unlock()
}

func (e *Engine) checkStatus(ctx context.Context) Status {
	cfg := e.Config()
	st := Status{Library: cfg.Dir, ChatModel: cfg.ChatModel, EmbedModel: cfg.EmbedModel}
	st.Ollama = e.ollama.Status(ctx)
	if st.Ollama.Models == nil {
		st.Ollama.Models = []string{}
	}
	st.chatOK = st.Ollama.Reachable && hasModel(st.Ollama.Models, cfg.ChatModel)
	st.embedOK = st.Ollama.Reachable && hasModel(st.Ollama.Models, cfg.EmbedModel)
	switch {
	case !st.Ollama.Reachable:
		st.Mode = ModeNoModel
		st.Reason = "Ollama is not running at " + st.Ollama.Host + "."
		st.Fix = "Install Ollama (ollama.com) and start it with `ollama serve`, then `ollama pull " + cfg.ChatModel + "` and `ollama pull " + cfg.EmbedModel + "`."
	case !st.chatOK:
		st.Mode = ModeNoModel
		st.Reason = "The chat model " + cfg.ChatModel + " is not installed in Ollama."
		st.Fix = "Run `ollama pull " + cfg.ChatModel + "`, or choose an installed model."
	case !st.embedOK:
		st.Mode = ModeLexical
		st.Reason = "The embedding model " + cfg.EmbedModel + " is not installed: search is lexical only."
		st.Fix = "Run `ollama pull " + cfg.EmbedModel + "` for meaning-based search."
	default:
		st.Mode = ModeFull
	}
	e.answerStatus(&st)
	return st
}

// hasModel reports whether name is installed, treating "x" and "x:latest" as the same.
func hasModel(models []string, name string) bool {
	if name == "" {
		return false
	}
	for _, m := range models {
		if m == name || strings.TrimSuffix(m, ":latest") == strings.TrimSuffix(name, ":latest") {
			return true
		}
	}
	return false
}

// retriever builds a retriever for the current status.
func (e *Engine) retriever(ctx context.Context, st Status) *retrieve.Retriever {
	r := &retrieve.Retriever{Lexical: lexicalAdapter{e}, Store: e.lib}
	if st.embedOK && e.vec.Len() > 0 && e.vec.Model() == e.Config().EmbedModel {
		r.Dense = denseAdapter{e}
		r.MinVectorScore = e.MinVectorScore(ctx)
	}
	return r
}

type lexicalAdapter struct{ e *Engine }

func (a lexicalAdapter) SearchLexical(ctx context.Context, q string, k int, docIDs []string) ([]retrieve.Ranked, error) {
	past := index.PastForms(q)
	q, err := a.e.withoutSharedNames(ctx, q, docIDs)
	if err != nil {
		return nil, err
	}
	for _, p := range slices.Sorted(maps.Keys(past)) {
		q += " " + p
	}
	hits, err := a.e.lex.Search(q, k, docIDs)
	if err != nil {
		return nil, err
	}
	out := make([]retrieve.Ranked, 0, len(hits))
	for _, h := range hits {
		if r, ok := rankedOf(h.ID, h.Score); ok {
			out = append(out, r)
		}
	}
	return out, nil
}

func (a lexicalAdapter) QueryTerms(ctx context.Context, q string) ([]retrieve.TermWeight, error) {
	tw, err := a.e.lex.QueryTerms(q)
	out := make([]retrieve.TermWeight, len(tw))
	unknown := false
	for i, t := range tw {
		out[i] = retrieve.TermWeight(t)
		unknown = unknown || (t.DF == 0 && !t.Known)
	}
	if err == nil && unknown {
		// Only a question with a word no passage holds pays for reading the names.
		names, nerr := a.e.nameTerms(ctx)
		if nerr != nil {
			return nil, nerr
		}
		for i := range out {
			out[i].Known = out[i].Known || names[out[i].Term]
		}
	}
	return out, err
}

func (a lexicalAdapter) TextTerms(text string) map[string]bool { return a.e.lex.TextTerms(text) }

type denseAdapter struct{ e *Engine }

func (a denseAdapter) SearchDense(ctx context.Context, q string, k int, docIDs []string) ([]retrieve.Ranked, error) {
	model := a.e.Config().EmbedModel
	vecs, err := a.e.ollama.Embed(ctx, model, []string{queryPrefix(model) + q})
	if err != nil {
		return nil, err
	}
	var allow []int64
	if len(docIDs) > 0 {
		if allow, err = a.e.lib.Seqs(ctx, docIDs); err != nil {
			return nil, err
		}
		if len(allow) == 0 {
			return nil, nil
		}
	}
	hits, err := a.e.vec.Search(vecs[0], k, allow)
	if err != nil {
		return nil, err
	}
	out := make([]retrieve.Ranked, len(hits))
	for i, h := range hits {
		out[i] = retrieve.Ranked{Seq: h.ID, Score: float64(h.Score)}
	}
	return out, nil
}

// queryPrefix and docPrefix are the embedding models' task prefixes (see llm.QueryPrefix).
var (
	queryPrefix = llm.QueryPrefix
	docPrefix   = llm.DocPrefix
)

// InboxDir is where files uploaded through the browser bridge are kept.
func (e *Engine) InboxDir() string { return filepath.Join(e.cfg.Dir, "inbox") }

// DocumentFile returns the path of a document's original file, for the viewer.
func (e *Engine) DocumentFile(ctx context.Context, docID string) (string, error) {
	d, err := e.lib.Document(ctx, docID)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(d.Path); err != nil {
		return "", fmt.Errorf("the file of %q is no longer at %s: %w", d.Title, d.Path, err)
	}
	return d.Path, nil
}
