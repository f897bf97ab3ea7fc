// Package online reads sources the user adds by URL: web pages (their main content,
// through readability), documents served at a URL (PDF, EPUB, Word, text), Hacker News
// and Reddit threads, and YouTube transcripts. Each becomes a [Source]: a snapshot kept
// in the library, so that its citations open offline, and the canonical URL that is its
// identity.
//
// Nothing here runs unless the user adds a URL: the engine refuses URLs when online
// sources are off. Every request goes through one [Client] with limits on size,
// redirects and time; its connections are dialled through Options.Dial (the engine
// records each host contacted) and Options.Resolve (host:port → address, like curl's
// --resolve), which tests use to point real site names at local servers.
package online

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Kind is what a [Source] is.
type Kind string

// Kinds of [Source].
const (
	KindWeb    Kind = "web"    // a web page's main content, as cleaned HTML
	KindFile   Kind = "file"   // a document served at a URL (PDF, EPUB, Word, text)
	KindThread Kind = "thread" // a Hacker News or Reddit post with its comments
	KindVideo  Kind = "video"  // a YouTube video's transcript
)

// Source is what a URL gave: a snapshot to keep in the library and read with
// backend/ingest, and the URL that identifies it.
type Source struct {
	// URL is the canonical URL: the page's rel=canonical link, else the URL after
	// redirects; for a thread or video, the site's own form of its address. Adding the
	// same URL again finds the document by it.
	URL  string
	Kind Kind
	// Title is the page's, thread's or video's title ("" when unknown).
	Title string
	// Data is the snapshot: cleaned HTML, the served document, or a thread or
	// transcript as JSON (ingest.Thread).
	Data []byte
	// Ext is the snapshot file's extension, which tells ingest how to read it
	// (".html", ".pdf", ".epub", ".docx", ".txt", ".md", ".json").
	Ext string
}

// Limits bound every fetch.
type Limits struct {
	// MaxBytes is the largest answer read (default 25 MB); HTML pages are held to
	// MaxPageBytes (default 5 MB).
	MaxBytes     int64
	MaxPageBytes int64
	// MaxRedirects is how many redirects are followed (default 5).
	MaxRedirects int
	// Timeout bounds one fetch from dialling to the last byte (default 30 s).
	Timeout time.Duration
	// MaxComments caps the comments read from one thread (default 500), and
	// Concurrency the Hacker News items fetched at once (default 8).
	MaxComments int
	Concurrency int
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = 25 << 20
	}
	if l.MaxPageBytes <= 0 {
		l.MaxPageBytes = 5 << 20
	}
	if l.MaxRedirects <= 0 {
		l.MaxRedirects = 5
	}
	if l.Timeout <= 0 {
		l.Timeout = 30 * time.Second
	}
	if l.MaxComments <= 0 {
		l.MaxComments = 500
	}
	if l.Concurrency <= 0 {
		l.Concurrency = 8
	}
	return l
}

// Options configure a [Client]. The zero value fetches from the internet with the
// default limits.
type Options struct {
	// Dial opens every connection (nil: a net.Dialer).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Hosts, when set, records each address connected to, as asked for (before Resolve
	// maps it), for the settings' list of hosts contacted.
	Hosts *HostLog
	// Resolve maps "host:port" to the "ip:port" actually dialled, as curl's --resolve
	// does (see ParseResolve); the request, its Host header and TLS name are
	// unchanged. Tests point youtube.com or news.ycombinator.com at local servers.
	Resolve map[string]string
	// TLS, when set, is the TLS configuration (tests trust their server's certificate).
	TLS *tls.Config
	// Limits bound each fetch.
	Limits Limits
	// UserAgent names Carrel to sites (Reddit refuses anonymous clients).
	UserAgent string
	// Language is the user's language ("de", "pt-BR") for YouTube captions; English
	// is the fallback. "" means English.
	Language string
}

// Client fetches online sources. It is safe for concurrent use.
type Client struct {
	hc   *http.Client
	opts Options
}

// New makes a Client.
func New(opts Options) *Client {
	opts.Limits = opts.Limits.withDefaults()
	if opts.UserAgent == "" {
		opts.UserAgent = "Carrel/0.1 (desktop study app; +https://github.com/carrel-app/carrel)"
	}
	dial := opts.Dial
	if dial == nil {
		d := &net.Dialer{Timeout: 10 * time.Second}
		dial = d.DialContext
	}
	resolve := opts.Resolve
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			to, ok := resolve[addr]
			if !ok {
				to = addr
			}
			conn, err := dial(ctx, network, to)
			if err == nil { // by the name asked for, and only once reached (HostLog.Dial)
				opts.Hosts.Record(addr)
			}
			return conn, err
		},
		TLSClientConfig:       opts.TLS,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: opts.Limits.Timeout,
		MaxIdleConnsPerHost:   opts.Limits.Concurrency,
		IdleConnTimeout:       30 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	c := &Client{opts: opts}
	c.hc = &http.Client{Transport: tr, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) > opts.Limits.MaxRedirects {
			return newError(ErrRedirects, via[0].URL.String(), fmt.Sprintf("more than %d", opts.Limits.MaxRedirects), nil)
		}
		if s := req.URL.Scheme; s != "http" && s != "https" {
			return newError(ErrRedirects, via[0].URL.String(), "to a "+s+": address", nil)
		}
		return nil
	}}
	return c
}

// ParseResolve reads curl-style --resolve entries, "host:port:address" separated by
// commas or spaces ("www.youtube.com:443:127.0.0.1:8443"), into Options.Resolve.
func ParseResolve(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		parts := strings.SplitN(f, ":", 3)
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
			return nil, fmt.Errorf("resolve entry %q: want host:port:address", f)
		}
		to := parts[2]
		if _, _, err := net.SplitHostPort(to); err != nil {
			to = net.JoinHostPort(strings.Trim(to, "[]"), parts[1])
		}
		out[net.JoinHostPort(parts[0], parts[1])] = to
	}
	return out, nil
}

// Get reads the source at rawURL: a Hacker News or Reddit thread, a YouTube video's
// captions, or any other page or document. Errors are [*Error] values, or ctx.Err().
func (c *Client) Get(ctx context.Context, rawURL string) (*Source, error) {
	u, err := ParseURL(rawURL)
	if err != nil {
		return nil, err
	}
	switch {
	case hnItemID(u) != "":
		return c.hackerNews(ctx, u)
	case redditThread(u):
		return c.reddit(ctx, u)
	case youtubeID(u) != "":
		return c.youtube(ctx, u)
	}
	return c.page(ctx, u)
}

// ParseURL checks that s is an absolute http or https URL with a host, adding
// "https://" to a bare "example.com/page".
func ParseURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s != "" && !strings.Contains(s, "://") && !strings.HasPrefix(s, "/") && strings.Contains(s, ".") &&
		!strings.ContainsAny(s, " \\") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, newError(ErrBadURL, s, "", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, newError(ErrBadURL, s, "", nil)
	}
	if u.Host == "" || u.User != nil {
		return nil, newError(ErrBadURL, s, "", nil)
	}
	u.Fragment = ""
	return u, nil
}

// IsURL reports whether s is meant as a web address rather than a file path: it starts
// with http:// or https://.
func IsURL(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}
