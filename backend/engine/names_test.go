package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

func TestNameWords(t *testing.T) {
	for in, want := range map[string]string{
		"FOSDEM14_HPC_devroom_14_GoCUDA.pdf": "FOSDEM 14 HPC devroom 14 Go CUDA pdf",
		"gobook.0.pdf":                       "gobook 0 pdf",
		"pike-stanford.pdf":                  "pike stanford pdf",
	} {
		if got := nameWords(in); got != want {
			t.Errorf("nameWords(%q) = %q, want %q", in, got, want)
		}
	}
}

// A question may name its document by words only its file name or title holds ("the
// FOSDEM talk"): such a word does not make the question off-topic, while a name the
// library has nowhere still does.
func TestDocumentNamesAreMentioned(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, Config{})
	dir := t.TempDir()
	path := filepath.Join(dir, "FOSDEM14_gpu_talk.md")
	text := "# Scientific GPU computing with Go\n\nThe dot product ran two to three times slower than optimized C.\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Intake().IngestFile(ctx, path, nil); err != nil {
		t.Fatal(err)
	}
	for q, want := range map[string]bool{
		"In the FOSDEM talk, how much slower than C was the dot product?":  true,
		"In the Zorblax talk, how much slower than C was the dot product?": false,
	} {
		hits, err := eng.Search(ctx, q, SearchOptions{K: 5, Mode: retrieve.Lexical})
		if err != nil {
			t.Fatal(err)
		}
		if got := len(hits) > 0; got != want {
			t.Errorf("%q: hits %v, want %v", q, got, want)
		}
	}
}

// verifies a word that names every document in scope (Walden's author) is not searched
// for in the passages: the cover and contents, which alone hold it, no longer come first
// for questions about the book, while the same word still counts where it tells one
// document from another.
func TestSharedNamesSelectNoPassage(t *testing.T) {
	ctx := context.Background()
	eng, err := Open(Config{Dir: t.TempDir(), OllamaHost: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	walden, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "WaldenFull.pdf"), nil)
	if err != nil || walden.Status != Inserted {
		t.Fatalf("ingest: %+v %v", walden, err)
	}
	d, err := eng.lib.Document(ctx, walden.DocID)
	if err != nil || !strings.Contains(d.Author, "Thoreau") {
		t.Fatalf("Walden's author %q (%v): the test needs Thoreau there", d.Author, err)
	}
	for _, q := range []string{"Why did Thoreau go to the woods?", "How much did Thoreau's house cost?", "What does Thoreau say about railroads?"} {
		hits, err := eng.Search(ctx, q, SearchOptions{K: 6, Mode: retrieve.Lexical, DocIDs: []string{walden.DocID}})
		if err != nil || len(hits) == 0 {
			t.Fatalf("%q: %d hits, %v", q, len(hits), err)
		}
		for i, h := range hits {
			if strings.Contains(h.Text, "Global Grey") {
				t.Errorf("%q: hit %d is the cover and contents (p%d)", q, i+1, h.Page)
			}
		}
	}
	// The library of one document: an unscoped search is scoped to it.
	if got, err := eng.withoutSharedNames(ctx, "Why did Thoreau go to the woods?", nil); err != nil || got != "Why did go to the woods?" {
		t.Errorf("one document: %q, %v", got, err)
	}
	other := filepath.Join(t.TempDir(), "concord.md")
	if err := os.WriteFile(other, []byte("# Concord\n\nEmerson and Thoreau walked to the river.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := eng.Intake().IngestFile(ctx, other, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, scope := range [][]string{nil, {walden.DocID, res.DocID}} {
		if got, err := eng.withoutSharedNames(ctx, "Why did Thoreau go to the woods?", scope); err != nil || got != "Why did Thoreau go to the woods?" {
			t.Errorf("scope %v: %q, %v; want the question whole", scope, got, err)
		}
	}
	if got, err := eng.withoutSharedNames(ctx, "Walden", []string{walden.DocID}); err != nil || got != "Walden" {
		t.Errorf("a question of the name alone: %q, %v", got, err)
	}
}

// TestDidQuestionFindsThePast: "Why did Thoreau go to the woods?" is answered by "I went to
// the woods because I wished to live deliberately", which stemming never meets with "go";
// with no model it was beyond the 60th passage of Walden, and searching "went" too
// (index.PastForms) brings it into the ten.
func TestDidQuestionFindsThePast(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, Config{OllamaHost: "http://127.0.0.1:9"})
	walden, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "WaldenFull.pdf"), nil)
	if err != nil || walden.Status != Inserted {
		t.Fatalf("ingest: %+v %v", walden, err)
	}
	hits, err := eng.Search(ctx, "Why did Thoreau go to the woods?", SearchOptions{K: 10, Mode: retrieve.Lexical, DocIDs: []string{walden.DocID}})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if strings.Contains(h.Text, "I went to the woods because I wished to live deliberately") {
			return
		}
	}
	t.Errorf("'I went to the woods because…' is not among the %d passages", len(hits))
}
