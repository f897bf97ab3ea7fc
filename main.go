// Carrel: a desktop study desk for your own documents. With a command it runs headless
// (see package cli); without one it opens the window.
package main

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/carrel-app/carrel/app"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/cli"
)

//go:embed all:frontend/dist
var dist embed.FS

func main() {
	attachConsole()
	assets, _ := fs.Sub(dist, "frontend/dist")
	cfg, code, err := cli.Run(os.Args[1:], cli.Env{Stdout: os.Stdout, Stderr: os.Stderr, Assets: assets})
	if errors.Is(err, cli.ErrNoCommand) {
		code, err = 0, desktop(cfg, assets)
		if err != nil {
			code = 1
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "carrel:", err)
	}
	os.Exit(code)
}

func desktop(cfg engine.Config, assets fs.FS) error {
	eng, err := engine.Open(cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	return app.RunDesktop(eng, assets)
}
