package online

import (
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// verifies that whatever a site sends as a page, the snapshot never fails with anything
// but an *Error, and never keeps a script, an image or an embed.
func FuzzSnapshotPage(f *testing.F) {
	f.Add([]byte(`<html><head><link rel=canonical href="/a"></head><body><article><h1>T</h1><p>` + strings.Repeat("Words of text. ", 40) + `</p><img src=x><script>x()</script></article></body></html>`))
	f.Add([]byte(`<form><input type=password></form>`))
	f.Add([]byte(`<div><div><div><p>deep</p></div></div></div><iframe src="https://x/"></iframe>`))
	f.Add([]byte{0xff, 0xfe, '<', 0, 'p', 0})
	base, _ := url.Parse("https://example.com/page")
	f.Fuzz(func(t *testing.T, page []byte) {
		type result struct {
			src *Source
			err error
		}
		done := make(chan result, 1)
		go func() {
			s, e := snapshotPage(base, page, "text/html")
			done <- result{s, e}
		}()
		var r result
		select {
		case r = <-done:
		case <-time.After(3 * time.Second):
			t.Fatalf("a page of %d bytes took over 3 s", len(page))
		}
		src, err := r.src, r.err
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		// Read back as a browser would: no element that runs or loads, no attribute that
		// does, no link that is not a web address.
		z := html.NewTokenizer(bytes.NewReader(src.Data))
		for tt := z.Next(); tt != html.ErrorToken; tt = z.Next() {
			if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
				continue
			}
			tok := z.Token()
			if dropped[atom.Lookup([]byte(tok.Data))] && tok.Data != "link" && tok.Data != "meta" {
				t.Fatalf("the snapshot keeps <%s>:\n%s", tok.Data, src.Data)
			}
			for _, a := range tok.Attr {
				k := strings.ToLower(a.Key)
				if k == "src" || k == "srcset" || k == "style" || strings.HasPrefix(k, "on") || k == "href" && tok.Data != "link" && !webLink(a.Val) {
					t.Fatalf("the snapshot keeps %s=%q on <%s>:\n%s", a.Key, a.Val, tok.Data, src.Data)
				}
			}
		}
		if u, err := url.Parse(src.URL); err != nil || u.Hostname() != "example.com" {
			t.Fatalf("canonical URL %q left the site", src.URL)
		}
	})
}

// verifies the timedtext parser on any input: no panic, cues in order of their own
// times with text and End >= Start.
func FuzzTimedText(f *testing.F) {
	f.Add([]byte(manualENForFuzz))
	f.Add([]byte(`{"events":[{"tStartMs":500,"dDurationMs":100,"segs":[{"utf8":"a"},{"utf8":" b"}]}]}`))
	f.Add([]byte(`<timedtext format="3"><body><p t="1" d="2">x &amp;amp; y</p></body></timedtext>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		cues, err := parseTimedText(b)
		if err != nil {
			return
		}
		for _, c := range cues {
			if c.Text == "" || c.End < c.Start || strings.ContainsAny(c.Text, "\n\t") {
				t.Fatalf("bad cue %+v", c)
			}
		}
	})
}

const manualENForFuzz = `<?xml version="1.0" encoding="utf-8" ?><transcript><text start="0.5" dur="4.1">Welcome &amp;#39;here&amp;#39;</text><text start="5" dur="1">next</text></transcript>`
