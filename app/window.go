package app

import (
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
)

// windowState is the main window's size, kept between runs.
type windowState struct {
	Width     int  `json:"width"`
	Height    int  `json:"height"`
	Maximised bool `json:"maximised"`
}

// windowFile is where the window's size is kept: beside the user's settings, not in a
// library (one window, many possible libraries).
func windowFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "Carrel", "window.json")
}

// loadWindow reads the saved size, or returns def when there is none or it is unusable.
func loadWindow(path string, def windowState, minW, minH int) windowState {
	if path == "" {
		return def
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return def
	}
	var w windowState
	if err := json.Unmarshal(b, &w); err != nil {
		slog.Warn("window: the saved size is unreadable; opening at the default size", "file", path, "err", err)
		return def
	}
	if w.Width < minW || w.Height < minH || w.Width > 16384 || w.Height > 16384 {
		return def
	}
	return w
}

func saveWindow(path string, w windowState) error {
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, _ := json.Marshal(w)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
