package app

import (
	"context"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/logger"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/options/mac"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// SingleInstanceID names the running window to a second launch (Wails' single-instance
// lock; on Linux also handOver's D-Bus name).
const SingleInstanceID = "org.carrel.Carrel"

// Desktop is what the window is started with.
type Desktop struct {
	// Open opens the library. It runs once the window's single-instance check has
	// passed, so that a second launch never opens (and recovers) the library the first
	// one is using; calls from the frontend wait for it.
	Open   func() (*engine.Engine, error)
	Assets fs.FS
	// Files are added and opened once the window is ready (carrel FILE...).
	Files []string
	// FilesFrom picks the files out of a second launch's arguments, relative to its
	// working folder (the command line's flags are the cli package's).
	FilesFrom func(args []string, wd string) []string
	// LogDir is the log file's folder ("" when the log goes to the terminal only).
	LogDir string
}

// wailsEmitter sends events through the Wails runtime.
type wailsEmitter struct{ ctx *context.Context }

func (w wailsEmitter) Emit(name Event, data any) {
	if *w.ctx != nil {
		runtime.EventsEmit(*w.ctx, string(name), data)
	}
}

// RunDesktop opens the native window and blocks until it is closed.
func RunDesktop(d Desktop) error {
	var wctx context.Context
	a := New(nil, wailsEmitter{&wctx})
	a.logDir = d.LogDir
	a.openFolder = func(dir string) error {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(dir)}
		if u.Path[0] != '/' {
			u.Path = "/" + u.Path // C:/… on Windows
		}
		runtime.BrowserOpenURL(wctx, u.String())
		return nil
	}
	// The frontend's calls wait at the gate until the library is open (OnDomReady).
	open := a.ws.OpenLater()
	var opened sync.Once
	a.openFiles(d.Files)
	a.useNativeDialogs(&wctx)
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
			Assets:  d.Assets,
			Handler: a.FilesHandler(),
		},
		// DisableWebViewDrop must stay false: on Linux (Wails 2.9.2) true removes the webview
		// as a drop target and OnFileDrop never fires; the frontend stops navigation itself.
		DragAndDrop: &options.DragAndDrop{EnableFileDrop: true},
		OnStartup:   func(ctx context.Context) { wctx = ctx },
		// The library is opened once the page has loaded, not beside the window's creation
		// (OnStartup): there its open took CPU from GTK and WebKit starting up, on the way to
		// the first drawn window, while the page's first calls wait at the gate anyway. The
		// single-instance check has passed by then on every platform. Not on Wails' message
		// goroutine, which carries the page's calls; once, though a reload loads it again.
		OnDomReady: a.openOnDomReady(d, open, &opened),
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: SingleInstanceID,
			OnSecondInstanceLaunch: func(s options.SecondInstanceData) {
				files := d.FilesFrom(s.Args, s.WorkingDirectory)
				slog.Info("a second launch handed over its files", "args", s.Args, "files", files)
				runtime.WindowUnminimise(wctx)
				runtime.WindowShow(wctx)
				a.openFiles(files)
			},
		},
		// macOS gives files opened from Finder (or dropped on the Dock icon) as events.
		Mac: &mac.Options{OnFileOpen: func(path string) { a.openFiles([]string{path}) }},
		// The window's WM_CLASS matches the desktop entry (carrel.desktop), so that docks
		// and panels show its icon and group it under the launcher. The GPU policy must be
		// set with it: a zero Options means "always", whose GL compositing cost the web
		// process 90 MB more here (nil Options means "never", Wails issue 2977).
		Linux:              &linux.Options{ProgramName: "carrel", WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
		Logger:             wailsLogger{},
		LogLevel:           logger.INFO,
		LogLevelProduction: logger.WARNING,
		OnBeforeClose:      saveWindowOnClose(winFile, win),
		OnShutdown:         func(context.Context) { a.stop() },
		Bind:               bind,
	})
}

// useNativeDialogs gives the bridge the native file, folder and save pickers, shown on
// the window of *wctx (set once the window starts).
func (a *App) useNativeDialogs(wctx *context.Context) {
	a.openDialog = func() ([]string, error) {
		return runtime.OpenMultipleFilesDialog(*wctx, runtime.OpenDialogOptions{
			Title: "Add documents",
			Filters: []runtime.FileFilter{
				{DisplayName: "Documents (*.pdf, *.txt, *.md)", Pattern: "*.pdf;*.txt;*.md;*.markdown"},
				{DisplayName: "Recordings (*.mp3, *.m4a, *.wav, *.mp4, …)", Pattern: "*.mp3;*.m4a;*.wav;*.ogg;*.flac;*.mp4;*.mkv;*.webm;*.mov"},
			},
		})
	}
	a.dirDialog = func(start string) (string, error) {
		return runtime.OpenDirectoryDialog(*wctx, runtime.OpenDialogOptions{
			Title:                "Library folder",
			DefaultDirectory:     start,
			CanCreateDirectories: true,
		})
	}
	a.saveDialog = func(name, ext string) (string, error) {
		return runtime.SaveFileDialog(*wctx, runtime.SaveDialogOptions{
			Title:           "Export deck",
			DefaultFilename: name,
			Filters:         []runtime.FileFilter{{DisplayName: strings.TrimPrefix(ext, ".") + " files", Pattern: "*" + ext}},
		})
	}
}

// openOnDomReady opens the library once the page has loaded (see RunDesktop), with d.Open
// and then open, the workspace's; a library that cannot be opened is said in a dialog,
// and the app quits.
func (a *App) openOnDomReady(d Desktop, open func(context.Context, *engine.Engine), opened *sync.Once) func(context.Context) {
	return func(ctx context.Context) {
		go func() {
			opened.Do(func() {
				eng, err := d.Open()
				if err != nil {
					slog.Error("opening the library", "err", err)
					runtime.MessageDialog(ctx, runtime.MessageDialogOptions{
						Type: runtime.ErrorDialog, Title: "Carrel cannot open its library",
						Message: fmt.Sprintf("%v\n\nThe log is in %s.", err, d.LogDir),
					})
					runtime.Quit(ctx)
					return // the gate stays shut: no call may reach a library that is not there
				}
				open(ctx, eng)
			})
			a.windowReady()
		}()
	}
}

// saveWindowOnClose keeps the window's size and state in winFile when it closes; a
// maximised window keeps the size it had before (win's) to restore to.
func saveWindowOnClose(winFile string, win windowState) func(context.Context) bool {
	return func(ctx context.Context) bool {
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
	}
}

// wailsLogger sends Wails' own messages to slog, and so to the log file.
type wailsLogger struct{}

func (wailsLogger) Print(m string)   { slog.Info(m, "from", "wails") }
func (wailsLogger) Trace(m string)   { slog.Debug(m, "from", "wails") }
func (wailsLogger) Debug(m string)   { slog.Debug(m, "from", "wails") }
func (wailsLogger) Info(m string)    { slog.Info(m, "from", "wails") }
func (wailsLogger) Warning(m string) { slog.Warn(m, "from", "wails") }
func (wailsLogger) Error(m string)   { slog.Error(m, "from", "wails") }
func (wailsLogger) Fatal(m string)   { slog.Error(m, "from", "wails"); os.Exit(1) }
