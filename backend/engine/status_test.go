package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

// verifies Ollama going away mid-session: the question fails with ErrUnreachable, is kept
// in history as failed with the reason, and the next question answers with passages.
func TestOllamaGoneMidSession(t *testing.T) {
	dir := t.TempDir()
	note := filepath.Join(dir, "walden.md")
	os.WriteFile(note, []byte(testcorpus.Woods), 0o644)
	eng := openEngine(t, Config{Dir: filepath.Join(dir, "lib")})
	ctx := context.Background()
	if _, err := eng.Intake().IngestFile(ctx, note, nil); err != nil {
		t.Fatal(err)
	}
	// As if the status had been checked while Ollama still ran.
	st := eng.Status(ctx)
	st.chatOK = true
	eng.statusMu.Lock()
	eng.status, eng.statusAt = st, time.Now()
	eng.statusMu.Unlock()
	_, err := eng.Asking().Ask(ctx, "What did Thoreau plant?", asking.Options{}, nil)
	if !errors.Is(err, llm.ErrUnreachable) {
		t.Fatalf("ask with Ollama gone: %v", err)
	}
	list, _ := eng.Asking().Sessions(ctx)
	if len(list) != 1 {
		t.Fatalf("sessions: %+v", list)
	}
	d, _ := eng.Asking().Session(ctx, list[0].ID)
	if len(d.Messages) != 1 || d.Messages[0].Status != library.MessageFailed || !strings.Contains(d.Messages[0].Note, "not reachable") {
		t.Fatalf("failed question in history: %+v", d.Messages)
	}
	ans, err := eng.Asking().Ask(ctx, "What did Thoreau plant?", asking.Options{SessionID: list[0].ID}, nil)
	if err != nil || ans.Mode != "passages" {
		t.Fatalf("next question: %+v %v", ans, err)
	}
}
