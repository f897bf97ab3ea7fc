package online

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/internal/testsites"
)

func client(s *testsites.Sites, lim Limits) *Client {
	return New(Options{Resolve: s.Resolve, TLS: s.TLS, Limits: lim})
}

// verifies that a news article's main content is kept and its navigation, sidebar,
// comments, footer, scripts, images and embeds are not; that the snapshot names the
// page's canonical URL; and that redirects are followed to it.
func TestWebPageSnapshot(t *testing.T) {
	s := testsites.Start(t)
	c := client(s, Limits{})
	for _, path := range []string{"/article", "/article?utm_source=feed", "/redirect/3"} {
		src, err := c.Get(context.Background(), s.URL+path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if want := s.URL + "/articles/urban-bees"; src.URL != want {
			t.Errorf("%s: canonical URL %q, want %q", path, src.URL, want)
		}
		page := string(src.Data)
		if src.Kind != KindWeb || src.Ext != ".html" || src.Title != testsites.ArticleTitle {
			t.Errorf("%s: kind %q ext %q title %q", path, src.Kind, src.Ext, src.Title)
		}
		if !strings.Contains(page, testsites.ArticleFact) {
			t.Errorf("%s: the article's text is missing from the snapshot", path)
		}
		for _, noise := range []string{testsites.NavNoise, "celebrity kitchens", "Cookie settings", "<script", "<img", "<iframe", "tracker.example", "analytics"} {
			if strings.Contains(page, noise) {
				t.Errorf("%s: the snapshot keeps %q", path, noise)
			}
		}
	}
	// ingest reads the snapshot back: text, title and the canonical URL.
	src, _ := c.Get(context.Background(), s.URL+"/article")
	p := filepath.Join(t.TempDir(), "page.html")
	os.WriteFile(p, src.Data, 0o644)
	doc, err := ingest.File(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.URL != src.URL || doc.Title != testsites.ArticleTitle || !strings.Contains(doc.Pages[0].Text, testsites.ArticleFact) {
		t.Errorf("ingest read url %q title %q text %.200q", doc.URL, doc.Title, doc.Pages[0].Text)
	}
}

// verifies every failure a fetch can meet gives its kind of error with a message that
// names the URL and what to do, within the limits set.
func TestFetchFailures(t *testing.T) {
	s := testsites.Start(t)
	// Only the slow cases get a short time limit: a busy machine (or the race detector)
	// may take longer than that to move the oversized answers.
	c := client(s, Limits{Timeout: 20 * time.Second, MaxRedirects: 3})
	quick := client(s, Limits{Timeout: 400 * time.Millisecond, MaxRedirects: 3})
	cases := []struct {
		path string
		kind error
		says string
	}{
		{"/status/404", ErrNotFound, "HTTP 404"},
		{"/status/410", ErrNotFound, "HTTP 410"},
		{"/status/429", ErrRateLimited, "retry after 120s"},
		{"/status/503", ErrServer, "HTTP 503"},
		{"/status/500", ErrServer, "try again later"},
		{"/status/401", ErrLogin, "needs a login"},
		{"/status/403", ErrLogin, "save the page from your browser"},
		{"/login", ErrLogin, "sign-in form"},
		{"/big", ErrTooLarge, "a page over 5 MB"},
		{"/big-chunked", ErrTooLarge, "5 MB"},
		{"/slow", ErrTooSlow, "within 400ms"},
		{"/slow-body", ErrTooSlow, "too slow"},
		{"/loop", ErrRedirects, "more than 3"},
		{"/redirect/5", ErrRedirects, "redirects too often"},
		{"/to-ftp", ErrRedirects, "ftp"},
		{"/image-as-html", ErrContentType, "an image (image/png)"},
		{"/data.json", ErrContentType, "JSON data"},
	}
	for _, tc := range cases {
		start := time.Now()
		cl, limit := c, 15*time.Second
		if tc.kind == ErrTooSlow {
			cl, limit = quick, 3*time.Second
		}
		_, err := cl.Get(context.Background(), s.URL+tc.path)
		if !errors.Is(err, tc.kind) {
			t.Errorf("%s: got %v, want %v", tc.path, err, tc.kind)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, tc.says) || !strings.Contains(msg, s.URL) {
			t.Errorf("%s: message %q should name the URL and say %q", tc.path, msg, tc.says)
		}
		if d := time.Since(start); d > limit {
			t.Errorf("%s took %v: the limits did not stop it", tc.path, d)
		}
	}
	for _, bad := range []string{"ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)", "http://user:pw@example.com/", "not a url", ""} {
		if _, err := c.Get(context.Background(), bad); !errors.Is(err, ErrBadURL) {
			t.Errorf("%q: got %v, want ErrBadURL", bad, err)
		}
	}
	// A port nobody listens on.
	if _, err := c.Get(context.Background(), "http://127.0.0.1:1/"); !errors.Is(err, ErrUnreachable) {
		t.Errorf("closed port: %v", err)
	}
	// The caller's cancel is a cancel, not a slow site.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := New(Options{Limits: Limits{Timeout: 10 * time.Second}}).Get(ctx, s.URL+"/slow"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled: %v", err)
	}
}

// verifies that documents served at a URL are kept as they are, recognised by their
// bytes whatever their declared type.
func TestServedDocuments(t *testing.T) {
	s := testsites.Start(t)
	s.Serve("/download", "application/octet-stream", []byte("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"))
	c := client(s, Limits{})
	src, err := c.Get(context.Background(), s.URL+"/download")
	if err != nil || src.Kind != KindFile || src.Ext != ".pdf" || src.URL != s.URL+"/download" {
		t.Fatalf("pdf: %+v %v", src, err)
	}
	src, err = c.Get(context.Background(), s.URL+"/notes.txt")
	if err != nil || src.Ext != ".txt" || src.Title != "notes.txt" || !strings.Contains(string(src.Data), "one queen") {
		t.Fatalf("text: %+v %v", src, err)
	}
}

// verifies a Hacker News thread: the story and its comment tree in reading order with
// authors, depths and permalinks, the deleted and dead comments left out (a deleted
// comment's reply kept), and each comment a page of its own when ingest reads it.
func TestHackerNewsThread(t *testing.T) {
	s := testsites.Start(t)
	src, err := client(s, Limits{}).Get(context.Background(), "https://news.ycombinator.com/item?id=1000")
	if err != nil {
		t.Fatal(err)
	}
	var th ingest.Thread
	if err := json.Unmarshal(src.Data, &th); err != nil {
		t.Fatal(err)
	}
	if src.Kind != KindThread || th.URL != "https://news.ycombinator.com/item?id=1000" || th.Title != "Ask HN: How do bees find their way home?" {
		t.Fatalf("thread %q %q %q", src.Kind, th.URL, th.Title)
	}
	var got []string
	for _, it := range th.Items {
		got = append(got, strings.Repeat(">", it.Depth)+it.Author+"<"+it.Parent)
		if strings.Contains(it.Text, testsites.HNDead) {
			t.Error("the dead comment was kept")
		}
		if !strings.HasPrefix(it.URL, "https://news.ycombinator.com/item?id=") {
			t.Errorf("%s: permalink %q", it.Author, it.URL)
		}
	}
	want := []string{"pg<", ">alice<", ">>bob<alice", ">>>carol<bob", ">>>dave<alice", ">frank<"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("items %v, want %v", got, want)
	}
	if th.Items[1].URL != "https://news.ycombinator.com/item?id=1001" || !strings.Contains(th.Items[1].Text, "sky, which stay visible through thin clouds.\n\nThey also") {
		t.Errorf("alice: %+v", th.Items[1])
	}
	if !strings.Contains(th.Items[5].Text, "https://en.wikipedia.org/wiki/Waggle_dance") || strings.Contains(th.Items[5].Text, "<i>") {
		t.Errorf("frank's HTML was not made text: %q", th.Items[5].Text)
	}
	p := filepath.Join(t.TempDir(), "thread.json")
	os.WriteFile(p, src.Data, 0o644)
	doc, err := ingest.File(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if doc.Kind != document.KindThread || !doc.PagePassages || len(doc.Pages) != 6 || doc.URL != th.URL {
		t.Fatalf("ingest: kind %q pages %d url %q", doc.Kind, len(doc.Pages), doc.URL)
	}
	if !strings.HasPrefix(doc.Pages[3].Text, "carol, answering bob:\n\n"+testsites.HNDeep) {
		t.Errorf("page 4: %q", doc.Pages[3].Text)
	}
}

// verifies the limits of a large Hacker News thread: at most MaxComments comments, at
// most Concurrency requests at once.
func TestHackerNewsLimits(t *testing.T) {
	s := testsites.Start(t)
	c := client(s, Limits{MaxComments: 25, Concurrency: 4})
	src, err := c.Get(context.Background(), "https://news.ycombinator.com/item?id=2000")
	if err != nil {
		t.Fatal(err)
	}
	var th ingest.Thread
	json.Unmarshal(src.Data, &th)
	if len(th.Items) != 26 {
		t.Errorf("%d items, want the story and 25 comments", len(th.Items))
	}
	if n := s.HNRequests.Load(); n != 26 {
		t.Errorf("%d requests, want 26", n)
	}
	if m := s.HNInFlight.Load(); m > 4 || m < 2 {
		t.Errorf("at most %d requests at once; want 2 to 4", m)
	}
	if _, err := c.Get(context.Background(), "https://news.ycombinator.com/item?id=999999"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing item: %v", err)
	}
}

// verifies a Reddit thread read from its JSON listing: the post and the comment tree,
// removed and deleted comments left out (a removed comment's reply kept), "more" stubs
// not followed, permalinks absolute, and Carrel's User-Agent sent.
func TestRedditThread(t *testing.T) {
	s := testsites.Start(t)
	c := client(s, Limits{})
	for _, u := range []string{"https://www.reddit.com" + testsites.RedditPath, "https://old.reddit.com" + testsites.RedditPath + "?sort=top"} {
		src, err := c.Get(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		var th ingest.Thread
		json.Unmarshal(src.Data, &th)
		if th.URL != "https://www.reddit.com"+testsites.RedditPath || th.Site != "Reddit" || th.Title != "First hive advice?" {
			t.Errorf("thread %q %q %q", th.URL, th.Site, th.Title)
		}
		var got []string
		for _, it := range th.Items {
			got = append(got, strings.Repeat(">", it.Depth)+it.Author)
			if strings.Contains(it.Text, "[removed]") || strings.Contains(it.Text, "[deleted]") || it.Author == "[deleted]" {
				t.Errorf("kept a removed item: %+v", it)
			}
		}
		if want := "newbee >oldkeeper >>newbee >>>oldkeeper >>>thirdparty"; strings.Join(got, " ") != want {
			t.Errorf("items %q, want %q", strings.Join(got, " "), want)
		}
		if th.Items[1].Text != testsites.RedditFact || th.Items[1].URL != "https://www.reddit.com"+testsites.RedditPath+"c1/" {
			t.Errorf("first comment %+v", th.Items[1])
		}
	}
	for _, ua := range s.UserAgents {
		if !strings.HasPrefix(ua, "Carrel/") {
			t.Errorf("User-Agent %q", ua)
		}
	}
	if _, err := c.Get(context.Background(), "https://www.reddit.com/r/beekeeping/comments/zzz999/gone/"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing thread: %v", err)
	}
}

// verifies curl-style resolve entries and that the host log counts connections by the
// name asked for, persists them, and lists the latest first.
func TestResolveAndHostLog(t *testing.T) {
	m, err := ParseResolve("www.youtube.com:443:127.0.0.1:8443, news.ycombinator.com:443:127.0.0.1")
	if err != nil || m["www.youtube.com:443"] != "127.0.0.1:8443" || m["news.ycombinator.com:443"] != "127.0.0.1:443" {
		t.Fatalf("%v %v", m, err)
	}
	if _, err := ParseResolve("nohost"); err == nil {
		t.Error("a bad entry was accepted")
	}
	s := testsites.Start(t)
	p := filepath.Join(t.TempDir(), "hosts.json")
	log := OpenHostLog(p)
	c := New(Options{Resolve: s.Resolve, TLS: s.TLS, Hosts: log})
	if _, err := c.Get(context.Background(), "https://news.ycombinator.com/item?id=1000"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Get(context.Background(), s.URL+"/article"); err != nil {
		t.Fatal(err)
	}
	hosts := OpenHostLog(p).List() // as read back from the file
	if len(hosts) != 2 || hosts[0].Host != strings.TrimPrefix(s.URL, "http://") || hosts[1].Host != "hacker-news.firebaseio.com:443" {
		t.Fatalf("hosts %+v", hosts)
	}
	if hosts[1].Count < 1 || hosts[1].Count > 8 || hosts[1].Last.IsZero() {
		t.Errorf("hacker news: %+v", hosts[1])
	}
}

// verifies that fetching the same page, thread or video again, a second later, gives
// the same snapshot bytes: they are the document's identity, so nothing in them may
// change from one fetch to the next (a fetch time did, and every re-add replaced).
func TestSnapshotsAreStable(t *testing.T) {
	s := testsites.Start(t)
	c := client(s, Limits{})
	urls := []string{s.URL + "/article", "https://news.ycombinator.com/item?id=1000", "https://www.reddit.com" + testsites.RedditPath,
		"https://www.youtube.com/watch?v=" + testsites.YouTubeVideo}
	first := map[string][]byte{}
	for _, u := range urls {
		src, err := c.Get(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		first[u] = src.Data
	}
	time.Sleep(1100 * time.Millisecond)
	for _, u := range urls {
		src, err := c.Get(context.Background(), u)
		if err != nil {
			t.Fatal(err)
		}
		if string(src.Data) != string(first[u]) {
			t.Errorf("%s: the second snapshot differs from the first", u)
		}
	}
}
