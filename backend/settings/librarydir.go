package settings

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
)

// The library folder the user chose in the app is kept beside the user's settings, not in
// a library (it says which library to open), so that the next start, the desktop app and
// the CLI alike, opens it.
const rememberedFile = "library.json"

func rememberedPath() string {
	base, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "Carrel", rememberedFile)
}

// RememberedDir is the library folder chosen in the app, or "" when none was (or the
// record is unreadable).
func RememberedDir() string {
	p := rememberedPath()
	if p == "" {
		return ""
	}
	b, err := os.ReadFile(p)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			slog.Warn("the library folder chosen in the app cannot be read; opening the default one", "file", p, "err", err)
		}
		return ""
	}
	var r struct {
		Dir string `json:"dir"`
	}
	if err := json.Unmarshal(b, &r); err != nil || !filepath.IsAbs(r.Dir) {
		// Said out loud: the user would otherwise find an empty library and think theirs lost.
		slog.Warn("the library folder chosen in the app is recorded unreadably; opening the default one", "file", p, "err", err, "dir", r.Dir)
		return ""
	}
	return r.Dir
}

// RememberDir records dir as the library folder to open from now on; "" forgets the
// choice (the default folder is used again).
func RememberDir(dir string) error {
	p := rememberedPath()
	if p == "" {
		return errors.New("remember the library folder: this system has no user settings folder")
	}
	if dir == "" {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("forget the library folder: %w", err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("remember the library folder: %w", err)
	}
	b, _ := json.Marshal(map[string]string{"dir": dir})
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("remember the library folder: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return fmt.Errorf("remember the library folder: %w", err)
	}
	return nil
}

// StandardDir is the library folder when none is given, chosen or set in
// $CARREL_LIBRARY: Carrel's folder in the user's settings directory.
func StandardDir() string {
	base, err := os.UserConfigDir()
	if err != nil {
		base = os.TempDir()
	}
	return filepath.Join(base, "Carrel", "library")
}
