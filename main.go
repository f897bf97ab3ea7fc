// Carrel: a desktop study desk for your own documents. With a command it runs headless
// (see package cli); without one, or with files to open, it opens the window.
package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/carrel-app/carrel/app"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/backend/logfile"
	"github.com/carrel-app/carrel/cli"
)

//go:embed all:frontend/dist
var dist embed.FS

// version is set at build time (-ldflags "-X main.version=…", Taskfile.yml).
var version = "dev"

func main() {
	// Before anything starts a goroutine or a child: no child inherits the API keys.
	envconfig.HoldKeys()
	attachConsole()
	assets, _ := fs.Sub(dist, "frontend/dist")
	cfg, code, err := cli.Run(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Assets: assets, Version: version})
	if errors.Is(err, cli.ErrNoCommand) {
		var files []string
		if of := (*cli.OpenFiles)(nil); errors.As(err, &of) {
			files = of.Paths
		}
		code, err = 0, desktop(cfg, assets, files)
		if err != nil {
			code = 1
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "carrel:", err)
	}
	os.Exit(code)
}

func desktop(cfg engine.Config, assets fs.FS, files []string) error {
	if app.HandOver(files) {
		return nil // a window is open: it took the files
	}
	logDir, closeLog, err := logfile.Setup(os.Stderr)
	if err != nil {
		slog.Warn("no log file: logging to stderr only", "err", err)
		logDir = ""
	}
	defer closeLog()
	slog.Info("Carrel starting", "version", version, "pid", os.Getpid(), "library", cfg.Dir, "files", files)
	err = app.RunDesktop(app.Desktop{
		Open:      func() (*engine.Engine, error) { return engine.Open(cfg) },
		Assets:    assets,
		Files:     files,
		FilesFrom: cli.FilesFrom,
		LogDir:    logDir,
	})
	slog.Info("Carrel closed", "err", err)
	return err
}
