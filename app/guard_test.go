package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/internal/testengine"
)

// guarded starts a bridge on a real loopback port with its address known, as serve
// does, and returns its base URL.
func guarded(t *testing.T, opt ServerOptions) (*Server, string, *engine.Engine) {
	t.Helper()
	eng := testengine.Open(t, engine.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	opt.Addr = ln.Addr().String()
	assets := fstest.MapFS{"index.html": {Data: []byte(`<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'self'; object-src 'none'"><title>Carrel</title>`)}}
	srv := NewServer(ctx, eng, assets, opt)
	ts := httptest.NewUnstartedServer(srv)
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() {
		cancel()
		ts.Close()
		srv.Stop()
	})
	return srv, ts.URL, eng
}

type reply struct {
	code   int
	body   string
	header http.Header
}

// do sends one request shaped by the given headers (Host sets the Host header).
func do(t *testing.T, method, url, body string, headers map[string]string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	// No redirects followed: a refusal must be the answer itself.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, string(b), resp.Header}
}

// verifies the two requests of issue 14, as an attacker's page would send them: a
// text/plain AddPaths from Origin evil.example, and a Search carrying a rebound Host
// name; both are refused, nothing is ingested and no text comes back.
func TestServeRefusesAttackerPages(t *testing.T) {
	srv, base, eng := guarded(t, ServerOptions{})
	host := strings.TrimPrefix(base, "http://")
	_, port, _ := net.SplitHostPort(host)
	private := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(private, []byte("Private exam notes: the answer to question three is photosynthesis."), 0o644)
	addBody, _ := json.Marshal([]any{[]string{private}})
	cookie := "carrel-" + port + "=" + srv.Token()

	cases := []struct {
		name    string
		path    string
		body    string
		headers map[string]string
		code    int
	}{
		{"issue: text/plain AddPaths from evil.example", "AddPaths", string(addBody),
			map[string]string{"Origin": "http://evil.example", "Content-Type": "text/plain"}, 401},
		{"issue: Search under a rebound Host", "Search", `["exam",5,null]`,
			map[string]string{"Host": "evil.example:" + port, "Content-Type": "application/json"}, 403},
		// Even with the key (a page cannot have it), a rebound name is refused first.
		{"rebound Host with the key", "Search", `["exam",5,null]`,
			map[string]string{"Host": "evil.example:" + port, "Content-Type": "application/json", "Authorization": "Bearer " + srv.Token()}, 403},
		{"loopback name on another port", "Search", `["exam",5,null]`,
			map[string]string{"Host": "127.0.0.1:1", "Authorization": "Bearer " + srv.Token(), "Content-Type": "application/json"}, 403},
		{"wrong key", "Search", `["exam",5,null]`,
			map[string]string{"Authorization": "Bearer " + strings.Repeat("x", 43), "Content-Type": "application/json"}, 401},
		{"wrong cookie", "Search", `["exam",5,null]`,
			map[string]string{"Cookie": "carrel-" + port + "=nope", "Origin": base, "Content-Type": "application/json"}, 401},
		// A page on another port of this host is same-site: the browser sends it the cookie.
		{"cookie from a page on another port", "AddPaths", string(addBody),
			map[string]string{"Cookie": cookie, "Origin": "http://127.0.0.1:1", "Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, 403},
		{"cookie, no Origin on a POST", "AddPaths", string(addBody),
			map[string]string{"Cookie": cookie, "Content-Type": "application/json"}, 403},
		{"cookie and Origin null (a sandboxed frame)", "AddPaths", string(addBody),
			map[string]string{"Cookie": cookie, "Origin": "null", "Content-Type": "application/json"}, 403},
		{"own page but text/plain", "AddPaths", string(addBody),
			map[string]string{"Cookie": cookie, "Origin": base, "Content-Type": "text/plain"}, 415},
		{"own page but a form", "AddPaths", "x=1",
			map[string]string{"Cookie": cookie, "Origin": base, "Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"call too large", "Search", `["` + strings.Repeat("a", MaxCallBytes) + `",5,null]`,
			map[string]string{"Authorization": "Bearer " + srv.Token(), "Content-Type": "application/json"}, 413},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := do(t, "POST", base+"/api/call/"+c.path, c.body, c.headers)
			if r.code != c.code {
				t.Fatalf("status %d, want %d: %s", r.code, c.code, r.body)
			}
			if strings.Contains(r.body, "photosynthesis") || strings.Contains(r.body, "queued") {
				t.Fatalf("the refusal carries library data: %s", r.body)
			}
		})
	}

	// The app's own page (cookie, its Origin, JSON) and a script (the key) get through:
	// a file added that way is ingested, which also proves the refused one was not.
	other := filepath.Join(t.TempDir(), "other.txt")
	os.WriteFile(other, []byte("Mitochondria make the cell's energy."), 0o644)
	otherBody, _ := json.Marshal([]any{[]string{other}})
	r := do(t, "POST", base+"/api/call/AddPaths", string(otherBody), map[string]string{"Cookie": cookie, "Origin": base, "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin"})
	if r.code != 200 || !strings.Contains(r.body, `"queued":1`) {
		t.Fatalf("the app's own call: %d %s", r.code, r.body)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		docs, err := eng.Library().Documents(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(docs) == 1 && docs[0].Status == "ready" {
			if docs[0].Path != other {
				t.Fatalf("ingested %s, want only %s", docs[0].Path, other)
			}
			break
		}
		if len(docs) > 1 || time.Now().After(deadline) {
			t.Fatalf("library holds %+v", docs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	r = do(t, "POST", base+"/api/call/Search", `["photosynthesis",5,null]`, map[string]string{"Authorization": "Bearer " + srv.Token(), "Content-Type": "application/json"})
	if r.code != 200 || strings.Contains(r.body, "photosynthesis") {
		t.Fatalf("the private file reached the library: %d %s", r.code, r.body)
	}
}

// verifies the key handshake: the printed link sets an HttpOnly SameSite=Strict cookie
// and moves on to a clean URL; without the key the app, its events and /files/ are
// refused; pages get a policy no other page can frame.
func TestServeKeyHandshake(t *testing.T) {
	srv, base, _ := guarded(t, ServerOptions{})
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(base, "http://"))

	if r := do(t, "GET", base+"/?token=wrong", "", nil); r.code != 403 || r.header.Get("Set-Cookie") != "" {
		t.Fatalf("a wrong key in the link: %d, cookie %q", r.code, r.header.Get("Set-Cookie"))
	}
	r := do(t, "GET", base+"/?token="+srv.Token(), "", map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"})
	if r.code != 200 || !strings.Contains(r.body, `url=/"`) {
		t.Fatalf("the link: %d %s", r.code, r.body)
	}
	resp := &http.Response{Header: r.header}
	var got *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "carrel-"+port {
			got = c
		}
	}
	if got == nil || got.Value != srv.Token() || !got.HttpOnly || got.SameSite != http.SameSiteStrictMode || got.Path != "/" {
		t.Fatalf("cookie = %+v (Set-Cookie %q)", got, r.header.Get("Set-Cookie"))
	}
	cookie := got.Name + "=" + got.Value

	for _, path := range []string{"/", "/index.html", "/api/events", "/files/0123abcd"} {
		if r := do(t, "GET", base+path, "", nil); r.code != 401 {
			t.Errorf("GET %s without the key: %d", path, r.code)
		}
	}
	own := map[string]string{"Cookie": cookie, "Sec-Fetch-Site": "same-origin"}
	r = do(t, "GET", base+"/", "", own)
	if r.code != 200 || !strings.Contains(r.body, "<title>Carrel</title>") {
		t.Fatalf("the app with its cookie: %d %s", r.code, r.body)
	}
	csp := r.header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "default-src 'self'") || r.header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("page policy %q, X-Frame-Options %q", csp, r.header.Get("X-Frame-Options"))
	}
	// Loaded into a page elsewhere (an <img>, a frame, a script's fetch): refused.
	for _, h := range []map[string]string{
		{"Cookie": cookie, "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"},
		{"Cookie": cookie, "Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"},
		{"Cookie": cookie, "Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors", "Origin": "http://evil.example"},
	} {
		for _, path := range []string{"/", "/files/0123abcd", "/api/events"} {
			if r := do(t, "GET", base+path, "", h); r.code != 403 {
				t.Errorf("GET %s as %v: %d", path, h, r.code)
			}
		}
	}
}

// verifies /files/ is checked by the handler itself: ids that climb out are refused
// there, not only by the router cleaning the path first.
func TestFilesHandlerRefusesTraversal(t *testing.T) {
	srv, _, _ := guarded(t, ServerOptions{})
	h := srv.App.FilesHandler()
	for _, id := range []string{"../../etc/passwd", "..", "a/../../b", `..\..\windows\win.ini`, "x.pdf"} {
		req := httptest.NewRequest("GET", "/files/x", nil)
		req.URL.Path = "/files/" + id // as a router that does not clean would pass it
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 404 || strings.Contains(rec.Body.String(), "root:") {
			t.Errorf("/files/%s: %d %q", id, rec.Code, rec.Body.String())
		}
	}
}

// verifies the upload limit: a request over it is refused with 413, whether it says its
// length or not, and nothing is queued.
func TestServeUploadLimit(t *testing.T) {
	srv, base, eng := guarded(t, ServerOptions{MaxUploadBytes: 64 << 10})
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("files", "big.txt")
	fw.Write(bytes.Repeat([]byte("big words "), 10<<10))
	mw.Close()
	for _, chunked := range []bool{false, true} {
		var rd io.Reader = bytes.NewReader(body.Bytes())
		if chunked {
			rd = io.MultiReader(rd) // hides the length: sent chunked
		}
		req, _ := http.NewRequest("POST", base+"/api/upload", rd)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Authorization", "Bearer "+srv.Token())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 413 || !strings.Contains(string(b), "64 KiB") && !strings.Contains(string(b), "too large") {
			t.Fatalf("chunked=%v: %d %s", chunked, resp.StatusCode, b)
		}
	}
	if docs, _ := eng.Library().Documents(context.Background()); len(docs) != 0 {
		t.Fatalf("an upload over the limit was queued: %+v", docs)
	}
	if _, err := os.Stat(filepath.Join(eng.InboxDir(), "big.txt")); err == nil {
		t.Fatal("an upload over the limit was kept in the inbox")
	}
}
