package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/carrel-app/carrel/backend/chunk"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/ingest"
	"github.com/carrel-app/carrel/backend/library"
)

// ---- chunking -------------------------------------------------------------------------

// ChunkField describes one numeric field of a chunking profile (chunk.Options), so the
// settings panel can show every field, including ones added later, without knowing them.
type ChunkField struct {
	Name    string  `json:"name"`
	Integer bool    `json:"integer"`
	Min     float64 `json:"min"`
	Max     float64 `json:"max"`
}

// ChunkSettings is the chunking section of the settings: the document types, each
// type's sizes in force, and the built-in defaults.
type ChunkSettings struct {
	DocTypes []string                      `json:"doc_types"`
	Profiles map[string]map[string]float64 `json:"profiles"`
	Defaults map[string]map[string]float64 `json:"defaults"`
	Fields   []ChunkField                  `json:"fields"`
	// Error says why the library's chunking.json was not used (the defaults are then in force).
	Error string `json:"error"`
}

// chunkFields lists the numeric fields of chunk.Options by their JSON names. Integer
// fields are sizes in characters; fractional ones (overlap) are shares of a chunk.
func chunkFields() []ChunkField {
	var out []ChunkField
	t := reflect.TypeFor[chunk.Options]()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			out = append(out, ChunkField{Name: name, Integer: true, Min: 1, Max: 100_000})
		case reflect.Float32, reflect.Float64:
			// chunk.Options clamps overlaps to half a chunk; 0 means "the default" in
			// chunking.json, so the smallest share that can be set is 0.01.
			out = append(out, ChunkField{Name: name, Min: 0.01, Max: 0.5})
		}
	}
	return out
}

// numbers turns a chunk.Options into its numeric fields by JSON name.
func numbers(o chunk.Options, fields []ChunkField) map[string]float64 {
	b, _ := json.Marshal(o)
	var all map[string]any
	json.Unmarshal(b, &all)
	out := map[string]float64{}
	for _, f := range fields {
		if v, ok := all[f.Name].(float64); ok {
			out[f.Name] = v
		}
	}
	return out
}

func (a *App) chunkingPath() string {
	return filepath.Join(a.eng.Config().Dir, chunk.ProfilesFile)
}

// ChunkSettings returns the chunk sizes per document type, as read from the library's
// chunking.json over the defaults.
func (a *App) ChunkSettings() ChunkSettings {
	defer a.gate.Enter()()
	return a.chunkSettings()
}

func (a *App) chunkSettings() ChunkSettings {
	fields := chunkFields()
	out := ChunkSettings{DocTypes: slices.Clone(ingest.DocTypes), Fields: fields,
		Profiles: map[string]map[string]float64{}, Defaults: map[string]map[string]float64{}}
	cur, err := chunk.LoadProfiles(a.chunkingPath())
	if err != nil {
		out.Error = err.Error()
	}
	def := chunk.DefaultProfiles()
	for _, t := range out.DocTypes {
		out.Profiles[t] = numbers(cur.For(t), fields)
		out.Defaults[t] = numbers(def.For(t), fields)
	}
	return out
}

// SetChunkSettings saves chunk sizes per document type in the library's chunking.json
// (only what differs from the defaults; all defaults remove the file) and returns them
// as now in force. They apply to documents added afterwards. A bad value is an error
// naming it as "type.field: what is wrong", one per line.
func (a *App) SetChunkSettings(profiles map[string]map[string]float64) (ChunkSettings, error) {
	defer a.gate.Enter()()
	fields := chunkFields()
	def := chunk.DefaultProfiles()
	if err := validateChunking(profiles, fields); err != nil {
		return ChunkSettings{}, err
	}
	file := map[string]map[string]any{}
	for _, t := range ingest.DocTypes {
		p, ok := profiles[t]
		if !ok {
			continue
		}
		d := numbers(def.For(t), fields)
		for _, f := range fields {
			v, ok := p[f.Name]
			if !ok || v == d[f.Name] {
				continue
			}
			if file[t] == nil {
				file[t] = map[string]any{}
			}
			if f.Integer {
				file[t][f.Name] = int64(v)
			} else {
				file[t][f.Name] = v
			}
		}
	}
	path := a.chunkingPath()
	if len(file) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return ChunkSettings{}, fmt.Errorf("reset chunk sizes: %w", err)
		}
		return a.chunkSettings(), nil
	}
	b, _ := json.MarshalIndent(file, "", "  ")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return ChunkSettings{}, fmt.Errorf("save chunk sizes: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return ChunkSettings{}, fmt.Errorf("save chunk sizes: %w", err)
	}
	return a.chunkSettings(), nil
}

// Rechunked says how many documents RechunkLibrary cut again.
type Rechunked struct {
	Documents int `json:"documents"`
}

// RechunkLibrary cuts every ready document again with the chunk sizes now in force, from
// the text already extracted (files are not read again), and embeds the new passages in
// the background. Each document is sent again as library:changed.
func (a *App) RechunkLibrary() (Rechunked, error) {
	defer a.gate.Enter()()
	ids, err := a.eng.Rechunk(a.ctx)
	if err != nil {
		return Rechunked{}, fmt.Errorf("re-chunk the library: %w", err)
	}
	for _, id := range ids {
		if d, err := a.eng.Library().Document(a.ctx, id); err == nil {
			a.emit.Emit(EventLibraryChanged, a.toDocument(d))
		}
	}
	a.emit.Emit(EventStatusChanged, a.status())
	if len(ids) > 0 {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			if _, err := a.eng.EmbedPending(a.ctx); err != nil {
				slog.Warn("embedding re-chunked passages", "err", err)
			}
		}()
	}
	return Rechunked{Documents: len(ids)}, nil
}

// validateChunking checks every value: a known type and field, a number in range, whole
// where it counts characters, and for each family of sizes (target, min, max, or
// child_target, child_min, child_max…) min ≤ target ≤ max.
func validateChunking(profiles map[string]map[string]float64, fields []ChunkField) error {
	byName := map[string]ChunkField{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	var errs []string
	types := make([]string, 0, len(profiles))
	for t := range profiles {
		types = append(types, t)
	}
	slices.Sort(types)
	for _, t := range types {
		p := profiles[t]
		if !slices.Contains(ingest.DocTypes, t) {
			errs = append(errs, fmt.Sprintf("%s: not a document type (one of %s)", t, strings.Join(ingest.DocTypes, ", ")))
			continue
		}
		names := make([]string, 0, len(p))
		for n := range p {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			v := p[n]
			f, ok := byName[n]
			switch {
			case !ok:
				errs = append(errs, fmt.Sprintf("%s.%s: not a chunking setting", t, n))
			case math.IsNaN(v) || math.IsInf(v, 0):
				errs = append(errs, fmt.Sprintf("%s.%s: must be a number", t, n))
			case f.Integer && v != math.Trunc(v):
				errs = append(errs, fmt.Sprintf("%s.%s: must be a whole number of characters", t, n))
			case v < f.Min || v > f.Max:
				errs = append(errs, fmt.Sprintf("%s.%s: must be between %g and %g", t, n, f.Min, f.Max))
			}
		}
		for _, n := range names {
			prefix, ok := strings.CutSuffix(n, "target")
			if !ok {
				continue
			}
			target := p[n]
			if lo, ok := p[prefix+"min"]; ok && lo > target {
				errs = append(errs, fmt.Sprintf("%s.%smin: must be at most the %starget (%g)", t, prefix, strings.ReplaceAll(prefix, "_", " "), target))
			}
			if hi, ok := p[prefix+"max"]; ok && hi < target {
				errs = append(errs, fmt.Sprintf("%s.%smax: must be at least the %starget (%g)", t, prefix, strings.ReplaceAll(prefix, "_", " "), target))
			}
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "\n"))
	}
	return nil
}

// ---- the library folder ---------------------------------------------------------------

// LibraryFolder is where the library lives and what the app can do about it.
type LibraryFolder struct {
	Dir string `json:"dir"`
	// Standard is the folder used when none is chosen.
	Standard string `json:"standard"`
	// Remembered is true when Dir was chosen in the app and opens at the next start.
	Remembered bool `json:"remembered"`
	Documents  int  `json:"documents"`
	// CanChoose is true where a native folder dialog exists (the desktop app).
	CanChoose bool `json:"can_choose"`
}

// LibraryFolderInfo describes the library folder in use.
func (a *App) LibraryFolderInfo() LibraryFolder {
	defer a.gate.Enter()()
	return a.libraryFolderInfo()
}

func (a *App) libraryFolderInfo() LibraryFolder {
	dir := a.eng.Config().Dir
	out := LibraryFolder{Dir: dir, Standard: engine.StandardDir(), CanChoose: a.dirDialog != nil}
	if r := engine.RememberedDir(); r != "" && samePath(r, dir) {
		out.Remembered = true
	}
	if n, err := a.eng.Library().Documents(a.ctx); err == nil {
		out.Documents = len(n)
	}
	return out
}

// ChooseLibraryFolder shows the system's folder dialog and returns the chosen folder, or
// "" when the user cancelled. It changes nothing: SetLibraryFolder does.
func (a *App) ChooseLibraryFolder() (string, error) {
	defer a.gate.Enter()()
	if a.dirDialog == nil {
		return "", errors.New("no folder dialog here: type the folder's path")
	}
	return a.dirDialog(filepath.Dir(a.eng.Config().Dir))
}

// SetLibraryFolder changes the library folder without restarting the app, and remembers
// the choice for the next start.
//
// With move, this library (its database, indexes, sessions and settings; the documents
// themselves stay where they are) moves into dir, which must be empty or not exist yet,
// and the old folder is gone afterwards. Without move, the library in dir is opened, or a
// new empty library is started there when dir is empty or does not exist; this library
// stays where it is. Running answers, ingests and downloads are stopped.
func (a *App) SetLibraryFolder(dir string, move bool) (LibraryFolder, error) {
	if err := a.switchLibrary(dir, move); err != nil {
		return LibraryFolder{}, err
	}
	defer a.gate.Enter()()
	info := a.libraryFolderInfo()
	a.emit.Emit(EventLibrarySwitched, info)
	a.emit.Emit(EventStatusChanged, a.status())
	return info, nil
}

// switchLibrary does SetLibraryFolder's work holding the gate exclusively: no call is
// inside while one engine is closed and the next opened.
func (a *App) switchLibrary(dir string, move bool) error {
	done := a.gate.Switch()
	defer done()
	dir, err := cleanDir(dir)
	if err != nil {
		return err
	}
	cur := a.eng.Config()
	if samePath(dir, cur.Dir) {
		return fmt.Errorf("%s is already the library folder", dir)
	}
	isLib, empty, err := inspectDir(dir)
	if err != nil {
		return err
	}
	if move && !empty {
		return fmt.Errorf("%s is not empty: move the library into an empty or new folder", dir)
	}
	if move && (within(dir, cur.Dir) || within(cur.Dir, dir)) {
		return fmt.Errorf("cannot move the library into itself or into a folder that contains it (%s)", dir)
	}
	if !move && !isLib && !empty {
		return fmt.Errorf("%s is not a Carrel library (it has no %s) and is not empty: choose a library folder, or an empty folder to start a new library in", dir, library.DBName)
	}
	if err := checkWritable(dir); err != nil {
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
	a.halt()
	old := a.eng
	if err := old.Close(); err != nil {
		slog.Warn("closing the library", "err", err)
	}
	if move {
		if err := moveDir(cur.Dir, dir); err != nil {
			a.reopen(old.Config(), err)
			return fmt.Errorf("move the library to %s: %w", dir, err)
		}
		if neng, err = engine.Open(next); err != nil {
			// Put it back where it was rather than leave the app without a library.
			if berr := moveDir(dir, cur.Dir); berr != nil {
				err = errors.Join(err, fmt.Errorf("and moving it back failed: %w", berr))
			}
			a.reopen(old.Config(), err)
			return fmt.Errorf("open the moved library in %s: %w", dir, err)
		}
		// Files uploaded into the library's inbox moved with it.
		if _, err := neng.Library().Relocate(a.base, cur.Dir, dir); err != nil {
			slog.Warn("relocating uploaded documents", "err", err)
		}
	}
	a.eng = neng
	a.owned = neng
	a.start(a.base)
	remember := dir
	if samePath(dir, engine.StandardDir()) {
		remember = ""
	}
	if err := engine.RememberDir(remember); err != nil {
		slog.Warn("remembering the library folder", "err", err)
	}
	return nil
}

// reopen opens the library that was closed for a switch that failed, so the app goes on
// as before; if even that fails the app has no library and says so in the log.
func (a *App) reopen(cfg engine.Config, cause error) {
	eng, err := engine.Open(cfg)
	if err != nil {
		slog.Error("reopening the library after a failed switch", "err", err, "cause", cause)
		return
	}
	a.eng = eng
	a.owned = eng
	a.start(a.base)
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
