package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
)

// mediaTypes are the media types of the recordings Carrel reads.
var mediaTypes = map[string]string{
	".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".wav": "audio/wav", ".ogg": "audio/ogg", ".flac": "audio/flac",
	".mp4": "video/mp4", ".mkv": "video/x-matroska", ".webm": "video/webm", ".mov": "video/quicktime",
}

// FilesHandler serves /files/{docID}: a document's original bytes, for the viewer. The
// desktop app mounts it in Wails' asset server; the browser bridge mounts it too.
func (a *App) FilesHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := strings.TrimPrefix(r.URL.Path, "/files/")
		if id == "" || strings.ContainsAny(id, "/\\.") {
			http.NotFound(w, r)
			return
		}
		defer a.ws.Enter()()
		path, err := a.eng().DocumentFile(r.Context(), id)
		if err != nil {
			code := http.StatusInternalServerError
			if errors.Is(err, library.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
				code = http.StatusNotFound
			}
			http.Error(w, err.Error(), code)
			return
		}
		f, err := os.Open(path)
		if err != nil {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		defer f.Close()
		st, _ := f.Stat()
		w.Header().Set("Cache-Control", "no-store")
		// Documents are untrusted: opened directly (an HTML file, say), they run nothing
		// and reach nothing in the app's origin.
		w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'")
		// Recordings get their media type by name: the system's table may not know them,
		// and with nosniff a player trusts the header. ServeContent answers Range
		// requests (206), so a player seeks without reading the whole file.
		if t := mediaTypes[strings.ToLower(filepath.Ext(path))]; t != "" {
			w.Header().Set("Content-Type", t)
		}
		http.ServeContent(w, r, filepath.Base(path), st.ModTime(), f)
	})
}

// hub fans events out to every connected browser (Server-Sent Events).
type hub struct {
	mu   sync.Mutex
	subs map[chan []byte]struct{}
}

func newHub() *hub { return &hub{subs: map[chan []byte]struct{}{}} }

func (h *hub) Emit(name Event, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		return
	}
	msg := []byte("event: " + string(name) + "\ndata: " + string(b) + "\n\n")
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.subs {
		// A slow browser must not stall answers for everyone: its stream is closed, and
		// on reconnecting it reloads the library and ends answers it lost track of.
		select {
		case c <- msg:
		default:
			delete(h.subs, c)
			close(c)
		}
	}
}

func (h *hub) serve(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	c := make(chan []byte, 4096)
	h.mu.Lock()
	h.subs[c] = struct{}{}
	h.mu.Unlock()
	defer func() {
		h.mu.Lock()
		if _, ok := h.subs[c]; ok {
			delete(h.subs, c)
		}
		h.mu.Unlock()
	}()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, ": connected\n\n")
	fl.Flush()
	for {
		select {
		case <-r.Context().Done():
			return
		case msg, ok := <-c:
			if !ok {
				return
			}
			if _, err := w.Write(msg); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

// Server is the browser bridge: the same App methods and events over HTTP, for
// `carrel serve` and the browser tests.
type Server struct {
	App     *App
	handler http.Handler
	token   string
}

// ServerOptions says where a Server listens and with which key.
type ServerOptions struct {
	// Addr is the address the server listens on (host:port). Requests must name it, or a
	// loopback name with its port, in their Host header; "" accepts loopback names with
	// any port.
	Addr string
	// Token is the run's key (see guard.go); "" makes a new one.
	Token string
	// MaxUploadBytes bounds one upload request; 0 is DefaultMaxUploadBytes.
	MaxUploadBytes int64
}

const (
	// MaxCallBytes bounds a call's JSON arguments.
	MaxCallBytes = 1 << 20
	// DefaultMaxUploadBytes bounds one upload request (the files dropped at once).
	DefaultMaxUploadBytes = 1 << 30
)

// NewServer makes an App for eng whose events go to browsers, serving the frontend from
// assets to the holder of the server's key only (guard.go). Close it with Stop.
func NewServer(ctx context.Context, eng *engine.Engine, assets fs.FS, opt ServerOptions) *Server {
	h := newHub()
	a := New(eng, h)
	a.start(ctx)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/call/{method}", a.serveCall)
	mux.HandleFunc("GET /api/events", h.serve)
	if opt.MaxUploadBytes <= 0 {
		opt.MaxUploadBytes = DefaultMaxUploadBytes
	}
	mux.HandleFunc("POST /api/upload", func(w http.ResponseWriter, r *http.Request) { a.serveUpload(w, r, opt.MaxUploadBytes) })
	mux.Handle("GET /files/", a.FilesHandler())
	mux.Handle("GET /", http.FileServerFS(assets))
	if opt.Token == "" {
		opt.Token = NewToken()
	}
	g := &guard{token: opt.Token, addr: opt.Addr, csp: pageCSP(assets)}
	return &Server{App: a, handler: g.wrap(mux), token: opt.Token}
}

// ServeHTTP serves the bridge.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Token is the server's key: the ?token= of the link to open, or a script's
// "Authorization: Bearer" header.
func (s *Server) Token() string { return s.token }

// Stop ends running work.
func (s *Server) Stop() { s.App.stop() }

var errorType = reflect.TypeFor[error]()

// serveCall calls the App method named in the path with a JSON array of arguments.
func (a *App) serveCall(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("method")
	// The method enters the gate itself (SetLibraryFolder takes it exclusively), as it
	// does when the desktop app calls it.
	m := reflect.ValueOf(a).MethodByName(name)
	if !m.IsValid() {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no method " + name})
		return
	}
	// A page of another site may send text/plain or a form without asking first (no CORS
	// preflight); a JSON body it cannot send without asking.
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		writeJSON(w, http.StatusUnsupportedMediaType, map[string]string{"error": "calls must be sent as application/json"})
		return
	}
	var raw []json.RawMessage
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxCallBytes)).Decode(&raw); err != nil && !errors.Is(err, io.EOF) {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": fmt.Sprintf("call too large: arguments of at most %d bytes", MaxCallBytes)})
			return
		}
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "arguments must be a JSON array: " + err.Error()})
		return
	}
	t := m.Type()
	if len(raw) != t.NumIn() {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("%s takes %d arguments, got %d", name, t.NumIn(), len(raw))})
		return
	}
	args := make([]reflect.Value, len(raw))
	for i, r := range raw {
		v := reflect.New(t.In(i))
		if err := json.Unmarshal(r, v.Interface()); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("argument %d of %s: %v", i+1, name, err)})
			return
		}
		args[i] = v.Elem()
	}
	out := m.Call(args)
	var result any
	for _, o := range out {
		if o.Type() == errorType {
			if !o.IsNil() {
				writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": o.Interface().(error).Error()})
				return
			}
			continue
		}
		result = o.Interface()
	}
	writeJSON(w, http.StatusOK, result)
}

// serveUpload saves uploaded files into the library's inbox and queues them.
func (a *App) serveUpload(w http.ResponseWriter, r *http.Request, limit int64) {
	tooLarge := fmt.Sprintf("upload too large: at most %s at once (add larger files by path, or watch their folder)", humanBytes(limit))
	if r.ContentLength > limit {
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": tooLarge})
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err := r.MultipartReader()
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "expected a multipart upload: " + err.Error()})
		return
	}
	defer a.ws.Enter()()
	if err := a.eng().CheckWritable(); err != nil {
		writeJSON(w, http.StatusConflict, map[string]string{"error": err.Error()})
		return
	}
	dir := a.eng().InboxDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	var paths []string
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": tooLarge})
			return
		}
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "upload: " + err.Error()})
			return
		}
		name := filepath.Base(filepath.Clean("/" + p.FileName()))
		if p.FileName() == "" || name == "/" || name == "." {
			continue
		}
		path := filepath.Join(dir, name)
		if err := saveFile(path, p); err != nil {
			if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
				writeJSON(w, http.StatusRequestEntityTooLarge, map[string]string{"error": tooLarge})
				return
			}
			writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "save upload: " + err.Error()})
			return
		}
		paths = append(paths, path)
	}
	q, err := queued(a.ws.Add(paths))
	if err != nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, q)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

func saveFile(path string, r io.Reader) error {
	tmp := path + ".part"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
