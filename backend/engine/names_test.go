package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/carrel-app/carrel/backend/retrieve"
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
