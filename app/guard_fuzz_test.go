package app

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// verifies the serve guard on any request a page or a program could send: a request
// reaches the bridge only when its Host names this server (a loopback name or the bound
// address, with its port) and it carries the run's key (Authorization: Bearer, or the
// cookie from a page of this very origin); a key in the link sets the cookie only when it
// is the key. Seeded with the attacks of issue 14.
func FuzzServeGuard(f *testing.F) {
	const key = "k3y-0f-th1s-run-aaaaaaaaaaaaaaaaaaaaaaaaaaa"
	const addr = "127.0.0.1:18081"
	for _, s := range [][8]string{
		{"POST", "/api/call/AddPaths", "127.0.0.1:18081", "http://evil.example", "", "", "", ""},
		{"POST", "/api/call/Search", "evil.example:18081", "", "", "", "", ""},
		{"POST", "/api/call/Search", "evil.example:18081", "", "Bearer " + key, "", "", ""},
		{"POST", "/api/call/Search", "127.0.0.1:18081", "http://127.0.0.1:18081", "", key, "same-origin", ""},
		{"POST", "/api/call/Search", "localhost:18081", "http://localhost:1", "", key, "same-site", ""},
		{"GET", "/files/abc", "[::1]:18081", "", "", key, "cross-site", "image"},
		{"GET", "/", "127.0.0.1:18081", "", "", "", "none", key},
		{"GET", "/", "127.0.0.1:18081", "", "", "", "", "wrong"},
		{"GET", "/api/events", "127.0.0.1.nip.io:18081", "", "", key, "", ""},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
	}
	g := &guard{token: key, addr: addr, csp: "default-src 'self'"}
	f.Fuzz(func(t *testing.T, method, path, host, origin, auth, cookie, site, token string) {
		reached := false
		h := g.wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
		u := &url.URL{Path: "/" + strings.TrimLeft(path, "/")}
		if token != "" {
			u.RawQuery = url.Values{"token": {token}}.Encode()
		}
		if method == "" || strings.ContainsAny(method, " \t\r\n()<>@,;:\\\"/[]?={}") {
			method = "GET"
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.Method, req.URL, req.Host = method, u, host
		for k, v := range map[string]string{"Origin": origin, "Authorization": auth, "Sec-Fetch-Site": site} {
			if v != "" {
				req.Header.Set(k, v)
			}
		}
		if cookie != "" {
			_, port, _ := net.SplitHostPort(host)
			req.AddCookie(&http.Cookie{Name: "carrel-" + port, Value: url.QueryEscape(cookie)})
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		if !g.hostAllowed(host) && (reached || rec.Code != http.StatusForbidden) {
			t.Fatalf("Host %q is not this server's, yet the request got %d (reached %v)", host, rec.Code, reached)
		}
		if set := rec.Header().Get("Set-Cookie"); set != "" && (token != key || !strings.Contains(set, "SameSite=Strict") || !strings.Contains(set, "HttpOnly")) {
			t.Fatalf("link key %q set the cookie %q", token, set)
		}
		if !reached {
			return
		}
		byHeader := auth == "Bearer "+key
		byCookie := url.QueryEscape(cookie) == key && (origin == "" || origin == "http://"+host)
		if !byHeader && !byCookie {
			t.Fatalf("%s %s (Host %q, Origin %q, Authorization %q, cookie %q, site %q) reached the bridge without the key", method, u, host, origin, auth, cookie, site)
		}
		if byCookie && !byHeader && origin == "" && method != http.MethodGet && method != http.MethodHead {
			t.Fatalf("a cookie-only %s without Origin reached the bridge", method)
		}
	})
}
