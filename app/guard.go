package app

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
)

// The browser bridge answers only its own page. Any web page open in the user's browser
// can send requests to a local port, so, as Jupyter and Ollama do for theirs, every
// request must pass:
//
//   - the Host check: a loopback name (localhost, 127.0.0.1, ::1) or the exact address the
//     server listens on, with its port. A page that rebinds its own name to 127.0.0.1 (DNS
//     rebinding) sends its own name and is refused.
//   - the key: a per-run secret, given once in the URL serve prints (?token=…) and
//     exchanged for an HttpOnly, SameSite=Strict cookie, or sent by scripts as
//     "Authorization: Bearer …".
//   - for the cookie, the request must come from the app's own page: a cookie is sent by
//     the browser to any port of the same host, so Origin must name this server exactly
//     (always present on POST), and Sec-Fetch-Site, where the browser sends it, must be
//     same-origin (or none: typed in, a bookmark).
//
// Besides, calls must be JSON and calls and uploads have size limits (serveCall,
// serveUpload).

// guard holds what the checks compare against.
type guard struct {
	token string
	// addr is the listening address ("127.0.0.1:8080"); "" accepts any port on a loopback
	// name (a server whose address is not known, as under httptest before it starts).
	addr string
	// csp is the policy sent with the app's pages.
	csp string
}

// NewToken makes a per-run secret: 32 random bytes, URL-safe.
func NewToken() string {
	b := make([]byte, 32)
	rand.Read(b) // never fails (crypto/rand, Go ≥ 1.24)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (g *guard) cookieName(r *http.Request) string {
	// Cookies do not tell ports apart: two serves on one machine get one cookie each.
	_, port, _ := net.SplitHostPort(r.Host)
	return "carrel-" + port
}

// hostAllowed tells whether the Host header names this server.
func (g *guard) hostAllowed(host string) bool {
	name, port, err := net.SplitHostPort(host)
	if err != nil {
		return false // browsers always send the port of a non-default-port origin
	}
	if g.addr != "" {
		bhost, bport, err := net.SplitHostPort(g.addr)
		if err != nil || port != bport {
			return false
		}
		if strings.EqualFold(name, bhost) {
			return true // the exact bound address
		}
	}
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(name, "[]"))
	return ip != nil && ip.IsLoopback()
}

// keyOf reports how the request proved it knows the secret: "header", "cookie" or "".
func (g *guard) keyOf(r *http.Request) string {
	if auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && g.same(auth) {
		return "header"
	}
	if c, err := r.Cookie(g.cookieName(r)); err == nil && g.same(c.Value) {
		return "cookie"
	}
	return ""
}

func (g *guard) same(s string) bool {
	return subtle.ConstantTimeCompare([]byte(s), []byte(g.token)) == 1
}

// fromOwnPage tells whether a cookie-carrying request was made by the app's own page.
func (g *guard) fromOwnPage(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin != "" && origin != "http://"+r.Host {
		return false
	}
	// Browsers send Origin with every POST; a cookie-only POST without one did not come
	// from a browser page of ours.
	if origin == "" && r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	// A page of another site or port navigating the whole tab here (a link) gets the app
	// without its cookie (SameSite=Strict) or with it on a same-site port; either way it
	// sees nothing, as the app then runs in its own tab. Frames, scripts, images and
	// fetches from elsewhere are refused.
	return r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document" && !isAPI(r.URL.Path)
}

func isAPI(path string) bool {
	return strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/files/")
}

// wrap puts the checks in front of next.
func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// No other site may embed, open or load anything of ours.
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if !strings.HasPrefix(r.URL.Path, "/files/") { // /files/ sets its own, stricter one
			h.Set("Content-Security-Policy", g.csp)
		}
		if !g.hostAllowed(r.Host) {
			slog.Warn("serve: refused a request for another host (DNS rebinding?)", "host", r.Host, "path", r.URL.Path)
			http.Error(w, "Carrel answers only to localhost.", http.StatusForbidden)
			return
		}
		if t := r.URL.Query().Get("token"); t != "" && r.URL.Path == "/" && r.Method == http.MethodGet {
			g.login(w, r, t)
			return
		}
		switch g.keyOf(r) {
		case "header":
		case "cookie":
			if !g.fromOwnPage(r) {
				slog.Warn("serve: refused a request from another page", "origin", r.Header.Get("Origin"), "site", r.Header.Get("Sec-Fetch-Site"), "path", r.URL.Path)
				refuse(w, r, http.StatusForbidden, "Carrel answers only its own page.")
				return
			}
		default:
			refuse(w, r, http.StatusUnauthorized, "This Carrel needs its key: open the link <code>carrel serve</code> printed (it ends in ?token=…).")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// login exchanges the key in the URL for the cookie, then sends the browser on to the app
// without it, so the key does not stay in the address bar. The page moves on by itself
// (a refresh from our own page) rather than by a 303: after a redirect the browser would
// not send a SameSite=Strict cookie when the link was opened from elsewhere (a file, as
// --open does, or another site).
func (g *guard) login(w http.ResponseWriter, r *http.Request, token string) {
	if !g.same(token) {
		refuse(w, r, http.StatusForbidden, "This link's key is not this Carrel's: open the link the running <code>carrel serve</code> printed.")
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name:     g.cookieName(r),
		Value:    g.token,
		Path:     "/",
		HttpOnly: true,
		SameSite: http.SameSiteStrictMode,
	})
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write([]byte(`<!doctype html><meta charset=utf-8><meta http-equiv="refresh" content="0;url=/"><title>Carrel</title><p><a href="/">Open Carrel</a></p>` + "\n"))
}

// refuse answers JSON to calls and a short page to a browser tab.
func refuse(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if isAPI(r.URL.Path) {
		msg = strings.NewReplacer("<code>", "`", "</code>", "`").Replace(msg)
		writeJSON(w, code, map[string]string{"error": msg})
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	// The message is ours, never the request's: nothing to escape.
	w.Write([]byte("<!doctype html><meta charset=utf-8><title>Carrel</title><p>" + msg + "</p>\n"))
}

var metaCSP = regexp.MustCompile(`(?is)<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"`)

// pageCSP is the policy of the built index.html, sent as a header too (a header applies
// before the page is parsed) with what a <meta> policy cannot say: that no other page may
// frame the app.
func pageCSP(assets fs.FS) string {
	policy := "default-src 'self'; object-src 'none'; base-uri 'self'; form-action 'none'"
	if b, err := fs.ReadFile(assets, "index.html"); err == nil {
		if m := metaCSP.FindSubmatch(b); m != nil {
			policy = strings.Join(strings.Fields(string(m[1])), " ")
		}
	}
	return strings.TrimSuffix(policy, ";") + "; frame-ancestors 'none'"
}
