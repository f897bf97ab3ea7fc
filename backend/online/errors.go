package online

import (
	"errors"
	"fmt"
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

func (e *Error) Error() string {
	d := ""
	if e.Detail != "" {
		d = " (" + e.Detail + ")"
	}
	switch e.Kind {
	case ErrOff:
		return fmt.Sprintf("%s was not fetched: online sources are turned off; %s", e.URL, OffHint)
	case ErrBadURL:
		return fmt.Sprintf("%q is not a web address Carrel can fetch%s: give an http:// or https:// link", e.URL, d)
	case ErrNotFound:
		return fmt.Sprintf("%s was not found%s: check the link", e.URL, d)
	case ErrLogin:
		return fmt.Sprintf("%s needs a login%s: Carrel fetches only public pages; save the page from your browser (File → Save as, .html or PDF) and add that file", e.URL, d)
	case ErrRateLimited:
		return fmt.Sprintf("%s refused: too many requests%s; try again in a few minutes", e.URL, d)
	case ErrServer:
		return fmt.Sprintf("%s failed on the site's side%s; try again later", e.URL, d)
	case ErrTooLarge:
		return fmt.Sprintf("%s is too large%s; download it and add the file", e.URL, d)
	case ErrTooSlow:
		return fmt.Sprintf("%s was too slow%s; try again later, or download it and add the file", e.URL, d)
	case ErrRedirects:
		return fmt.Sprintf("%s redirects too often or to something that is not a web page%s", e.URL, d)
	case ErrContentType:
		return fmt.Sprintf("%s serves %s, not a page or document Carrel reads (web pages, PDF, EPUB, Word, text)", e.URL, e.Detail)
	case ErrUnreachable:
		return fmt.Sprintf("%s cannot be reached%s: check the address and your connection", e.URL, d)
	case ErrNoContent:
		return fmt.Sprintf("%s has no readable text%s", e.URL, d)
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
