package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// ThreadFormat marks a thread snapshot: a discussion (a Hacker News or Reddit post and
// its comments) saved by backend/online as JSON, read back by [File].
const ThreadFormat = "carrel-thread/1"

// Thread is a discussion as Carrel keeps it: the post, then its comments in reading
// order (depth first), each with its author, depth and permalink.
type Thread struct {
	// Format is ThreadFormat; it comes first in the file, where File looks for it.
	Format string `json:"format"`
	// URL is the thread's canonical address, Site the site's name ("Hacker News").
	URL  string `json:"url"`
	Site string `json:"site"`
	// Title is the post's title.
	Title string `json:"title"`
	// Items are the post (depth 0) and its comments (depth 1 answers the post).
	Items []ThreadItem `json:"items"`
}

// ThreadItem is the post or one comment.
type ThreadItem struct {
	Author string `json:"author"`
	// Parent is the author answered ("" for the post and top-level comments).
	Parent string `json:"parent,omitempty"`
	Depth  int    `json:"depth"`
	// Text is the item's text: paragraphs apart by blank lines.
	Text string `json:"text"`
	// URL is the item's permalink.
	URL string `json:"url"`
	// Time is when it was written, in Unix seconds (0 when unknown).
	Time int64 `json:"time,omitempty"`
}

// ThreadLinks gives the permalink of each page a thread snapshot reads into (page n is
// links[n-1]), numbered as readThread numbers them.
func ThreadLinks(data []byte) ([]string, error) {
	var t Thread
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("thread snapshot: %w", err)
	}
	var links []string
	for _, it := range t.Items {
		if strings.TrimSpace(normalizePlainText(it.Text)) != "" {
			links = append(links, it.URL)
		}
	}
	return links, nil
}

// isThread reports whether data is a thread snapshot.
func isThread(data []byte) bool {
	head := data[:min(len(data), 64)]
	return bytes.Contains(head, []byte(`"format":"`+ThreadFormat+`"`)) || bytes.Contains(head, []byte(`"format": "`+ThreadFormat+`"`))
}

// readThread makes each item of a thread a page of its own, so that each comment is a
// passage of its own (Document.PagePassages) and a citation names it by its page; the
// page's text starts with its author (and whom they answer), which keeps who said what
// in the passage the model reads.
func readThread(ctx context.Context, doc *Document, data []byte) error {
	var t Thread
	if err := json.Unmarshal(data, &t); err != nil {
		return newError(ErrCorrupt, doc.Path, "a thread snapshot that is not valid JSON", err)
	}
	doc.Title, doc.URL, doc.PagePassages = cleanLine(t.Title), t.URL, true
	for _, it := range t.Items {
		if err := ctx.Err(); err != nil {
			return err
		}
		text := strings.TrimSpace(normalizePlainText(it.Text))
		if text == "" {
			continue
		}
		var head string
		switch {
		case it.Depth == 0:
			head = fmt.Sprintf("%s\nPosted by %s", cleanLine(t.Title), cleanLine(it.Author))
			if doc.Author == "" {
				doc.Author = it.Author
			}
		case it.Parent != "":
			head = fmt.Sprintf("%s, answering %s:", cleanLine(it.Author), cleanLine(it.Parent))
		default:
			head = cleanLine(it.Author) + ":"
		}
		n := len(doc.Pages) + 1
		doc.Pages = append(doc.Pages, Page{Number: n, Text: head + "\n\n" + text})
		doc.Outline = append(doc.Outline, Heading{Title: it.Author, Page: n, Level: min(it.Depth, 8) + 1})
	}
	if len(doc.Pages) == 0 {
		return newError(ErrEmpty, doc.Path, "a thread with no text", nil)
	}
	if doc.Title == "" {
		doc.Title = strings.SplitN(doc.Pages[0].Text, "\n", 2)[0]
	}
	return nil
}
