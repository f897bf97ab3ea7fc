package app

import (
	"context"
	"io/fs"
	"log/slog"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// wailsEmitter sends events through the Wails runtime.
type wailsEmitter struct{ ctx *context.Context }

func (w wailsEmitter) Emit(name Event, data any) {
	if *w.ctx != nil {
		runtime.EventsEmit(*w.ctx, string(name), data)
	}
}

// RunDesktop opens the native window and blocks until it is closed.
func RunDesktop(eng *engine.Engine, assets fs.FS) error {
	var wctx context.Context
	a := New(eng, wailsEmitter{&wctx})
	a.openDialog = func() ([]string, error) {
		return runtime.OpenMultipleFilesDialog(wctx, runtime.OpenDialogOptions{
			Title: "Add documents",
			Filters: []runtime.FileFilter{
				{DisplayName: "Documents (*.pdf, *.txt, *.md)", Pattern: "*.pdf;*.txt;*.md;*.markdown"},
			},
		})
	}
	a.dirDialog = func(start string) (string, error) {
		return runtime.OpenDirectoryDialog(wctx, runtime.OpenDialogOptions{
			Title:                "Library folder",
			DefaultDirectory:     start,
			CanCreateDirectories: true,
		})
	}
	// The window opens at the size it was closed at (window.go).
	winFile := windowFile()
	win := loadWindow(winFile, windowState{Width: 1280, Height: 820}, 900, 560)
	bind := []any{a}
	if d := newUIDump(); d != nil {
		bind = append(bind, d)
	}
	startState := options.Normal
	if win.Maximised {
		startState = options.Maximised
	}
	return wails.Run(&options.App{
		Title:            "Carrel",
		Width:            win.Width,
		Height:           win.Height,
		MinWidth:         900,
		MinHeight:        560,
		WindowStartState: startState,
		BackgroundColour: &options.RGBA{R: 250, G: 249, B: 246, A: 255},
		AssetServer: &assetserver.Options{
			Assets:  assets,
			Handler: a.FilesHandler(),
		},
		// DisableWebViewDrop must stay false: on Linux (Wails 2.9.2) true removes the webview
		// as a drop target and OnFileDrop never fires; the frontend stops navigation itself.
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		OnStartup: func(ctx context.Context) {
			wctx = ctx
			a.start(ctx)
		},
		OnBeforeClose: func(ctx context.Context) bool {
			w := windowState{Maximised: runtime.WindowIsMaximised(ctx)}
			if w.Maximised {
				w.Width, w.Height = win.Width, win.Height // keep the size to restore to
			} else {
				w.Width, w.Height = runtime.WindowGetSize(ctx)
			}
			if err := saveWindow(winFile, w); err != nil {
				slog.Warn("saving the window size", "err", err)
			}
			return false
		},
		OnShutdown: func(context.Context) { a.stop() },
		Bind:       bind,
	})
}
