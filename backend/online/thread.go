package online

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/net/html"

	"github.com/carrel-app/carrel/backend/ingest"
)

// hnAPI is Hacker News' public item API (github.com/HackerNews/API): no key, one JSON
// object per item, its replies listed by id in "kids".
const hnAPI = "https://hacker-news.firebaseio.com/v0/item/"

// hnItemID is the item id of a Hacker News thread URL (news.ycombinator.com/item?id=N).
func hnItemID(u *url.URL) string {
	h := site(u.Hostname())
	if (h != "news.ycombinator.com" && h != "ycombinator.com") || u.Path != "/item" {
		return ""
	}
	id := u.Query().Get("id")
	if _, err := strconv.ParseUint(id, 10, 64); err != nil {
		return ""
	}
	return id
}

// hnItem is the part of an item Carrel reads.
type hnItem struct {
	ID      int64   `json:"id"`
	Type    string  `json:"type"`
	By      string  `json:"by"`
	Time    int64   `json:"time"`
	Text    string  `json:"text"`
	Title   string  `json:"title"`
	URL     string  `json:"url"`
	Kids    []int64 `json:"kids"`
	Deleted bool    `json:"deleted"`
	Dead    bool    `json:"dead"`
}

// hackerNews reads a Hacker News item and its replies, level by level with at most
// Limits.Concurrency requests at once and Limits.MaxComments comments in all, into a
// thread in reading order.
func (c *Client) hackerNews(ctx context.Context, u *url.URL) (*Source, error) {
	id := hnItemID(u)
	thread := "https://news.ycombinator.com/item?id=" + id
	root, err := c.hnGet(ctx, id)
	if err != nil {
		return nil, err
	}
	if root == nil || root.Deleted || root.Dead {
		return nil, newError(ErrNotFound, thread, "the item is deleted", nil)
	}
	items := map[int64]*hnItem{root.ID: root}
	level, budget := root.Kids, c.opts.Limits.MaxComments
	for len(level) > 0 && budget > 0 {
		level = level[:min(len(level), budget)]
		got, err := c.hnGetAll(ctx, level)
		if err != nil {
			return nil, err
		}
		budget -= len(level)
		var next []int64
		for _, it := range got {
			if it != nil {
				items[it.ID] = it
				next = append(next, it.Kids...)
			}
		}
		level = next
	}
	t := ingest.Thread{Format: ingest.ThreadFormat, URL: thread, Site: "Hacker News", Title: htmlText(root.Title)}
	if t.Title == "" {
		t.Title = "Hacker News comment by " + root.By
	}
	post := htmlText(root.Text)
	if root.URL != "" {
		post = strings.TrimSpace("Link: " + root.URL + "\n\n" + post)
	}
	t.Items = append(t.Items, ingest.ThreadItem{Author: root.By, Text: post, URL: thread, Time: root.Time})
	var visit func(it *hnItem, depth int, parent string)
	visit = func(it *hnItem, depth int, parent string) {
		for _, k := range it.Kids {
			kid := items[k]
			if kid == nil {
				continue // past the budget
			}
			author := parent
			if !kid.Deleted && !kid.Dead && strings.TrimSpace(kid.Text) != "" {
				t.Items = append(t.Items, ingest.ThreadItem{Author: kid.By, Parent: parentName(parent, depth), Depth: depth,
					Text: htmlText(kid.Text), URL: "https://news.ycombinator.com/item?id=" + strconv.FormatInt(kid.ID, 10), Time: kid.Time})
				author = kid.By
			}
			visit(kid, depth+1, author)
		}
	}
	visit(root, 1, root.By)
	return threadSource(t)
}

// parentName is whom a comment at depth answers: nobody named for a top-level comment.
func parentName(parent string, depth int) string {
	if depth <= 1 {
		return ""
	}
	return parent
}

// hnGetAll fetches items at once, at most Limits.Concurrency requests in flight; an
// item that fails to come is a failure of the whole thread (a partial thread would
// silently lose answers).
func (c *Client) hnGetAll(ctx context.Context, ids []int64) ([]*hnItem, error) {
	out := make([]*hnItem, len(ids))
	sem := make(chan struct{}, c.opts.Limits.Concurrency)
	var wg sync.WaitGroup
	var once sync.Once
	var first error
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			it, err := c.hnGet(ctx, strconv.FormatInt(id, 10))
			if err != nil {
				once.Do(func() { first = err; cancel() })
				return
			}
			out[i] = it
		}()
	}
	wg.Wait()
	return out, first
}

func (c *Client) hnGet(ctx context.Context, id string) (*hnItem, error) {
	u, _ := url.Parse(hnAPI + id + ".json")
	r, err := c.fetch(ctx, u, "application/json", 1<<20)
	if err != nil {
		return nil, err
	}
	var it *hnItem // the API answers "null" for an id it does not have
	if err := json.Unmarshal(r.Body, &it); err != nil {
		return nil, newError(ErrServer, u.String(), "the answer is not an item", err)
	}
	if it == nil {
		return nil, newError(ErrNotFound, "https://news.ycombinator.com/item?id="+id, "no such item", nil)
	}
	return it, nil
}

// redditPath matches a Reddit thread's path: /r/SUB/comments/ID[/slug][/].
var redditPath = regexp.MustCompile(`^/r/([A-Za-z0-9_]+)/comments/([a-z0-9]+)(?:/([^/]*))?/?$`)

func redditThread(u *url.URL) bool {
	h := site(u.Hostname())
	return (h == "reddit.com" || strings.HasSuffix(h, ".reddit.com")) && redditPath.MatchString(u.Path)
}

// redditListing is a page of things; a thread's .json is two of them, the post's and
// the comments'.
type redditListing struct {
	Data struct {
		Children []redditThing `json:"children"`
	} `json:"data"`
}

// redditThing is a listing entry: a post (t3), a comment (t1) or a "more" stub, whose
// data differs (a stub's children are ids), so it is decoded by kind.
type redditThing struct {
	Kind string          `json:"kind"`
	Data json.RawMessage `json:"data"`
}

// redditItem is the data of a post or a comment.
type redditItem struct {
	Title      string          `json:"title"`
	Selftext   string          `json:"selftext"`
	Body       string          `json:"body"`
	Author     string          `json:"author"`
	Permalink  string          `json:"permalink"`
	URL        string          `json:"url"`
	IsSelf     bool            `json:"is_self"`
	CreatedUTC float64         `json:"created_utc"`
	Replies    json.RawMessage `json:"replies"` // "" or a listing
}

func (t redditThing) item() (redditItem, bool) {
	var it redditItem
	return it, (t.Kind == "t1" || t.Kind == "t3") && json.Unmarshal(t.Data, &it) == nil
}

// reddit reads a Reddit thread from its JSON listing (the thread's URL + ".json"): the
// post, then the comment tree the listing holds (the "load more" stubs are not
// followed), deleted and removed comments left out.
func (c *Client) reddit(ctx context.Context, u *url.URL) (*Source, error) {
	m := redditPath.FindStringSubmatch(u.Path)
	thread := fmt.Sprintf("https://www.reddit.com/r/%s/comments/%s/", m[1], m[2])
	if m[3] != "" {
		thread += m[3] + "/"
	}
	api, _ := url.Parse(strings.TrimSuffix(thread, "/") + ".json?raw_json=1&limit=" + strconv.Itoa(c.opts.Limits.MaxComments))
	r, err := c.fetch(ctx, api, "application/json", c.opts.Limits.MaxPageBytes)
	if err != nil {
		if e, ok := err.(*Error); ok {
			e.URL = thread
		}
		return nil, err
	}
	var listings []redditListing
	var post redditItem
	ok := false
	if err = json.Unmarshal(r.Body, &listings); err == nil && len(listings) > 0 && len(listings[0].Data.Children) > 0 {
		post, ok = listings[0].Data.Children[0].item()
	}
	if !ok {
		return nil, newError(ErrServer, thread, "the answer is not a thread listing", err)
	}
	t := ingest.Thread{Format: ingest.ThreadFormat, URL: thread, Site: "Reddit", Title: post.Title}
	text := post.Selftext
	if !post.IsSelf && post.URL != "" {
		text = strings.TrimSpace("Link: " + post.URL + "\n\n" + text)
	}
	if removed(post.Author, text) {
		text = ""
	}
	t.Items = append(t.Items, ingest.ThreadItem{Author: post.Author, Text: text, URL: redditLink(post.Permalink, thread), Time: int64(post.CreatedUTC)})
	budget := c.opts.Limits.MaxComments
	var visit func(things []redditThing, depth int, parent string)
	visit = func(things []redditThing, depth int, parent string) {
		for _, th := range things {
			d, ok := th.item()
			if th.Kind != "t1" || !ok || budget <= 0 {
				continue // "more" stubs are not followed
			}
			author := parent
			if !removed(d.Author, d.Body) {
				budget--
				t.Items = append(t.Items, ingest.ThreadItem{Author: d.Author, Parent: parentName(parent, depth), Depth: depth,
					Text: d.Body, URL: redditLink(d.Permalink, thread), Time: int64(d.CreatedUTC)})
				author = d.Author
			}
			var replies redditListing
			if len(d.Replies) > 0 && d.Replies[0] == '{' && json.Unmarshal(d.Replies, &replies) == nil {
				visit(replies.Data.Children, depth+1, author)
			}
		}
	}
	if len(listings) > 1 {
		visit(listings[1].Data.Children, 1, post.Author)
	}
	return threadSource(t)
}

// removed reports a deleted or removed post or comment: its text is a placeholder.
func removed(author, body string) bool {
	b := strings.TrimSpace(body)
	return b == "[deleted]" || b == "[removed]" || b == "" && author == "[deleted]"
}

func redditLink(permalink, fallback string) string {
	if strings.HasPrefix(permalink, "/") {
		return "https://www.reddit.com" + permalink
	}
	return fallback
}

// threadSource makes a thread's snapshot.
func threadSource(t ingest.Thread) (*Source, error) {
	n := 0
	for _, it := range t.Items {
		if strings.TrimSpace(it.Text) != "" {
			n++
		}
	}
	if n == 0 {
		return nil, newError(ErrNoContent, t.URL, "the post and its comments are empty or deleted", nil)
	}
	b, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("thread %s: %w", t.URL, err)
	}
	return &Source{URL: t.URL, Kind: KindThread, Title: t.Title, Data: b, Ext: ".json"}, nil
}

// htmlText turns the HTML of a Hacker News text (paragraphs as <p>, links, <pre><code>)
// into plain text, paragraphs apart by blank lines.
func htmlText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(b.String())
		case html.TextToken:
			b.Write(z.Text())
		case html.StartTagToken, html.SelfClosingTagToken:
			switch name, _ := z.TagName(); string(name) {
			case "p", "pre":
				b.WriteString("\n\n")
			case "br":
				b.WriteString("\n")
			}
		}
	}
}
