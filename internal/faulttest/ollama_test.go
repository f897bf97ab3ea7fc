package faulttest

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/internal/testollama"
)

// own starts an Ollama server of the test's own (the shared one must not be killed).
func own(t *testing.T) *testollama.Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := testollama.StartServer(ctx, "", nil)
	if err != nil {
		t.Fatalf("start an Ollama of the test's own: %v", err)
	}
	t.Cleanup(func() {
		srv.Signal(syscall.SIGCONT)
		srv.Close()
	})
	return srv
}

// longAnswers lets the random model write long enough for a fault to land mid-answer.
func longAnswers(cfg engine.Config) engine.Config {
	cfg.MaxTokens = 2048
	return cfg
}

// onFirstToken returns an ask callback that runs f once, at the first token.
func onFirstToken(f func()) (func(asking.Event) error, *strings.Builder) {
	var once sync.Once
	var got strings.Builder
	return func(ev asking.Event) error {
		if ev.Token != "" {
			got.WriteString(ev.Token)
			once.Do(f)
		}
		return nil
	}, &got
}

// lastMessage is the one saved exchange of a session.
func lastMessage(t *testing.T, eng *engine.Engine, sessionID string) library.Message {
	t.Helper()
	s, err := eng.Asking().Session(context.Background(), sessionID)
	if err != nil || len(s.Messages) == 0 {
		t.Fatalf("session %s: %+v %v", sessionID, s, err)
	}
	return s.Messages[len(s.Messages)-1].Message
}

// verifies Ollama killed mid-answer: the answer ends with an error saying it was cut
// short, the part that arrived is saved in the session marked as not complete, and the
// next question is answered without a model (the best passages), saying why.
func TestOllamaKilledMidAnswer(t *testing.T) {
	srv := own(t)
	ctx := context.Background()
	dir := t.TempDir()
	eng := open(t, longAnswers(config(filepath.Join(dir, "lib"), srv.Host)))
	defer eng.Close()
	if r, err := eng.Intake().IngestFile(ctx, note(t, dir, "cabin", 8), nil); err != nil || r.Status != engine.Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	fn, got := onFirstToken(func() { srv.Signal(syscall.SIGKILL) })
	ans, err := eng.Asking().Ask(ctx, "What did the cabin cost?", asking.Options{}, fn)
	// Cut short with text: the text is the answer, marked truncated with a note; an
	// error is fine too, as long as it says what happened.
	if err != nil && !(errors.Is(err, llm.ErrTruncated) || errors.Is(err, llm.ErrUnreachable)) {
		t.Fatalf("ask while Ollama is killed: want a cut-short error, got %v", err)
	}
	if err == nil && (ans == nil || !ans.Truncated || !strings.Contains(ans.Note, "Ollama stopped")) {
		t.Fatalf("ask while Ollama is killed: want the answer marked truncated with a note, got %+v", ans)
	}
	t.Logf("error %v, note %q", err, ans.Note)
	if ans == nil || ans.SessionID == "" || got.Len() == 0 {
		t.Fatalf("ask while Ollama is killed: the partial answer was not returned (%+v, %d bytes streamed)", ans, got.Len())
	}
	msg := lastMessage(t, eng, ans.SessionID)
	if msg.Answer == "" || msg.Status == library.MessageDone {
		t.Fatalf("saved message after Ollama was killed: status %q, %d bytes of answer; want the partial answer, not marked done", msg.Status, len(msg.Answer))
	}
	eng.RefreshStatus()
	next, err := eng.Asking().Ask(ctx, "What did the cabin cost?", asking.Options{}, nil)
	if err != nil || next.Mode != chat.ModePassages || next.Note == "" {
		t.Fatalf("the next question without Ollama: %+v %v", next, err)
	}
	eng.Close()
	consistent(t, config(filepath.Join(dir, "lib"), srv.Host))
}

// verifies Ollama killed mid-embedding: the document is added and searchable by its
// words, with a warning; the library stays consistent, and with Ollama back the missing
// vectors are embedded.
func TestOllamaKilledMidEmbedding(t *testing.T) {
	srv := own(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lib")
	cfg := config(dir, srv.Host)
	eng := open(t, cfg)
	var once sync.Once
	r, err := eng.Intake().IngestFile(ctx, note(t, t.TempDir(), "long", 150), func(d library.Document) {
		if d.Status == library.StatusEmbedding && d.Done > 0 {
			once.Do(func() { srv.Signal(syscall.SIGKILL) })
		}
	})
	if err != nil || r.Status != engine.Inserted || !strings.Contains(strings.Join(r.Warnings, " "), "Embedding stopped") {
		t.Fatalf("ingest while Ollama is killed: want inserted with a warning, got %+v %v", r, err)
	}
	t.Logf("warning: %s", r.Warnings[0])
	if hits, err := eng.Search(ctx, "chimney", engine.SearchOptions{}); err != nil || len(hits) == 0 {
		t.Fatalf("search after Ollama was killed: %d hits, %v", len(hits), err)
	}
	eng.Close()
	st := consistent(t, cfg)
	if st.Pending == 0 {
		t.Fatal("no chunk waits for its vector after Ollama was killed mid-embedding")
	}
	back := own(t)
	cfg.OllamaHost = back.Host
	eng = open(t, cfg)
	n, err := eng.Intake().EmbedPending(ctx)
	eng.Close()
	if err != nil || n != st.Pending {
		t.Fatalf("embedding with Ollama back: %d of %d, %v", n, st.Pending, err)
	}
	if st := consistent(t, cfg); st.Pending > 0 || st.Vectors != st.Chunks {
		t.Fatalf("after embedding again: %d waiting, %d vectors for %d chunks", st.Pending, st.Vectors, st.Chunks)
	}
}

// deleteModel removes a model from the server, as `ollama rm` does.
func deleteModel(t *testing.T, host, model string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, host+"/api/delete", bytes.NewReader([]byte(`{"model":"`+model+`"}`)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("delete %s: %s", model, resp.Status)
	}
}

// verifies models deleted while Carrel uses them: the answer under way ends (complete,
// or cut short with an error) rather than hanging; a later question says the model is
// not installed and how to get it, then questions are answered from the passages; with
// the embedding model gone, search falls back to words and says why.
func TestModelDeletedInUse(t *testing.T) {
	srv := own(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "lib")
	eng := open(t, config(dir, srv.Host))
	defer eng.Close()
	if r, err := eng.Intake().IngestFile(ctx, note(t, t.TempDir(), "cabin", 8), nil); err != nil || r.Status != engine.Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	fn, _ := onFirstToken(func() { deleteModel(t, srv.Host, srv.ChatModel) })
	actx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if _, err := eng.Asking().Ask(actx, "What did the cabin cost?", asking.Options{}, fn); actx.Err() != nil {
		t.Fatalf("the answer under way when its model was deleted hung: %v", err)
	}
	var modes []string
	for i := 0; i < 3; i++ {
		// Fresh: the answer cache holds the first answer and would serve it with no model.
		ans, err := eng.Asking().Ask(ctx, "What did the cabin cost?", asking.Options{Fresh: true}, nil)
		if err != nil {
			if !errors.Is(err, llm.ErrModelNotFound) || !strings.Contains(err.Error(), "ollama pull "+srv.ChatModel) {
				t.Fatalf("question after the chat model was deleted: want an error naming the model and `ollama pull`, got %v", err)
			}
			modes = append(modes, "error")
			continue
		}
		modes = append(modes, string(ans.Mode))
		if ans.Mode == chat.ModePassages {
			if !strings.Contains(ans.Note, srv.ChatModel) {
				t.Fatalf("answer from the passages without saying why: note %q", ans.Note)
			}
			break
		}
	}
	if modes[len(modes)-1] != string(chat.ModePassages) {
		t.Fatalf("after the chat model was deleted, questions went %v; want them answered from the passages", modes)
	}

	deleteModel(t, srv.Host, srv.EmbedModel)
	eng.RefreshStatus()
	st := eng.Status(ctx)
	if st.Mode != engine.ModeNoModel || !strings.Contains(st.Reason, srv.ChatModel) {
		t.Fatalf("status with both models deleted: %s %q", st.Mode, st.Reason)
	}
	if hits, err := eng.Search(ctx, "cabin cost", engine.SearchOptions{}); err != nil || len(hits) == 0 {
		t.Fatalf("search with the embedding model deleted: %d hits, %v", len(hits), err)
	}
	if n, err := eng.Intake().EmbedPending(ctx); err != nil || n != 0 {
		t.Fatalf("embedding with the model deleted: %d %v", n, err)
	}
	eng.Close()
	consistent(t, config(dir, srv.Host))
}

// frozenStall is the stall timeout of the tests that freeze Ollama: short, so that a
// question to a frozen Ollama ends soon.
const frozenStall = 3 * time.Second

// toFreeze is the setup of the tests that freeze Ollama: an engine on an Ollama of the
// test's own, writing long answers, with the stall timeout at [frozenStall], and a note of
// 8 paragraphs on a cabin ingested. The engine is closed when the test ends.
func toFreeze(t *testing.T) (*testollama.Server, *engine.Engine, engine.Config) {
	t.Helper()
	srv := own(t)
	dir := t.TempDir()
	cfg := longAnswers(config(filepath.Join(dir, "lib"), srv.Host))
	cfg.OllamaStallSeconds = int(frozenStall / time.Second)
	eng := open(t, cfg)
	t.Cleanup(func() { eng.Close() })
	if r, err := eng.Intake().IngestFile(context.Background(), note(t, dir, "cabin", 8), nil); err != nil || r.Status != engine.Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	return srv, eng, cfg
}

// verifies Ollama frozen (SIGSTOP: the kernel still accepts connections, nothing
// answers), mid-answer and mid-embedding, with the stall timeout at 3 s: the answer ends
// within the timeout plus a margin with an error saying Ollama stopped answering, its
// part so far saved; a question asked while Ollama is still frozen is answered from the
// passages instead of waiting; an ingest while it is frozen adds the document, searchable
// by its words, its vectors left waiting; after SIGCONT they are embedded.
func TestOllamaFrozen(t *testing.T) {
	srv, eng, cfg := toFreeze(t)
	ctx := context.Background()
	var frozeAt time.Time
	fn, got := onFirstToken(func() { frozeAt = time.Now(); srv.Signal(syscall.SIGSTOP) })
	actx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	ans, err := eng.Asking().Ask(actx, "What did the cabin cost?", asking.Options{}, fn)
	waited := time.Since(frozeAt)
	if actx.Err() != nil {
		t.Fatalf("the answer hung on a frozen Ollama: %v", err)
	}
	// With text, the text is the answer, marked cut short with a note saying Ollama stopped
	// answering; without, an error wrapping ErrStalled.
	if err != nil && !errors.Is(err, llm.ErrStalled) {
		t.Fatalf("answer from a frozen Ollama: want an error wrapping ErrStalled, got %v", err)
	}
	if err == nil && (ans == nil || !ans.Truncated || !strings.Contains(ans.Note, "stopped answering")) {
		t.Fatalf("answer from a frozen Ollama: want it marked cut short, saying Ollama stopped answering; got %+v", ans)
	}
	// The watchdog is reset by every piece: the wait is the stall timeout, give or take
	// the pieces in flight; 20 s allows a loaded machine.
	if waited < frozenStall || waited > frozenStall+20*time.Second {
		t.Fatalf("the answer was given up %s after Ollama froze; want about %s", waited, frozenStall)
	}
	if ans == nil || ans.SessionID == "" || got.Len() == 0 {
		t.Fatalf("the partial answer was not returned (%+v, %d bytes streamed)", ans, got.Len())
	}
	if msg := lastMessage(t, eng, ans.SessionID); msg.Answer == "" || msg.Status == library.MessageDone {
		t.Fatalf("saved message after Ollama froze: status %q, %d bytes; want the partial answer, not marked done", msg.Status, len(msg.Answer))
	}
	t.Logf("gave up %s after the freeze: %v, note %q", waited.Round(100*time.Millisecond), err, ans.Note)

	// Still frozen: the status probe times out in a second, so the question is answered
	// from the passages rather than waiting on the model.
	eng.RefreshStatus()
	began := time.Now()
	next, err := eng.Asking().Ask(actx, "What did the cabin cost?", asking.Options{Fresh: true}, nil)
	if err != nil || next.Mode != chat.ModePassages || next.Note == "" {
		t.Fatalf("a question while Ollama is frozen: %+v %v", next, err)
	}
	t.Logf("asked while frozen: passages in %s", time.Since(began).Round(100*time.Millisecond))

	// An ingest while frozen: added, searchable by words, with a warning.
	r, err := eng.Intake().IngestFile(actx, note(t, t.TempDir(), "long", 40), nil)
	if actx.Err() != nil {
		t.Fatalf("ingest hung on a frozen Ollama: %v", err)
	}
	if err != nil || r.Status != engine.Inserted {
		t.Fatalf("ingest while Ollama is frozen: want inserted, got %+v %v", r, err)
	}
	t.Logf("ingest while frozen: warnings %q", r.Warnings)
	if hits, err := eng.Search(ctx, "chimney", engine.SearchOptions{}); err != nil || len(hits) == 0 {
		t.Fatalf("search while Ollama is frozen: %d hits, %v", len(hits), err)
	}

	// Thawed: the vectors the freeze held back are embedded.
	srv.Signal(syscall.SIGCONT)
	eng.RefreshStatus()
	if n, err := eng.Intake().EmbedPending(ctx); err != nil || n == 0 {
		t.Fatalf("embedding after Ollama thawed: %d, %v", n, err)
	}
	eng.Close()
	if st := consistent(t, cfg); st.Pending > 0 || st.Vectors != st.Chunks {
		t.Fatalf("after thawing: %d waiting, %d vectors for %d chunks", st.Pending, st.Vectors, st.Chunks)
	}
}

// verifies the Stop button against an Ollama that accepts connections but never answers
// (frozen with SIGSTOP), and the time-out when nobody presses it: a question asked while
// it is frozen from the start returns within a second of being cancelled, saving nothing
// as an answer; one cancelled while the answer streams returns as promptly with the part
// that arrived kept in its session; and with no cancel the stall timeout (3 s here) ends
// a question to a frozen Ollama in a bounded time, with an answer from the passages or an
// error saying Ollama stopped answering.
func TestOllamaFrozenCancel(t *testing.T) {
	srv, eng, cfg := toFreeze(t)
	ctx := context.Background()

	// Frozen before the question: the request is accepted by the kernel and never answered.
	srv.Signal(syscall.SIGSTOP)
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(time.Second, cancel)
	began := time.Now()
	_, err := eng.Asking().Ask(cctx, "What did the cabin cost?", asking.Options{Fresh: true}, nil)
	if took := time.Since(began); took > time.Second+2*time.Second {
		t.Fatalf("a question to a frozen Ollama returned %s after it was asked, cancelled at 1 s", took.Round(time.Millisecond))
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled question to a frozen Ollama: want context.Canceled, got %v", err)
	}
	t.Logf("cancelled at 1 s while frozen from the start: returned after %s (%v)", time.Since(began).Round(time.Millisecond), err)

	// No one presses Stop: the stall timeout ends it.
	tctx, tcancel := context.WithTimeout(ctx, 2*time.Minute)
	defer tcancel()
	began = time.Now()
	ans, err := eng.Asking().Ask(tctx, "What did the cabin cost?", asking.Options{Fresh: true}, nil)
	took := time.Since(began)
	if tctx.Err() != nil {
		t.Fatalf("a question to a frozen Ollama hung: %v", err)
	}
	if err != nil && !errors.Is(err, llm.ErrStalled) {
		t.Fatalf("a question to a frozen Ollama: want passages or ErrStalled, got %v", err)
	}
	if err == nil && (ans.Mode != chat.ModePassages || ans.Note == "") {
		t.Fatalf("a question to a frozen Ollama answered without saying why: %+v", ans)
	}
	// The question's embedding and the chat each wait one stall at most.
	if took > 2*frozenStall+20*time.Second {
		t.Fatalf("a question to a frozen Ollama took %s, want about %s at most", took, 2*frozenStall)
	}
	t.Logf("not cancelled: ended after %s (err %v)", took.Round(100*time.Millisecond), err)
	srv.Signal(syscall.SIGCONT)
	eng.RefreshStatus()

	// Frozen mid-answer, then Stop: back at once, the part so far kept.
	var sctx context.Context
	sctx, cancel = context.WithCancel(ctx)
	defer cancel()
	var stoppedAt time.Time
	fn, got := onFirstToken(func() {
		srv.Signal(syscall.SIGSTOP)
		time.AfterFunc(500*time.Millisecond, func() { stoppedAt = time.Now(); cancel() })
	})
	ans, err = eng.Asking().Ask(sctx, "What did the cabin cost?", asking.Options{Fresh: true}, fn)
	back := time.Since(stoppedAt)
	if stoppedAt.IsZero() || back > 2*time.Second {
		t.Fatalf("stopped mid-answer while Ollama is frozen: returned %s after Stop (err %v)", back, err)
	}
	if got.Len() == 0 {
		t.Fatal("no token arrived before the freeze")
	}
	if ans == nil || ans.SessionID == "" {
		t.Fatalf("stopped mid-answer: no answer to keep (%+v, %v)", ans, err)
	}
	msg := lastMessage(t, eng, ans.SessionID)
	if msg.Answer == "" || msg.Status == library.MessageDone {
		t.Fatalf("saved message after Stop: status %q, %d bytes; want the partial answer, not marked done", msg.Status, len(msg.Answer))
	}
	t.Logf("stopped mid-answer: back %s after Stop, %d bytes kept as %q (err %v)", back.Round(time.Millisecond), len(msg.Answer), msg.Status, err)
	srv.Signal(syscall.SIGCONT)
	eng.Close()
	consistent(t, cfg)
}
