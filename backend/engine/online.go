package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/intake"
	"github.com/carrel-app/carrel/backend/online"
)

// OnlineDir is the folder of the library that keeps the snapshots of online sources
// (web pages, threads, documents fetched by URL): one folder per URL and content,
// DIR/online/URLKEY-CONTENTKEY/NAME.
const OnlineDir = "online"

// HostsFile is the library's record of the hosts Carrel has connected to.
const HostsFile = "hosts.json"

// IsURL reports whether an argument names a web address rather than a file.
func IsURL(s string) bool { return online.IsURL(s) }

// OnlineOn reports whether online sources may be fetched (Settings → Online sources).
func (e *Engine) OnlineOn() bool { return !e.Config().OnlineOff }

// SetOnline turns online sources on or off and saves the choice in config.json.
func (e *Engine) SetOnline(on bool) error {
	e.cfgMu.Lock()
	defer e.cfgMu.Unlock()
	saved, err := LoadConfig(e.cfg.Dir)
	if err != nil {
		return err
	}
	saved.OnlineOff = !on
	if err := SaveConfig(e.cfg.Dir, saved); err != nil {
		return err
	}
	e.cfg.OnlineOff = !on
	return nil
}

// Hosts lists every host this library's Carrel has connected to (Ollama, cloud
// providers, online sources), the most recent first.
func (e *Engine) Hosts() []online.Host { return e.hosts.List() }

// OffError is the refusal of a URL while online sources are off.
func OffError(rawURL string) error { return &online.Error{Kind: online.ErrOff, URL: rawURL} }

// onlineClient makes the client that fetches online sources: through the engine's
// dialler, recording each host, with CARREL_RESOLVE's mappings.
func (e *Engine) onlineClient() (*online.Client, error) {
	resolve, err := online.ParseResolve(envconfig.Resolve())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", envconfig.ResolveVar, err)
	}
	cfg := e.Config()
	return online.New(online.Options{Dial: e.baseDial, Hosts: e.hosts, Resolve: resolve, TLS: cfg.OnlineTLS,
		Language: envconfig.Language()}), nil
}

// IngestURL fetches the source at rawURL (a web page, a thread, a document served at a
// URL), keeps its snapshot in the library and ingests it as a document. The canonical
// URL is the document's identity: adding it again is skipped when the content is the
// same, and replaces the old document when it changed (as a changed watched file is).
// Failures, the refusal while online sources are off included, are in the Result; the
// error return is for a broken library.
func (e *Engine) IngestURL(ctx context.Context, rawURL string, progress ProgressFunc) (Result, error) {
	res := Result{Path: rawURL}
	if e.readOnly {
		return res, e.readOnlyError()
	}
	if !e.OnlineOn() {
		res.Status, res.Error = Failed, intake.OneLine(OffError(rawURL))
		return res, nil
	}
	c, err := e.onlineClient()
	if err != nil {
		return res, err
	}
	src, err := c.Get(ctx, rawURL)
	if err != nil {
		if ctx.Err() != nil {
			return res, ctx.Err()
		}
		res.Status, res.Error = Failed, intake.OneLine(err)
		return res, nil
	}
	res.URL = src.URL
	p, err := e.saveSnapshot(src)
	if err != nil {
		return res, err
	}
	old, err := e.urlDocuments(ctx, src.URL)
	if err != nil {
		return res, err
	}
	r, err := e.in.IngestFile(ctx, p, progress)
	r.URL = src.URL
	if err != nil || r.Status == Failed {
		return r, err
	}
	if err := e.in.SetURL(r.DocID, src.URL); err != nil {
		return r, err
	}
	for _, d := range old {
		if d.id == r.DocID {
			continue
		}
		// The content changed: the new snapshot replaces the old document.
		if err := e.in.Remove(context.WithoutCancel(ctx), d.id); err != nil {
			return r, err
		}
		if err := os.RemoveAll(filepath.Dir(d.path)); err != nil {
			slog.Warn("engine: removing an old snapshot", "path", d.path, "err", err)
		}
		r.Replaced = append(r.Replaced, d.id)
	}
	return r, nil
}

// urlKey names a URL's snapshots: the first 16 hex digits of its SHA-256.
func urlKey(u string) string {
	h := sha256.Sum256([]byte(u))
	return hex.EncodeToString(h[:8])
}

// saveSnapshot writes a source's snapshot as DIR/online/URLKEY-CONTENTKEY/NAME, where
// NAME is a readable file name from its title or URL with the snapshot's extension.
func (e *Engine) saveSnapshot(src *online.Source) (string, error) {
	h := sha256.Sum256(src.Data)
	dir := filepath.Join(e.cfg.Dir, OnlineDir, urlKey(src.URL)+"-"+hex.EncodeToString(h[:6]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("save snapshot of %s: %w", src.URL, err)
	}
	p := filepath.Join(dir, snapshotName(src))
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, src.Data, 0o644); err != nil {
		return "", fmt.Errorf("save snapshot of %s: %w", src.URL, err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return "", fmt.Errorf("save snapshot of %s: %w", src.URL, err)
	}
	return p, nil
}

var unsafeName = regexp.MustCompile(`[^\p{L}\p{N}._ -]+`)

// snapshotName is a file name for a snapshot: a served file keeps its own name.
func snapshotName(src *online.Source) string {
	name := src.Title
	if src.Kind == online.KindFile {
		if u, err := url.Parse(src.URL); err == nil {
			if b := path.Base(u.Path); strings.EqualFold(path.Ext(b), src.Ext) {
				name = strings.TrimSuffix(b, path.Ext(b))
			}
		}
	}
	name = strings.TrimSpace(unsafeName.ReplaceAllString(name, " "))
	name = strings.Join(strings.Fields(name), " ")
	if r := []rune(name); len(r) > 80 {
		name = strings.TrimSpace(string(r[:80]))
	}
	if name == "" || strings.Trim(name, ".") == "" {
		name = "page"
	}
	return name + src.Ext
}

// urlDoc is a document that is a snapshot of a URL.
type urlDoc struct{ id, path string }

// urlDocuments lists the documents that are snapshots of the URL u.
func (e *Engine) urlDocuments(ctx context.Context, u string) ([]urlDoc, error) {
	docs, err := e.lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	prefix := filepath.Join(e.cfg.Dir, OnlineDir, urlKey(u)+"-")
	var out []urlDoc
	for _, d := range docs {
		if strings.HasPrefix(d.Path, prefix) {
			out = append(out, urlDoc{d.ID, d.Path})
		}
	}
	return out, nil
}

// SourceURL is where page of a document fetched by URL can be read online: a thread
// comment's permalink, else the document's address; "" for files (and on any failure:
// a link is a convenience, never a reason to fail an answer).
func (e *Engine) SourceURL(ctx context.Context, docID string, page int) string {
	info, err := e.in.DocumentInfo(docID)
	if err != nil || info.URL == "" {
		return ""
	}
	doc, err := e.lib.Document(ctx, docID)
	if err != nil || doc.Kind != document.KindThread {
		return info.URL
	}
	links, ok := e.threadLinks.Load(docID)
	if !ok {
		data, err := os.ReadFile(doc.Path)
		if err != nil {
			return info.URL
		}
		l, err := ingest.ThreadLinks(data)
		if err != nil {
			return info.URL
		}
		links, _ = e.threadLinks.LoadOrStore(docID, l)
	}
	if l := links.([]string); page >= 1 && page <= len(l) && l[page-1] != "" {
		return l[page-1]
	}
	return info.URL
}

// IsOffline reports whether err is the refusal of a URL while online sources are off.
func IsOffline(err error) bool { return errors.Is(err, online.ErrOff) }
