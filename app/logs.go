package app

import (
	"errors"
	"fmt"
	"os"
)

// OpenLogFolder shows the folder of Carrel's log file in the system's file manager and
// returns its path. Where nothing can be shown (the browser) it only returns the path.
func (a *App) OpenLogFolder() (string, error) {
	defer a.ws.Enter()()
	if a.logDir == "" {
		return "", errors.New("this Carrel writes its log to the terminal it was started from, not to a file")
	}
	if err := os.MkdirAll(a.logDir, 0o755); err != nil {
		return "", fmt.Errorf("log folder: %w", err)
	}
	if a.openFolder != nil {
		if err := a.openFolder(a.logDir); err != nil {
			return a.logDir, fmt.Errorf("show the log folder %s: %w", a.logDir, err)
		}
	}
	return a.logDir, nil
}
