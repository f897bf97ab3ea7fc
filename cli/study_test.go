package cli

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
)

type cardOut struct {
	ID      int64  `json:"id"`
	DeckID  string `json:"deck_id"`
	DocID   string `json:"doc_id"`
	Kind    string `json:"kind"`
	Front   string `json:"front"`
	Back    string `json:"back"`
	Context string `json:"context"`
	Page    int    `json:"page"`
	Start   int    `json:"start"`
	End     int    `json:"end"`
	Stale   bool   `json:"stale"`
	Sched   struct {
		State int    `json:"state"`
		Due   string `json:"due"`
		Reps  int    `json:"reps"`
	} `json:"schedule"`
}

// verifies flashcards through the CLI with no model: cards are made from a real PDF
// (all of Walden) with their answers in their spans, making them again adds none, the due list
// holds them, a grade reschedules one out of it, edit/suspend/delete work, and the three
// exports carry every card with its source; a bad grade is a usage error.
func TestStudyCLI(t *testing.T) {
	lib := t.TempDir()
	flags := []string{"--library", lib, "--ollama-host", "127.0.0.1:9"}
	run := func(t *testing.T, args ...string) []byte {
		t.Helper()
		return carrel(t, append(append([]string{}, flags...), args...)...)
	}
	rs := ingestResults(t, run(t, "ingest", filepath.Join(testcorpus.Dir(t), "WaldenFull.pdf")))
	doc := rs[0].DocID

	var made struct {
		Deck struct {
			ID    string `json:"id"`
			Cards int    `json:"cards"`
			Due   int    `json:"due"`
		} `json:"deck"`
		Made, Added int
		Cards       []cardOut `json:"cards"`
	}
	var due []cardOut
	var first cardOut

	// Each step works on the deck the steps before left.
	t.Run("cards are made with their answers in their spans, and once only", func(t *testing.T) {
		if err := json.Unmarshal(run(t, "study", "cards", "--json", doc[:12]), &made); err != nil {
			t.Fatal(err)
		}
		if made.Added < 20 || len(made.Cards) != made.Added || made.Deck.ID != "doc:"+doc || made.Deck.Due != made.Added {
			t.Fatalf("study cards: deck %+v, made %d, added %d, %d listed", made.Deck, made.Made, made.Added, len(made.Cards))
		}
		for _, c := range made.Cards {
			if !strings.Contains(c.Context, c.Back) || c.Page < 1 || c.DocID != doc {
				t.Fatalf("card %+v", c)
			}
		}
		var again struct{ Added, Existing int }
		json.Unmarshal(run(t, "study", "cards", "--json", doc), &again)
		if again.Added != 0 || again.Existing != made.Made {
			t.Fatalf("made again: %+v", again)
		}
	})

	t.Run("a grade reschedules a card out of the due list", func(t *testing.T) {
		json.Unmarshal(run(t, "study", "review", "--json", doc), &due)
		if len(due) != made.Added {
			t.Fatalf("%d due, want %d", len(due), made.Added)
		}
		first = due[0]
		var graded cardOut
		json.Unmarshal(run(t, "study", "review", "--json", "--card", strconv.FormatInt(first.ID, 10), "--grade", "4"), &graded)
		if graded.ID != first.ID || graded.Sched.State != 2 || graded.Sched.Reps != 1 {
			t.Fatalf("graded easy: %+v", graded)
		}
		json.Unmarshal(run(t, "study", "review", "--json", "--deck", made.Deck.ID), &due)
		if len(due) != made.Added-1 {
			t.Fatalf("%d due after grading one easy, want %d", len(due), made.Added-1)
		}
	})

	t.Run("suspend, delete and edit", func(t *testing.T) {
		second, third := due[0], due[1]
		run(t, "study", "suspend", strconv.FormatInt(second.ID, 10))
		run(t, "study", "delete", strconv.FormatInt(third.ID, 10))
		var edited cardOut
		json.Unmarshal(run(t, "study", "edit", "--json", strconv.FormatInt(first.ID, 10), "--front", "Who went to the woods?", "--back", "Thoreau"), &edited)
		if edited.Front != "Who went to the woods?" || edited.Back != "Thoreau" {
			t.Fatalf("edited: %+v", edited)
		}
		json.Unmarshal(run(t, "study", "review", "--json", doc), &due)
		if len(due) != made.Added-3 {
			t.Fatalf("%d due after a suspend and a delete, want %d", len(due), made.Added-3)
		}
	})

	t.Run("the exports carry every card with its source", func(t *testing.T) {
		left := made.Added - 1 // one deleted; the suspended one is exported, tagged
		anki := string(run(t, "study", "export", "--format", "anki", doc))
		lines := strings.Split(strings.TrimSpace(anki), "\n")
		if !strings.HasPrefix(anki, "#separator:tab\n") || !strings.Contains(anki, "#columns:Front\tBack\tSource\tTags\n") || len(lines) != left+6 {
			t.Fatalf("anki export: %d lines, want %d:\n%s", len(lines), left+6, anki[:min(len(anki), 600)])
		}
		for _, l := range lines[6:] {
			f := strings.Split(l, "\t")
			if len(f) != 4 || !strings.Contains(f[2], "p. ") || !strings.Contains(f[3], "carrel::") {
				t.Fatalf("anki line %q", l)
			}
		}
		if !strings.Contains(anki, "Who went to the woods?\tThoreau\t") || !strings.Contains(anki, "carrel::suspended") {
			t.Fatalf("anki export lacks the edit or the suspended tag")
		}
		rows, err := csv.NewReader(bytes.NewReader(run(t, "study", "export", "--format", "csv", "--deck", made.Deck.ID))).ReadAll()
		if err != nil || len(rows) != left+1 || rows[0][3] != "front" {
			t.Fatalf("csv export: %d rows, %v", len(rows), err)
		}
		apkg := filepath.Join(t.TempDir(), "deck.apkg")
		run(t, "study", "export", "--format", "apkg", "--out", apkg, doc)
		if zr, err := zip.OpenReader(apkg); err != nil || len(zr.File) != 2 || zr.File[0].Name != "collection.anki2" {
			t.Fatalf("apkg export: %v", err)
		} else {
			zr.Close()
		}
		out := filepath.Join(t.TempDir(), "deck.md")
		run(t, "study", "export", "--format", "md", "--out", out, doc)
		md, _ := os.ReadFile(out)
		if strings.Count(string(md), "\n## ") != left || !strings.Contains(string(md), "**Answer:** Thoreau") {
			t.Fatalf("md export:\n%s", md[:min(len(md), 400)])
		}
	})

	t.Run("a quiz is taken and its score kept", func(t *testing.T) {
		// A quiz: as JSON, then taken on standard input; its score is kept.
		var quiz []struct {
			Prompt  string   `json:"prompt"`
			Choices []string `json:"choices"`
			Answer  int      `json:"answer"`
			Card    cardOut  `json:"card"`
		}
		json.Unmarshal(run(t, "study", "quiz", "--json", "--n", "5", doc), &quiz)
		if len(quiz) != 5 {
			t.Fatalf("quiz of %d questions, want 5", len(quiz))
		}
		for _, q := range quiz {
			if len(q.Choices) > 0 && (len(q.Choices) != 4 || q.Choices[q.Answer] != strings.Join(strings.Fields(q.Card.Back), " ")) {
				t.Errorf("question %q: choices %q, answer %d, card's answer %q", q.Prompt, q.Choices, q.Answer, q.Card.Back)
			}
		}
		var qout, qerr bytes.Buffer
		if _, code, err := Run(append(flags, "study", "quiz", "--n", "3", doc), Env{Stdout: &qout, Stderr: &qerr, Stdin: strings.NewReader("a\nb\nsomething\n")}); code != 0 {
			t.Fatalf("quiz: exit %d %v\n%s", code, err, qerr.String())
		}
		if !strings.Contains(qout.String(), "Score: ") || strings.Count(qout.String(), "(Walden, p") != 3 {
			t.Fatalf("the quiz did not show each answer's source and the score:\n%s", qout.String())
		}
		var scores []struct{ Questions, Correct int }
		json.Unmarshal(run(t, "study", "scores", "--json", doc), &scores)
		if len(scores) != 1 || scores[0].Questions != 3 || scores[0].Correct > 3 {
			t.Fatalf("quiz history: %+v", scores)
		}
	})

	t.Run("a bad grade and a bad format are refused", func(t *testing.T) {
		var errb bytes.Buffer
		if _, code, _ := Run(append(flags, "study", "review", "--card", "1", "--grade", "5"), Env{Stdout: &bytes.Buffer{}, Stderr: &errb}); code != 2 {
			t.Errorf("grade 5: exit %d, want 2", code)
		}
		if _, code, _ := Run(append(flags, "study", "export", "--format", "pdf", doc), Env{Stdout: &bytes.Buffer{}, Stderr: &errb}); code == 0 {
			t.Errorf("export as pdf succeeded")
		}
	})
}

// verifies cards made with the chat model through the CLI and a real Ollama server (the
// tiny random model): the reply is asked for with a schema, what it proposes is counted
// as kept or dropped, and only kept cards (question and answer, origin model) reach the
// deck; a model that proposes nothing its passage supports adds nothing.
func TestStudyModelCLI(t *testing.T) {
	srv := testollama.Start(t)
	dir := t.TempDir()
	note := filepath.Join(dir, "cells.md")
	os.WriteFile(note, []byte("# Cells\n\nA cell membrane is a thin layer of lipids and proteins that separates the inside of a cell from its surroundings.\n\nDiffusion refers to the movement of molecules from a region of higher concentration to one of lower concentration.\n"), 0o644)
	flags := []string{"--library", filepath.Join(dir, "lib"), "--ollama-host", srv.Host, "--chat-model", srv.ChatModel, "--embed-model", srv.EmbedModel}
	run := func(args ...string) []byte { return carrel(t, append(append([]string{}, flags...), args...)...) }
	doc := ingestResults(t, run("ingest", note))[0].DocID
	var res struct {
		Added int `json:"added"`
		Model *struct {
			Passages, Proposed, Kept, Dropped, Failed int
		} `json:"model"`
		Cards []cardOut `json:"cards"`
	}
	if err := json.Unmarshal(run("study", "cards", "--model", "--json", doc), &res); err != nil {
		t.Fatal(err)
	}
	m := res.Model
	if m == nil || m.Passages < 1 || m.Kept+m.Dropped != m.Proposed || res.Added != m.Kept || len(res.Cards) != res.Added {
		t.Fatalf("model cards: %+v, added %d, %d cards", m, res.Added, len(res.Cards))
	}
	for _, c := range res.Cards {
		if c.Kind != "qa" {
			t.Errorf("a model's card of kind %q", c.Kind)
		}
	}
	t.Logf("tiny model: %+v", *m)
	if txt := string(run("study", "cards", "--model", doc)); !strings.Contains(txt, "the model proposed") {
		t.Errorf("the text form does not say what the model proposed:\n%s", txt)
	}

	// A summary by the model: the tiny model's random words are supported by no passage,
	// so every sentence is dropped and the command says so (exit 1), saving nothing.
	var out, errb bytes.Buffer
	if _, code, err := Run(append(append([]string{}, flags...), "study", "summary", "--json", doc), Env{Stdout: &out, Stderr: &errb}); code == 0 ||
		err == nil || !strings.Contains(err.Error(), "supported by the passages") {
		t.Fatalf("summary of random words: exit %d, %v\n%s%s", code, err, out.String(), errb.String())
	}
}

// verifies a summary with no model: each section of Walden's outline gets its key
// sentences, each quoted verbatim from the passage its marker cites (the marker a valid
// passage number), and the summary is saved in a new study session that exports it.
func TestStudySummaryNoModel(t *testing.T) {
	lib := t.TempDir()
	flags := []string{"--library", lib, "--ollama-host", "127.0.0.1:9"}
	run := func(args ...string) []byte { return carrel(t, append(append([]string{}, flags...), args...)...) }
	doc := ingestResults(t, run("ingest", filepath.Join(testcorpus.Dir(t), "WaldenFull.pdf")))[0].DocID
	var sum struct {
		Mode     string `json:"mode"`
		Sections []struct {
			Section string `json:"section"`
			Text    string `json:"text"`
		} `json:"sections"`
		Passages []struct {
			N    int    `json:"n"`
			Text string `json:"text"`
		} `json:"passages"`
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(run("study", "summary", "--json", doc), &sum); err != nil {
		t.Fatal(err)
	}
	if sum.Mode != "passages" || len(sum.Sections) < 5 || sum.SessionID == "" {
		t.Fatalf("summary: mode %q, %d sections, session %q", sum.Mode, len(sum.Sections), sum.SessionID)
	}
	marker := regexp.MustCompile(`^(.*?) \[(\d+)\]$`)
	sentences := 0
	for _, s := range sum.Sections {
		said := map[string]bool{}
		for _, part := range regexp.MustCompile(`\] `).Split(s.Text, -1) {
			if !strings.HasSuffix(part, "]") {
				part += "]"
			}
			m := marker.FindStringSubmatch(part)
			if m == nil {
				t.Fatalf("section %q: %q has no marker", s.Section, part)
			}
			n, _ := strconv.Atoi(m[2])
			if n < 1 || n > len(sum.Passages) || !strings.Contains(strings.Join(strings.Fields(sum.Passages[n-1].Text), " "), m[1]) {
				t.Fatalf("section %q: %q is not quoted from passage %d", s.Section, m[1], n)
			}
			if said[m[1]] {
				t.Errorf("section %q says %q twice", s.Section, m[1])
			}
			said[m[1]] = true
			sentences++
		}
	}
	t.Logf("%d sections, %d sentences quoted", len(sum.Sections), sentences)
	if md := string(run("sessions", "export", sum.SessionID)); !strings.Contains(md, "Summarise") || !strings.Contains(md, sum.Sections[0].Text[:20]) {
		t.Fatalf("the session does not export the summary:\n%s", md[:min(len(md), 500)])
	}
}
