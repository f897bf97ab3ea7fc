package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

// verifies a citation of a passage over several slides opens on the slide the question
// matched: in Rob Pike's talk (one slide per page) the passage holding "25,326 lines from
// 131 files" starts slides before it, and its focus page is the slide that says it; with
// no model at all (the word index finds the passage whole).
func TestSlidesFocusOnTheMatchedSlide(t *testing.T) {
	ctx := context.Background()
	eng, err := Open(Config{Dir: t.TempDir(), OllamaHost: "http://127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	res, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "pike-stanford.pdf"), nil)
	if err != nil || res.Status != Inserted {
		t.Fatalf("ingest: %+v %v", res, err)
	}
	hits, err := eng.Search(ctx, "How many lines does including iostream pull in, against import fmt?", SearchOptions{K: 5, Mode: retrieve.Lexical})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		text, err := eng.lib.PageText(ctx, res.DocID, h.FocusPage)
		if err != nil {
			t.Fatal(err)
		}
		if h.FocusPage < h.Page || h.FocusPage > h.PageEnd {
			t.Errorf("focus page %d outside its passage's pages %d–%d", h.FocusPage, h.Page, h.PageEnd)
		}
		if strings.Contains(text, "25,326") {
			if h.FocusPage == h.Page {
				t.Errorf("the passage starts on the slide that answers (p%d–%d): nothing to test", h.Page, h.PageEnd)
			}
			return
		}
	}
	t.Fatalf("no hit's focus page holds \"25,326 lines\": %+v", hits)
}
