package online

import (
	"errors"
	"fmt"
	"net/http"
)

// The catalogue of online failures. Get returns an [*Error] that matches one of them with
// errors.Is, and whose message is one sentence a user can act on.
var (
	// ErrOff: online sources are turned off in the settings.
	ErrOff = errors.New("online sources are off")
	// ErrBadURL: not an http or https URL, or not a URL at all.
	ErrBadURL = errors.New("not a web address")
	// ErrNotFound: 404 or 410.
	ErrNotFound = errors.New("not found")
	// ErrLogin: 401, 403, or a page that is only a sign-in form.
	ErrLogin = errors.New("needs a login")
	// ErrRateLimited: 429.
	ErrRateLimited = errors.New("rate limited")
	// ErrServer: a 5xx answer, or another status that is not a page.
	ErrServer = errors.New("server error")
	// ErrTooLarge: the answer is over Limits.MaxBytes.
	ErrTooLarge = errors.New("too large")
	// ErrTooSlow: no complete answer within Limits.Timeout.
	ErrTooSlow = errors.New("too slow")
	// ErrRedirects: more than Limits.MaxRedirects redirects, or one to a non-web scheme.
	ErrRedirects = errors.New("too many redirects")
	// ErrContentType: what is served is not a page, document or text Carrel reads.
	ErrContentType = errors.New("unsupported content")
	// ErrUnreachable: the host could not be reached (DNS, refused, TLS).
	ErrUnreachable = errors.New("unreachable")
	// ErrNoContent: the page has no readable text (or the thread, video or post none).
	ErrNoContent = errors.New("no text")
)

// Error is an online failure from the catalogue above.
type Error struct {
	// Kind is one of the Err* sentinels.
	Kind error
	// URL is what was asked for.
	URL string
	// Detail says more ("HTTP 503", "over 20 MB", "an image (image/png)").
	Detail string
	// Err is the underlying cause, if any.
	Err error
}

// OffHint says where online sources are turned on; ErrOff's message ends with it.
const OffHint = `turn them on in Settings → Online sources (or set "online_off": false in the library's config.json)`

// messages holds each kind's sentence: %[1]s is the URL, %[2]s the detail in
// parentheses (" (HTTP 503)", or nothing), %[3]s the detail alone.
var messages = map[error]string{
	ErrOff:         "%[1]s was not fetched: online sources are turned off; " + OffHint,
	ErrBadURL:      "%[1]q is not a web address Carrel can fetch%[2]s: give an http:// or https:// link",
	ErrNotFound:    "%[1]s was not found%[2]s: check the link",
	ErrLogin:       "%[1]s needs a login%[2]s: Carrel fetches only public pages; save the page from your browser (File → Save as, .html or PDF) and add that file",
	ErrRateLimited: "%[1]s refused: too many requests%[2]s; try again in a few minutes",
	ErrServer:      "%[1]s failed on the site's side%[2]s; try again later",
	ErrTooLarge:    "%[1]s is too large%[2]s; download it and add the file",
	ErrTooSlow:     "%[1]s was too slow%[2]s; try again later, or download it and add the file",
	ErrRedirects:   "%[1]s redirects too often or to something that is not a web page%[2]s",
	ErrContentType: "%[1]s serves %[3]s, not a page or document Carrel reads (web pages, PDF, EPUB, Word, text)",
	ErrUnreachable: "%[1]s cannot be reached%[2]s: check the address and your connection",
	ErrNoContent:   "%[1]s has no readable text%[2]s",
}

// kindByStatus is the kind of the HTTP statuses that say something particular; any
// other status that is not a success is ErrServer.
var kindByStatus = map[int]error{
	http.StatusUnauthorized:      ErrLogin,
	http.StatusForbidden:         ErrLogin,
	http.StatusProxyAuthRequired: ErrLogin,
	http.StatusNotFound:          ErrNotFound,
	http.StatusGone:              ErrNotFound,
	http.StatusTooManyRequests:   ErrRateLimited,
}

func (e *Error) Error() string {
	if m, ok := messages[e.Kind]; ok {
		d := ""
		if e.Detail != "" {
			d = " (" + e.Detail + ")"
		}
		return fmt.Sprintf(m, e.URL, d, e.Detail)
	}
	if e.Err != nil {
		return fmt.Sprintf("%s: %v", e.URL, e.Err)
	}
	return e.URL + ": cannot be fetched"
}

// Unwrap lets errors.Is match both the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

func newError(kind error, url, detail string, cause error) *Error {
	return &Error{Kind: kind, URL: url, Detail: detail, Err: cause}
}
