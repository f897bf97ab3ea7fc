package online

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// response is one fetched URL.
type response struct {
	URL    *url.URL // after redirects
	Header http.Header
	Body   []byte
}

// fetch GETs u within the client's limits, reading at most limit bytes, and turns every
// failure into an [*Error] of the catalogue: status codes, sizes, time, redirects.
func (c *Client) fetch(ctx context.Context, u *url.URL, accept string, limit int64) (*response, error) {
	lim := c.opts.Limits
	fctx, cancel := context.WithTimeout(ctx, lim.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(fctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, newError(ErrBadURL, u.String(), "", err)
	}
	req.Header.Set("User-Agent", c.opts.UserAgent)
	req.Header.Set("Accept", accept)
	if l := c.opts.Language; l != "" {
		req.Header.Set("Accept-Language", l+", en;q=0.8")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportError(ctx, u, err)
	}
	defer resp.Body.Close()
	if err := statusError(u, resp); err != nil {
		return nil, err
	}
	if resp.ContentLength > limit {
		return nil, newError(ErrTooLarge, u.String(), fmt.Sprintf("%s, over the limit of %s", humanBytes(resp.ContentLength), humanBytes(limit)), nil)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, c.transportError(ctx, u, err)
	}
	if int64(len(body)) > limit {
		return nil, newError(ErrTooLarge, u.String(), "over the limit of "+humanBytes(limit), nil)
	}
	return &response{URL: resp.Request.URL, Header: resp.Header, Body: body}, nil
}

// transportError words a failed request: the caller's cancel stays ctx.Err(); the
// fetch's own deadline is ErrTooSlow; a refused redirect keeps its *Error.
func (c *Client) transportError(ctx context.Context, u *url.URL, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var oe *Error
	if errors.As(err, &oe) {
		return oe
	}
	if errors.Is(err, context.DeadlineExceeded) || isTimeout(err) {
		return newError(ErrTooSlow, u.String(), "no complete answer within "+c.opts.Limits.Timeout.Round(time.Millisecond).String(), err)
	}
	return newError(ErrUnreachable, u.String(), shortCause(err), err)
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// shortCause is the innermost message of a network error ("connection refused").
func shortCause(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		err = oe.Err
	}
	return err.Error()
}

// statusError maps an HTTP status that is not a success to the catalogue.
func statusError(u *url.URL, resp *http.Response) error {
	code := resp.StatusCode
	if code >= 200 && code < 300 {
		return nil
	}
	detail := fmt.Sprintf("HTTP %d", code)
	kind, ok := kindByStatus[code]
	if !ok {
		kind = ErrServer
	}
	if ra := resp.Header.Get("Retry-After"); kind == ErrRateLimited && ra != "" {
		detail += ", retry after " + ra + "s"
	}
	return newError(kind, u.String(), detail, nil)
}

// Content kinds that sniff tells apart.
const (
	typeHTML = "html"
	typePDF  = "pdf"
	typeEPUB = "epub"
	typeDOCX = "docx"
	typeText = "text"
	typeMD   = "markdown"
)

// sniff decides what body is from its bytes, as a browser does, using the declared
// Content-Type only to tell Markdown from plain text; what it cannot read it describes
// for ErrContentType.
func sniff(body []byte, declared string) (kind, describe string) {
	head := body[:min(len(body), 1024)]
	switch {
	case bytes.Contains(head, []byte("%PDF-")):
		return typePDF, ""
	case bytes.HasPrefix(body, []byte("PK\x03\x04")):
		switch {
		case len(body) > 58 && string(body[30:58]) == "mimetypeapplication/epub+zip":
			return typeEPUB, ""
		case bytes.Contains(body, []byte("word/document.xml")):
			return typeDOCX, ""
		}
		return "", "a ZIP archive"
	}
	detected := http.DetectContentType(body)
	mt, _, _ := mime.ParseMediaType(detected)
	dt, _, _ := mime.ParseMediaType(declared)
	lower := strings.ToLower(string(head))
	switch {
	case mt == "text/html":
		return typeHTML, ""
	case mt == "text/xml" && (strings.Contains(lower, "<html") || strings.Contains(lower, "xhtml")):
		return typeHTML, ""
	case mt == "text/plain":
		trimmed := strings.TrimSpace(lower)
		switch {
		case dt == "application/json" || strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "["):
			return "", "JSON data"
		case dt == "text/markdown" || dt == "text/x-markdown":
			return typeMD, ""
		}
		return typeText, ""
	case strings.HasPrefix(mt, "image/"):
		return "", "an image (" + mt + ")"
	case strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"), mt == "application/ogg":
		return "", "audio or video (" + mt + ")"
	}
	if declared != "" && dt != "application/octet-stream" {
		return "", "data of type " + dt
	}
	return "", "binary data (" + mt + ")"
}

// humanBytes formats n as "25 MB", "3.2 KB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	v, i := float64(n)/unit, 0
	for v >= unit && i < 3 {
		v /= unit
		i++
	}
	if v >= 10 || v == float64(int64(v)) {
		return fmt.Sprintf("%.0f %cB", v, "KMGT"[i])
	}
	return fmt.Sprintf("%.1f %cB", v, "KMGT"[i])
}
