// Package logfile keeps the desktop app's log in a file in the OS's log folder: started
// from a menu or a file manager, Carrel has no terminal, and whatever it wrote to stderr
// would be lost.
package logfile

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"

	"gopkg.in/natefinch/lumberjack.v2"
)

// Name is the current log file's name in Dir; rotated ones are kept beside it as
// carrel-TIMESTAMP.log.
const Name = "carrel.log"

// The log is rotated at MaxMB and the last Keep rotated files are kept: a few days of
// a busy library's ingest warnings, a few megabytes at most on the user's disk.
const (
	MaxMB = 5
	Keep  = 3
)

// Dir is the folder the log goes to: $XDG_STATE_HOME/carrel (else ~/.local/state/carrel)
// on Linux and the BSDs, ~/Library/Logs/Carrel on macOS, %LOCALAPPDATA%\Carrel\logs on
// Windows.
func Dir() (string, error) {
	switch runtime.GOOS {
	case "darwin":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("log folder: %w", err)
		}
		return filepath.Join(home, "Library", "Logs", "Carrel"), nil
	case "windows":
		base := os.Getenv("LOCALAPPDATA")
		if base == "" {
			return "", errors.New("log folder: %LOCALAPPDATA% is not set")
		}
		return filepath.Join(base, "Carrel", "logs"), nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "carrel"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("log folder: %w", err)
	}
	return filepath.Join(home, ".local", "state", "carrel"), nil
}

// Open opens (creating it and its folder) the rotated log file in dir.
func Open(dir string) (io.WriteCloser, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("log folder %s: %w", dir, err)
	}
	l := &lumberjack.Logger{
		Filename:   filepath.Join(dir, Name),
		MaxSize:    MaxMB,
		MaxBackups: Keep,
		LocalTime:  true,
	}
	// lumberjack opens lazily; open now, so that an unwritable folder is known at start.
	if _, err := l.Write(nil); err != nil {
		return nil, fmt.Errorf("log file in %s: %w", dir, err)
	}
	return l, nil
}

// Setup sends slog's default logger (and the standard log package, which slog routes
// through it) to the log file in Dir as well as to stderr. It returns the folder and a
// function that closes the file; on failure the log stays on stderr alone.
func Setup(stderr io.Writer) (dir string, closeFn func(), err error) {
	dir, err = Dir()
	if err != nil {
		return "", func() {}, err
	}
	f, err := Open(dir)
	if err != nil {
		return dir, func() {}, err
	}
	// The file first: a closed stderr (no terminal) must not stop the write.
	h := slog.NewTextHandler(io.MultiWriter(f, stderr), &slog.HandlerOptions{Level: slog.LevelInfo})
	slog.SetDefault(slog.New(h))
	return dir, func() { f.Close() }, nil
}
