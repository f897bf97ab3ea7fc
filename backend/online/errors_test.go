package online

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"testing"
)

// verifies that every kind of failure reads as its one sentence, with and without a
// detail, and that an error of no known kind falls back to its cause.
func TestErrorMessages(t *testing.T) {
	const u = "https://example.org/a"
	cases := []struct {
		kind   error
		detail string
		want   string
	}{
		{ErrOff, "", u + " was not fetched: online sources are turned off; " + OffHint},
		{ErrBadURL, "", `"https://example.org/a" is not a web address Carrel can fetch: give an http:// or https:// link`},
		{ErrBadURL, "ftp", `"https://example.org/a" is not a web address Carrel can fetch (ftp): give an http:// or https:// link`},
		{ErrNotFound, "HTTP 404", u + " was not found (HTTP 404): check the link"},
		{ErrNotFound, "", u + " was not found: check the link"},
		{ErrLogin, "HTTP 403", u + " needs a login (HTTP 403): Carrel fetches only public pages; save the page from your browser (File → Save as, .html or PDF) and add that file"},
		{ErrRateLimited, "HTTP 429, retry after 30s", u + " refused: too many requests (HTTP 429, retry after 30s); try again in a few minutes"},
		{ErrServer, "HTTP 503", u + " failed on the site's side (HTTP 503); try again later"},
		{ErrTooLarge, "over 5 MB", u + " is too large (over 5 MB); download it and add the file"},
		{ErrTooSlow, "", u + " was too slow; try again later, or download it and add the file"},
		{ErrRedirects, "6 redirects", u + " redirects too often or to something that is not a web page (6 redirects)"},
		{ErrContentType, "an image (image/png)", u + " serves an image (image/png), not a page or document Carrel reads (web pages, PDF, EPUB, Word, text)"},
		{ErrUnreachable, "connection refused", u + " cannot be reached (connection refused): check the address and your connection"},
		{ErrNoContent, "", u + " has no readable text"},
	}
	for _, c := range cases {
		t.Run(c.want[:30], func(t *testing.T) {
			if got := newError(c.kind, u, c.detail, nil).Error(); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
	if got := (&Error{URL: u, Err: errors.New("boom")}).Error(); got != u+": boom" {
		t.Errorf("no kind, a cause: %q", got)
	}
	if got := (&Error{URL: u}).Error(); got != u+": cannot be fetched" {
		t.Errorf("no kind, no cause: %q", got)
	}
}

// verifies the kind of each HTTP status that is not a success, and that a 429 keeps its
// Retry-After in the detail.
func TestStatusKinds(t *testing.T) {
	u, _ := url.Parse("https://example.org/a")
	for code, want := range map[int]error{
		401: ErrLogin, 403: ErrLogin, 407: ErrLogin, 404: ErrNotFound, 410: ErrNotFound,
		429: ErrRateLimited, 500: ErrServer, 503: ErrServer, 400: ErrServer, 418: ErrServer, 304: ErrServer,
	} {
		resp := &http.Response{StatusCode: code, Header: http.Header{"Retry-After": {"30"}}}
		err := statusError(u, resp)
		if !errors.Is(err, want) {
			t.Errorf("HTTP %d: %v, want kind %v", code, err, want)
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("HTTP %d: %T", code, err)
		}
		wantDetail := "HTTP " + strconv.Itoa(code)
		if code == 429 {
			wantDetail += ", retry after 30s"
		}
		if e.Detail != wantDetail {
			t.Errorf("HTTP %d: detail %q, want %q", code, e.Detail, wantDetail)
		}
	}
	if err := statusError(u, &http.Response{StatusCode: 204}); err != nil {
		t.Errorf("HTTP 204: %v", err)
	}
}
