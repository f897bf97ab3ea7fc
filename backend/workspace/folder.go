package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
)

// LibraryFolder is where the library lives and what the app can do about it.
type LibraryFolder struct {
	Dir string `json:"dir"`
	// Standard is the folder used when none is chosen.
	Standard string `json:"standard"`
	// Remembered is true when Dir was chosen in the app and opens at the next start.
	Remembered bool `json:"remembered"`
	Documents  int  `json:"documents"`
	// CanChoose is true where a native folder dialog exists (the desktop app); the
	// bridge, which has the dialog or not, sets it.
	CanChoose bool `json:"can_choose"`
}

// Folder describes the library folder in use.
func (w *Workspace) Folder() LibraryFolder {
	dir := w.eng.Config().Dir
	out := LibraryFolder{Dir: dir, Standard: engine.StandardDir()}
	if r := engine.RememberedDir(); r != "" && samePath(r, dir) {
		out.Remembered = true
	}
	if n, err := w.eng.Library().Documents(w.ctx); err == nil {
		out.Documents = len(n)
	}
	return out
}

// SetFolder changes the library folder and remembers the choice for the next start. It
// holds the gate exclusively: the caller must not be inside it.
//
// With move, this library (its database, indexes, sessions and settings; the documents
// themselves stay where they are) moves into dir, which must be empty or not exist yet,
// and the old folder is gone afterwards. Without move, the library in dir is opened, or a
// new empty library is started there when dir is empty or does not exist; this library
// stays where it is. Running answers, ingests and downloads are stopped.
func (w *Workspace) SetFolder(dir string, move bool) error {
	done := w.gate.Switch()
	defer done()
	dir, err := cleanDir(dir)
	if err != nil {
		return err
	}
	cur := w.eng.Config()
	isLib, err := checkTarget(dir, cur.Dir, move)
	if err != nil {
		return err
	}

	// The next library's settings: a moved library or a new one keeps the current ones
	// (models, provider, budget, also those given on the command line); an existing
	// library has its own, with the current Ollama address where it names none.
	next := cur
	next.Dir = dir
	if isLib {
		if next, err = engine.LoadConfig(dir); err != nil {
			return err
		}
		if next.OllamaHost == "" {
			next.OllamaHost = cur.OllamaHost
		}
	}

	var neng *engine.Engine
	if !move {
		// Open first: if it fails, the current library stays open and nothing changed.
		if neng, err = engine.Open(next); err != nil {
			return fmt.Errorf("open the library in %s: %w", dir, err)
		}
	}
	w.halt()
	old := w.eng
	if err := old.Close(); err != nil {
		slog.Warn("closing the library", "err", err)
	}
	if move {
		if neng, err = w.moveLibrary(cur, next); err != nil {
			w.reopen(old.Config(), err)
			return err
		}
	}
	w.eng = neng
	w.owned = neng
	w.Start(w.base)
	remember := dir
	if samePath(dir, engine.StandardDir()) {
		remember = ""
	}
	if err := engine.RememberDir(remember); err != nil {
		slog.Warn("remembering the library folder", "err", err)
	}
	return nil
}

// checkTarget refuses a folder the library cannot be switched to, with the reason, and
// tells whether it holds a library.
func checkTarget(dir, cur string, move bool) (isLib bool, err error) {
	if samePath(dir, cur) {
		return false, fmt.Errorf("%s is already the library folder", dir)
	}
	isLib, empty, err := inspectDir(dir)
	if err != nil {
		return false, err
	}
	if move && !empty {
		return false, fmt.Errorf("%s is not empty: move the library into an empty or new folder", dir)
	}
	if move && (within(dir, cur) || within(cur, dir)) {
		return false, fmt.Errorf("cannot move the library into itself or into a folder that contains it (%s)", dir)
	}
	if !move && !isLib && !empty {
		return false, fmt.Errorf("%s is not a Carrel library (it has no %s) and is not empty: choose a library folder, or an empty folder to start a new library in", dir, library.DBName)
	}
	return isLib, checkWritable(dir)
}

// moveLibrary moves the closed library of cur to next.Dir and opens it there; when that
// fails it is put back where it was.
func (w *Workspace) moveLibrary(cur, next engine.Config) (*engine.Engine, error) {
	dir := next.Dir
	if err := moveDir(cur.Dir, dir); err != nil {
		return nil, fmt.Errorf("move the library to %s: %w", dir, err)
	}
	neng, err := engine.Open(next)
	if err != nil {
		// Put it back where it was rather than leave the app without a library.
		if berr := moveDir(dir, cur.Dir); berr != nil {
			err = errors.Join(err, fmt.Errorf("and moving it back failed: %w", berr))
		}
		return nil, fmt.Errorf("open the moved library in %s: %w", dir, err)
	}
	// Files uploaded into the library's inbox moved with it.
	if _, err := neng.Library().Relocate(w.base, cur.Dir, dir); err != nil {
		slog.Warn("relocating uploaded documents", "err", err)
	}
	return neng, nil
}

// reopen opens the library that was closed for a switch that failed, so the app goes on
// as before; if even that fails the app has no library and says so in the log.
func (w *Workspace) reopen(cfg engine.Config, cause error) {
	eng, err := engine.Open(cfg)
	if err != nil {
		slog.Error("reopening the library after a failed switch", "err", err, "cause", cause)
		return
	}
	w.eng = eng
	w.owned = eng
	w.Start(w.base)
}

// cleanDir makes a typed folder absolute; ~ stands for the home folder.
func cleanDir(dir string) (string, error) {
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return "", errors.New("name a folder for the library")
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the home folder: %w", err)
		}
		dir = filepath.Join(home, strings.TrimPrefix(dir, "~"))
	}
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%q is not a full path: give the folder's whole path, such as /home/you/Carrel", dir)
	}
	return filepath.Clean(dir), nil
}

// inspectDir tells whether dir holds a library, or is empty (a missing folder is empty).
func inspectDir(dir string) (isLib, empty bool, err error) {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, true, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("cannot read %s: %w", dir, err)
	}
	if !st.IsDir() {
		return false, false, fmt.Errorf("%s is a file, not a folder", dir)
	}
	if _, err := os.Stat(filepath.Join(dir, library.DBName)); err == nil {
		return true, false, nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return false, false, fmt.Errorf("cannot read %s: %w", dir, err)
	}
	defer f.Close()
	_, err = f.Readdirnames(1)
	return false, errors.Is(err, io.EOF), nil
}

// checkWritable proves a file can be made in dir, or in its nearest existing parent.
func checkWritable(dir string) error {
	probe := dir
	for {
		if _, err := os.Stat(probe); err == nil {
			break
		}
		parent := filepath.Dir(probe)
		if parent == probe {
			break
		}
		probe = parent
	}
	f, err := os.CreateTemp(probe, ".carrel-write-test-*")
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return fmt.Errorf("cannot write in %s: permission denied; choose a folder you own", probe)
		}
		return fmt.Errorf("cannot write in %s: %w", probe, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// moveDir moves a folder: a rename on the same disk, else a copy and then a removal.
func moveDir(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	os.Remove(to) // an empty target folder; rename needs it gone
	err := os.Rename(from, to)
	if err == nil || !crossDevice(err) {
		return err
	}
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		os.RemoveAll(to)
		return fmt.Errorf("copy: %w", err)
	}
	return os.RemoveAll(from)
}

func samePath(a, b string) bool {
	return filepath.Clean(a) == filepath.Clean(b)
}

// within reports whether path is dir or inside it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
