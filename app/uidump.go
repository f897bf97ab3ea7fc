package app

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/carrel-app/carrel/backend/envconfig"
)

// UIDump is bound to the desktop window only when CARREL_UI_DUMP is set: the window test
// checks exact texts there instead of trusting OCR with whatever fonts the machine has.
// The frontend finds window.go.app.UIDump then. It is not part of App, so neither bridge
// carries it.
type UIDump struct{ path string }

// newUIDump returns the dump named by the environment, or nil.
func newUIDump() *UIDump {
	if p := envconfig.UIDump(); p != "" {
		return &UIDump{path: p}
	}
	return nil
}

// Write replaces the dump with the window's visible text. The file is written beside
// and renamed, so a reader never sees half of it.
func (d *UIDump) Write(text string) error {
	tmp, err := os.CreateTemp(filepath.Dir(d.path), ".uidump-*")
	if err != nil {
		return fmt.Errorf("ui dump: %w", err)
	}
	if _, err := tmp.WriteString(text); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("ui dump: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("ui dump: %w", err)
	}
	if err := os.Rename(tmp.Name(), d.path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("ui dump: %w", err)
	}
	return nil
}
