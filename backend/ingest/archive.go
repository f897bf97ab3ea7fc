package ingest

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// errUnpackLimit: an archive decompressed past MaxUnpacked.
var errUnpackLimit = errors.New("unpacks to more than the limit")

// archive is a Word or EPUB file's zip container, read within a budget of
// decompressed bytes so that a zip bomb costs no more than MaxUnpacked.
type archive struct {
	path   string
	files  map[string]*zip.File
	folded map[string]*zip.File // by lower-case name, for sloppy references
	budget int64
}

func openArchive(p string, data []byte, what string) (*archive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, newError(ErrCorrupt, p, "it is not a valid "+what+" file (its zip container is broken)", err)
	}
	if len(zr.File) > MaxZipEntries {
		return nil, newError(ErrTooLarge, p, fmt.Sprintf("it holds %d files, and Carrel reads %s files of up to %d", len(zr.File), what, MaxZipEntries), nil)
	}
	a := &archive{path: p, files: map[string]*zip.File{}, folded: map[string]*zip.File{}, budget: MaxUnpacked}
	for _, f := range zr.File {
		name := strings.TrimPrefix(path.Clean("/"+strings.ReplaceAll(f.Name, `\`, "/")), "/")
		a.files[name] = f
		a.folded[strings.ToLower(name)] = f
	}
	return a, nil
}

// lookup finds an entry by its name in the archive, ignoring case if need be.
func (a *archive) lookup(name string) *zip.File {
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	if f := a.files[name]; f != nil {
		return f
	}
	return a.folded[strings.ToLower(name)]
}

// open returns a reader of the entry's decompressed bytes that fails with
// errUnpackLimit once the archive's budget is spent, or nil, nil if there
// is no such entry.
func (a *archive) open(name string) (io.ReadCloser, error) {
	f := a.lookup(name)
	if f == nil {
		return nil, nil
	}
	if int64(f.UncompressedSize64) > a.budget || f.UncompressedSize64 > 1<<62 {
		return nil, a.tooLarge()
	}
	rc, err := f.Open()
	if err != nil {
		return nil, newError(ErrCorrupt, a.path, "an entry of its zip container is broken", err)
	}
	return &budgetReader{rc: rc, a: a}, nil
}

// read returns the whole decompressed entry, or nil, nil if it is missing.
func (a *archive) read(name string) ([]byte, error) {
	rc, err := a.open(name)
	if rc == nil || err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, a.wrap(err)
	}
	return data, nil
}

func (a *archive) tooLarge() error {
	return newError(ErrTooLarge, a.path, "it unpacks to more than "+humanBytes(MaxUnpacked)+" (a zip bomb?)", errUnpackLimit)
}

// wrap turns a read error into the catalogue's kinds.
func (a *archive) wrap(err error) error {
	var ie *Error
	switch {
	case errors.As(err, &ie):
		return err
	case errors.Is(err, errUnpackLimit):
		return a.tooLarge()
	}
	return newError(ErrCorrupt, a.path, "an entry of its zip container is broken", err)
}

type budgetReader struct {
	rc io.ReadCloser
	a  *archive
}

func (r *budgetReader) Read(p []byte) (int, error) {
	if r.a.budget <= 0 {
		return 0, errUnpackLimit
	}
	if int64(len(p)) > r.a.budget {
		p = p[:r.a.budget+1]
	}
	n, err := r.rc.Read(p)
	r.a.budget -= int64(n)
	if r.a.budget < 0 {
		return n, errUnpackLimit
	}
	return n, err
}

func (r *budgetReader) Close() error { return r.rc.Close() }
