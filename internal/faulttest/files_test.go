package faulttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/internal/crashtest"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
)

func config(dir, host string) engine.Config {
	return engine.Config{Dir: dir, OllamaHost: host, ChatModel: testollama.ChatModel, EmbedModel: testollama.EmbedModel,
		EmbedBatch: 8, MaxTokens: 24}
}

func open(t *testing.T, cfg engine.Config) *engine.Engine {
	t.Helper()
	eng, err := engine.Open(cfg)
	if err != nil {
		t.Fatalf("open %s: %v", cfg.Dir, err)
	}
	return eng
}

// mount mounts a tmpfs of size at dir for the test (a small disk that can fill up, or be
// made read-only); it skips the test when not root, the only reason it may.
func mount(t *testing.T, dir, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("mounting a small filesystem needs root (CI runs as root)")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Fatalf("mount a %s tmpfs at %s: %v", size, dir, err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
}

// remount changes a mounted tmpfs's size or makes it read-only (opts "ro", "rw",
// "size=…").
func remount(t *testing.T, dir, opts string) {
	t.Helper()
	var flags uintptr = syscall.MS_REMOUNT
	data := ""
	switch opts {
	case "ro":
		flags |= syscall.MS_RDONLY
	case "rw":
	default:
		data = opts
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", flags, data); err != nil {
		t.Fatalf("remount %s %s: %v", dir, opts, err)
	}
}

// fill writes a file in dir until the disk is full and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "filler")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return p
			}
			t.Fatal(err)
		}
	}
}

// note writes a Markdown note of n sections into dir.
func note(t *testing.T, dir, name string, n int) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", name)
	for i := range n {
		fmt.Fprintf(&b, "## Section %d\n\nThoreau built his cabin by Walden Pond in %s, part %d, and counted every cent: boards, nails, lime and a chimney, %d in all.\n\n", i, name, i, i*17)
	}
	p := filepath.Join(dir, name+".md")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// consistent reopens the library (so that it repairs what it can) and checks it.
func consistent(t *testing.T, cfg engine.Config) crashtest.State {
	t.Helper()
	open(t, cfg).Close()
	st, err := crashtest.Check(cfg.Dir)
	if err != nil {
		t.Fatalf("library %s is not consistent: %v", cfg.Dir, err)
	}
	return st
}

// verifies a disk that fills up during an ingest: the ingest fails with an error that
// says the disk is full, the library reopens consistent, and once space is freed the
// same file ingests completely.
func TestDiskFullDuringIngest(t *testing.T) {
	srv := testollama.Start(t)
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "lib")
	mount(t, dir, "8m")
	cfg := config(dir, srv.Host)
	eng := open(t, cfg)
	if r, err := eng.Intake().IngestFile(ctx, note(t, root, "first", 10), nil); err != nil || r.Status != engine.Inserted {
		t.Fatalf("first ingest: %+v %v", r, err)
	}
	filler := fill(t, dir)
	walden := testcorpus.File(t, "Walden.pdf")
	r, err := eng.Intake().IngestFile(ctx, walden, nil)
	msg := ""
	if err != nil {
		msg = err.Error()
	} else if r.Status == engine.Failed {
		msg = r.Error
	}
	if !strings.Contains(msg, "is full: free some space") || !strings.Contains(msg, dir) {
		t.Fatalf("ingest on a full disk: want an error saying the disk is full, got %+v %v", r, err)
	}
	t.Logf("disk full: %s", msg)
	eng.Close()

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	consistent(t, cfg)
	eng = open(t, cfg)
	defer eng.Close()
	if r, err := eng.Intake().IngestFile(ctx, walden, nil); err != nil || r.Status != engine.Inserted || r.Chunks == 0 {
		t.Fatalf("ingest after freeing space: %+v %v", r, err)
	}
	if hits, err := eng.Search(ctx, "woods", engine.SearchOptions{}); err != nil || len(hits) == 0 {
		t.Fatalf("search after freeing space: %d hits, %v", len(hits), err)
	}
	eng.Close()
	if st := consistent(t, cfg); st.Pending > 0 || st.Vectors != st.Chunks {
		t.Fatalf("after the retry %d chunks wait for vectors (%d vectors, %d chunks)", st.Pending, st.Vectors, st.Chunks)
	}
}

// verifies a disk that fills up while an index is saved (each index folder on a disk
// of its own, too small for the next save): the vector index keeps its last complete
// file and the document stays searchable by its words with a warning; the word index's
// failure is an error; either way the library reopens consistent, and once there is
// room again the vectors are embedded and the same file ingests.
func TestDiskFullDuringIndexSave(t *testing.T) {
	srv := testollama.Start(t)
	for _, idx := range []string{"vectors", "bleve"} {
		t.Run(idx, func(t *testing.T) {
			ctx := context.Background()
			root := t.TempDir()
			dir := filepath.Join(root, "lib")
			cfg := config(dir, srv.Host)
			open(t, cfg).Close() // the library and its folders
			mount(t, filepath.Join(dir, idx), "256k")
			eng := open(t, cfg)
			if r, err := eng.Intake().IngestFile(ctx, note(t, root, "first", 3), nil); err != nil || r.Status != engine.Inserted {
				t.Fatalf("first ingest: %+v %v", r, err)
			}
			filler := fill(t, filepath.Join(dir, idx))
			walden := testcorpus.File(t, "Walden.pdf")
			r, err := eng.Intake().IngestFile(ctx, walden, nil)
			switch idx {
			case "vectors":
				if err != nil || r.Status != engine.Inserted || len(r.Warnings) == 0 || !strings.Contains(strings.Join(r.Warnings, " "), "space") {
					t.Fatalf("ingest with a full vector disk: want inserted with a warning about space, got %+v %v", r, err)
				}
				t.Logf("warning: %s", r.Warnings[0])
				if hits, err := eng.Search(ctx, "woods", engine.SearchOptions{}); err != nil || len(hits) == 0 {
					t.Fatalf("search by words with a full vector disk: %d hits, %v", len(hits), err)
				}
			case "bleve":
				if err == nil && r.Status != engine.Failed {
					t.Fatalf("ingest with a full word-index disk succeeded: %+v", r)
				}
				t.Logf("error: %v %s", err, r.Error)
			}
			eng.Close()
			os.Remove(filler)
			remount(t, filepath.Join(dir, idx), "size=16m")
			consistent(t, cfg)
			eng = open(t, cfg)
			if _, err := eng.Intake().IngestFile(ctx, walden, nil); err != nil {
				t.Fatal(err)
			}
			if _, err := eng.Intake().EmbedPending(ctx); err != nil {
				t.Fatal(err)
			}
			eng.Close()
			st := consistent(t, cfg)
			if len(st.Docs) != 2 || st.Pending > 0 || st.Vectors != st.Chunks {
				t.Fatalf("after freeing space: %d documents, %d chunks waiting, %d vectors for %d chunks", len(st.Docs), st.Pending, st.Vectors, st.Chunks)
			}
			for id, d := range st.Docs {
				if d.Status != library.StatusReady {
					t.Fatalf("document %.12s is %s", id, d.Status)
				}
			}
		})
	}
}

// verifies a library on a read-only disk: it opens read-only, says so in the status,
// searches (words and meaning) and reads documents, and refuses changes with a clear
// error, leaving every file as it was.
func TestReadOnlyLibrary(t *testing.T) {
	srv := testollama.Start(t)
	ctx := context.Background()
	root := t.TempDir()
	dir := filepath.Join(root, "lib")
	mount(t, dir, "64m")
	cfg := config(dir, srv.Host)
	eng := open(t, cfg)
	r, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "Walden.pdf"), nil)
	if err != nil || r.Status != engine.Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	if _, err := eng.Asking().Ask(ctx, "What did Thoreau plant?", asking.Options{}, nil); err != nil {
		t.Fatal(err)
	}
	eng.Close()
	before := hashTree(t, dir)
	remount(t, dir, "ro")

	eng = open(t, cfg)
	st := eng.Status(ctx)
	if !st.ReadOnly || !strings.Contains(st.ReadOnlyReason, "read-only") {
		t.Fatalf("status of a read-only library: read_only=%v %q", st.ReadOnly, st.ReadOnlyReason)
	}
	for _, mode := range []string{"lexical", "hybrid"} {
		hits, err := eng.Search(ctx, "woods", engine.SearchOptions{Mode: retrieveMode(mode)})
		if err != nil || len(hits) == 0 || hits[0].DocID != r.DocID {
			t.Fatalf("%s search of a read-only library: %+v %v", mode, hits, err)
		}
	}
	if pages, err := eng.Library().PageTexts(ctx, r.DocID); err != nil || len(pages) == 0 {
		t.Fatalf("read pages: %d %v", len(pages), err)
	}
	if _, err := eng.DocumentFile(ctx, r.DocID); err != nil {
		t.Fatal(err)
	}
	if sessions, err := eng.Asking().Sessions(ctx); err != nil || len(sessions) != 1 {
		t.Fatalf("sessions of a read-only library: %d %v", len(sessions), err)
	}
	_, err = eng.Intake().IngestFile(ctx, note(t, root, "more", 2), nil)
	if !errors.Is(err, library.ErrReadOnly) || !strings.Contains(err.Error(), dir) {
		t.Fatalf("ingest into a read-only library: want ErrReadOnly naming the folder, got %v", err)
	}
	if _, err := eng.Asking().Ask(ctx, "What did Thoreau plant?", asking.Options{}, nil); !errors.Is(err, library.ErrReadOnly) {
		t.Fatalf("ask in a read-only library: %v", err)
	}
	if err := eng.Intake().Remove(ctx, r.DocID); !errors.Is(err, library.ErrReadOnly) {
		t.Fatalf("remove from a read-only library: %v", err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	remount(t, dir, "rw")
	if after := hashTree(t, dir); after != before {
		t.Fatal("opening a read-only library changed its files")
	}
	consistent(t, cfg)
}

func retrieveMode(s string) retrieve.Mode { return retrieve.Mode(s) }

// hashTree hashes every file's path and bytes under dir.
func hashTree(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == library.LockName {
			return err // the lock file names the process that opened the library
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d\n", p, len(b))
		h.Write(b)
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}

// template builds a small embedded library once per test and copies it for each case.
func template(t *testing.T, host string) (src string, walden string) {
	t.Helper()
	ctx := context.Background()
	src = filepath.Join(t.TempDir(), "template")
	eng := open(t, config(src, host))
	defer eng.Close()
	r, err := eng.Intake().IngestFile(ctx, testcorpus.File(t, "Walden.pdf"), nil)
	if err != nil || r.Status != engine.Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	if r, err := eng.Intake().IngestFile(ctx, note(t, t.TempDir(), "notes", 12), nil); err != nil || r.Status != engine.Inserted {
		t.Fatalf("ingest: %+v %v", r, err)
	}
	// The threshold file exists once a search by meaning has run.
	if _, err := eng.Search(ctx, "woods", engine.SearchOptions{}); err != nil {
		t.Fatal(err)
	}
	return src, r.DocID
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func truncateHalf(t *testing.T, p string) {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, fi.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// segments lists the bleve index's segment files.
func segments(t *testing.T, dir string) []string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, "bleve", "store", "*.zap"))
	if len(m) == 0 {
		t.Fatal("the word index has no segment files")
	}
	return m
}

// verifies that damaged index files found at open (a truncated FAISS file, a garbled
// vector sidecar, a deleted or truncated bleve segment, a missing or garbled threshold
// file) do not stop Carrel: each index is rebuilt from SQLite (vectors embedded again),
// the status says what was repaired, search works at once, and the library ends
// consistent with every passage embedded.
func TestDamagedIndexes(t *testing.T) {
	srv := testollama.Start(t)
	src, walden := template(t, srv.Host)
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string)
		notice string // "" when nothing needs saying
	}{
		{"truncated FAISS file", func(t *testing.T, dir string) { truncateHalf(t, filepath.Join(dir, "vectors", "vectors.faiss")) }, "vector index"},
		{"garbled vector sidecar", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "vectors", "vectors.json"), []byte("{\"model\": "), 0o644)
		}, "vector index"},
		{"truncated answer cache index", func(t *testing.T, dir string) {
			p := filepath.Join(dir, cache.Dir, "vectors.faiss")
			if _, err := os.Stat(p); err != nil {
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte("IxM2"), 0o644)
				return
			}
			truncateHalf(t, p)
		}, "answer cache"},
		{"deleted bleve segment", func(t *testing.T, dir string) { os.Remove(segments(t, dir)[0]) }, "word index"},
		{"truncated bleve segment", func(t *testing.T, dir string) { truncateHalf(t, segments(t, dir)[0]) }, "word index"},
		{"bleve root file garbled", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "bleve", "store", "root.bolt"), bytes.Repeat([]byte{0xAB}, 4096), 0o644)
		}, "word index"},
		{"missing threshold file", func(t *testing.T, dir string) {
			if err := os.Remove(filepath.Join(dir, "vectors", "threshold.json")); err != nil {
				t.Fatal(err)
			}
		}, "relevance threshold"},
		{"garbled threshold file", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "vectors", "threshold.json"), []byte("{\"threshold\": 0.9"), 0o644)
		}, "relevance threshold"},
		// Undamaged: opening says nothing (the notices are not said for nothing).
		{"nothing damaged", func(t *testing.T, dir string) {}, ""},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "lib")
			copyTree(t, src, dir)
			c.damage(t, dir)
			cfg := config(dir, srv.Host)
			eng, err := engine.Open(cfg)
			if err != nil {
				t.Fatalf("open with a %s: %v", c.name, err)
			}
			defer eng.Close()
			st := eng.Status(ctx)
			notices := strings.Join(st.Notices, " ")
			if c.notice != "" && !strings.Contains(notices, c.notice) {
				t.Fatalf("status notices after a %s: %q, want one about the %s", c.name, st.Notices, c.notice)
			}
			if c.notice == "" && len(st.Notices) > 0 {
				t.Fatalf("status notices after a %s: %q, want none", c.name, st.Notices)
			}
			t.Logf("notices: %q", st.Notices)
			hits, err := eng.Search(ctx, "woods", engine.SearchOptions{Mode: "lexical"})
			if err != nil || len(hits) == 0 || hits[0].DocID != walden {
				t.Fatalf("search after a %s: %+v %v", c.name, hits, err)
			}
			if _, err := eng.Intake().EmbedPending(ctx); err != nil {
				t.Fatal(err)
			}
			if s := eng.MinVectorScore(ctx); s <= 0 || s >= 1 {
				t.Fatalf("threshold after a %s: %v", c.name, s)
			}
			if hits, err := eng.Search(ctx, "woods", engine.SearchOptions{}); err != nil || len(hits) == 0 {
				t.Fatalf("hybrid search after a %s: %d hits, %v", c.name, len(hits), err)
			}
			if _, err := eng.Asking().Ask(ctx, "What did Thoreau plant?", asking.Options{}, nil); err != nil {
				t.Fatalf("ask after a %s: %v", c.name, err)
			}
			eng.Close()
			if st := consistent(t, cfg); st.Pending > 0 || st.Vectors != st.Chunks {
				t.Fatalf("after a %s: %d chunks wait for vectors (%d vectors, %d chunks)", c.name, st.Pending, st.Vectors, st.Chunks)
			}
		})
	}
}

// verifies that a damaged database (garbage over its header, half of it cut off, or
// emptied or deleted beside its indexes) stops the open with an error that names the
// file and says what to do, and that Carrel neither changes the file nor starts a new
// library in its place.
func TestDamagedDatabase(t *testing.T) {
	srv := testollama.Start(t)
	src, _ := template(t, srv.Host)
	cases := []struct {
		name   string
		damage func(t *testing.T, db string)
	}{
		{"garbage header", func(t *testing.T, db string) {
			f, err := os.OpenFile(db, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt(bytes.Repeat([]byte("not a database "), 300), 0)
			f.Close()
		}},
		{"cut in half", func(t *testing.T, db string) { truncateHalf(t, db) }},
		{"garbled pages", func(t *testing.T, db string) {
			fi, _ := os.Stat(db)
			f, err := os.OpenFile(db, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			// Every page after the first few: the schema reads, the data does not.
			for off := int64(4 * 4096); off < fi.Size(); off += 4096 {
				f.WriteAt(bytes.Repeat([]byte{0xEE}, 4096), off)
			}
			f.Close()
		}},
		{"emptied", func(t *testing.T, db string) { os.Truncate(db, 0) }},
		{"deleted", func(t *testing.T, db string) { os.Remove(db) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "lib")
			copyTree(t, src, dir)
			db := filepath.Join(dir, library.DBName)
			c.damage(t, db)
			before := hashTree(t, dir)
			eng, err := engine.Open(config(dir, srv.Host))
			if err == nil {
				eng.Close()
				t.Fatalf("a %s database opened without an error", c.name)
			}
			msg := err.Error()
			t.Logf("error: %s", msg)
			if !strings.Contains(msg, db) || !strings.Contains(msg, "backup") {
				t.Fatalf("error for a %s database: want the file's path and what to do, got %q", c.name, msg)
			}
			if after := hashTree(t, dir); after != before {
				t.Fatalf("opening a %s database changed the library folder", c.name)
			}
		})
	}
}
