package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testsites"
)

// verifies a web page added by URL: its snapshot is kept in the library, the answer to
// a question about it cites it, adding it again (by another URL with the same canonical
// one) is skipped, and a changed page replaces the old document and snapshot.
func TestIngestWebPage(t *testing.T) {
	s := testsites.Start(t)
	eng := openEngine(t, Config{OnlineTLS: s.TLS})
	ctx := context.Background()
	r, err := eng.IngestURL(ctx, s.URL+"/redirect/2", nil)
	if err != nil || r.Status != Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	canonical := s.URL + "/articles/urban-bees"
	if r.URL != canonical {
		t.Errorf("url %q, want %q", r.URL, canonical)
	}
	doc, err := eng.Library().Document(ctx, r.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Title != testsites.ArticleTitle || !strings.HasPrefix(doc.Path, filepath.Join(eng.Config().Dir, OnlineDir)) {
		t.Errorf("document %q at %s", doc.Title, doc.Path)
	}
	if info, _ := eng.Intake().DocumentInfo(r.DocID); info.URL != canonical {
		t.Errorf("document info url %q", info.URL)
	}
	ans, err := eng.Asking().Ask(ctx, "How much honey do rooftop hives in Paris produce?", asking.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(ans.Citations) == 0 || ans.Citations[0].DocID != r.DocID || !strings.Contains(ans.Citations[0].Text, "twenty kilograms") {
		t.Fatalf("the answer does not cite the page: %+v", ans.Citations)
	}
	if ans.Citations[0].URL != canonical {
		t.Errorf("the citation links %q, want the page's address", ans.Citations[0].URL)
	}

	again, err := eng.IngestURL(ctx, s.URL+"/article?utm_source=feed", nil)
	if err != nil || again.Status != Skipped || again.DocID != r.DocID {
		t.Fatalf("adding it again: %+v %v", again, err)
	}

	s.SetChanged(true)
	changed, err := eng.IngestURL(ctx, s.URL+"/article", nil)
	if err != nil || changed.Status != Inserted || changed.DocID == r.DocID || len(changed.Replaced) != 1 || changed.Replaced[0] != r.DocID {
		t.Fatalf("changed page: %+v %v", changed, err)
	}
	if _, err := eng.Library().Document(ctx, r.DocID); err == nil {
		t.Error("the old version is still in the library")
	}
	if _, err := os.Stat(doc.Path); !os.IsNotExist(err) {
		t.Errorf("the old snapshot is still there: %v", err)
	}
	hits, err := eng.Search(ctx, "registered hives inside the city walls", SearchOptions{})
	if err != nil || len(hits) == 0 || hits[0].DocID != changed.DocID {
		t.Fatalf("the new version is not found: %+v %v", hits, err)
	}
	docs, _ := eng.Library().Documents(ctx)
	if len(docs) != 1 {
		t.Errorf("%d documents, want 1", len(docs))
	}
}

// verifies a Hacker News thread added by URL: one passage per comment, none crossing a
// comment, each cited by its page; and the hosts contacted are listed.
func TestIngestThread(t *testing.T) {
	s := testsites.Start(t)
	t.Setenv(envconfig.ResolveVar, s.ResolveString())
	eng := openEngine(t, Config{OnlineTLS: s.TLS})
	ctx := context.Background()
	r, err := eng.IngestURL(ctx, "https://news.ycombinator.com/item?id=1000", nil)
	if err != nil || r.Status != Inserted || r.Pages != 6 {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	chunks, err := eng.Library().DocumentChunks(ctx, r.DocID)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[int]bool{}
	for _, c := range chunks {
		if c.PageStart != c.PageEnd {
			t.Errorf("a passage crosses comments %d–%d: %q", c.PageStart, c.PageEnd, c.Text)
		}
		pages[c.PageStart] = true
	}
	if len(pages) != 6 {
		t.Errorf("passages on %d comments, want 6", len(pages))
	}
	hits, err := eng.Search(ctx, "sun compass corrected by an internal clock", SearchOptions{})
	if err != nil || len(hits) == 0 || hits[0].Page != 4 || !strings.HasPrefix(hits[0].Text, "carol, answering bob:") {
		t.Fatalf("carol's comment: %+v %v", hits, err)
	}
	// The answer's citation of it links to the comment's permalink.
	ans, err := eng.Asking().Ask(ctx, "How is the sun compass corrected?", asking.Options{}, nil)
	if err != nil || len(ans.Citations) == 0 || ans.Citations[0].URL != "https://news.ycombinator.com/item?id=1006" {
		t.Fatalf("citation: %+v %v", ans, err)
	}
	if got := eng.SourceURL(ctx, r.DocID, 1); got != "https://news.ycombinator.com/item?id=1000" {
		t.Errorf("the post links %q", got)
	}
	var names []string
	for _, h := range eng.Hosts() {
		names = append(names, h.Host)
	}
	if !strings.Contains(strings.Join(names, " "), "hacker-news.firebaseio.com:443") {
		t.Errorf("hosts %v", names)
	}
}

// verifies that with online sources off a URL is refused before any connection, with a
// message saying where to turn them on, and that the choice is saved.
func TestOnlineOff(t *testing.T) {
	s := testsites.Start(t)
	eng := openEngine(t, Config{OnlineTLS: s.TLS})
	if err := eng.SetOnline(false); err != nil {
		t.Fatal(err)
	}
	r, err := eng.IngestURL(context.Background(), s.URL+"/article", func(library.Document) { t.Error("progress while off") })
	if err != nil || r.Status != Failed || !strings.Contains(r.Error, "Settings → Online sources") {
		t.Fatalf("%+v %v", r, err)
	}
	if h := eng.Hosts(); len(h) != 0 {
		t.Errorf("hosts contacted while off: %+v", h)
	}
	saved, err := LoadConfig(eng.Config().Dir)
	if err != nil || !saved.OnlineOff {
		t.Fatalf("saved %+v %v", saved, err)
	}
	if err := eng.SetOnline(true); err != nil {
		t.Fatal(err)
	}
	if r, _ := eng.IngestURL(context.Background(), s.URL+"/article", nil); r.Status != Inserted {
		t.Errorf("on again: %+v", r)
	}
}

// verifies a PDF served at a URL (declared as binary data) is read by the PDF reader:
// its pages and text, the address kept as its URL.
func TestIngestServedPDF(t *testing.T) {
	s := testsites.Start(t)
	data, err := os.ReadFile(testcorpus.File(t, "Walden.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	s.Serve("/books/walden.pdf", "application/octet-stream", data)
	eng := openEngine(t, Config{})
	ctx := context.Background()
	r, err := eng.IngestURL(ctx, s.URL+"/books/walden.pdf", nil)
	if err != nil || r.Status != Inserted || r.Pages < 2 || r.URL != s.URL+"/books/walden.pdf" {
		t.Fatalf("%+v %v", r, err)
	}
	doc, _ := eng.Library().Document(ctx, r.DocID)
	if doc.Kind != "pdf" || filepath.Base(doc.Path) != "walden.pdf" {
		t.Errorf("kind %q path %s", doc.Kind, doc.Path)
	}
	if info, _ := eng.Intake().DocumentInfo(r.DocID); info.URL != r.URL {
		t.Errorf("info url %q", info.URL)
	}
	hits, err := eng.Search(ctx, "I went to the woods because I wished to live deliberately", SearchOptions{})
	if err != nil || len(hits) == 0 || hits[0].DocID != r.DocID {
		t.Fatalf("search: %+v %v", hits, err)
	}
}

// verifies a YouTube video added by URL: its manual captions (not the automatic ones)
// become a timed transcript whose recording is the watch page, and a question about a
// sentence cites it at the time it was said.
func TestIngestYouTube(t *testing.T) {
	s := testsites.Start(t)
	t.Setenv(envconfig.ResolveVar, s.ResolveString())
	t.Setenv("LC_ALL", "en_GB.UTF-8")
	eng := openEngine(t, Config{OnlineTLS: s.TLS})
	ctx := context.Background()
	r, err := eng.IngestURL(ctx, "https://youtu.be/"+testsites.YouTubeVideo, nil)
	watch := "https://www.youtube.com/watch?v=" + testsites.YouTubeVideo
	if err != nil || r.Status != Inserted || r.URL != watch {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	doc, _ := eng.Library().Document(ctx, r.DocID)
	if doc.Kind != "video" || doc.Title != "How Bees Find Flowers" {
		t.Errorf("document %q %q", doc.Kind, doc.Title)
	}
	tr, err := eng.Transcript(ctx, r.DocID)
	if err != nil || tr.MediaURL != watch || tr.MediaPath != "" || tr.Recognizer != "captions" || !strings.Contains(tr.Source, "English") || len(tr.Segments) != 21 {
		t.Fatalf("transcript: %+v %v", tr, err)
	}
	ans, err := eng.Asking().Ask(ctx, "How many flowers does a forager visit on a single trip?", asking.Options{}, nil)
	if err != nil || len(ans.Citations) == 0 || ans.Citations[0].DocID != r.DocID {
		t.Fatalf("ask: %+v %v", ans, err)
	}
	c := ans.Citations[0]
	at := strings.Index(c.Text, "A forager visits")
	if at < 0 {
		t.Fatalf("the citation does not hold the sentence: %q", c.Text)
	}
	sec, ok := eng.PassageTime(ctx, r.DocID, c.Page, c.Start, len([]rune(c.Text[:at])))
	if !ok || sec != testsites.YouTubeFactStart {
		t.Errorf("the sentence is cited at %v s (%v), want %v", sec, ok, testsites.YouTubeFactStart)
	}
	for _, seg := range tr.Segments {
		if strings.Contains(seg.Text, "AUTOMATIC") {
			t.Error("the automatic captions were read, not the manual ones")
		}
	}
}
