package app

import "github.com/carrel-app/carrel/backend/workspace"

// WatchedFolder is a folder Carrel keeps the library in step with.
type WatchedFolder = workspace.WatchedFolder

// WatchFolder starts watching a folder: its files are ingested now, and files added,
// changed or deleted later are ingested or removed. The choice is kept in the library
// folder and resumed at the next start.
func (a *App) WatchFolder(dir string) (WatchedFolder, error) {
	defer a.ws.Enter()()
	return a.ws.Watch(dir)
}

// UnwatchFolder stops watching a folder and returns once its watch has ended, so no file
// changed afterwards is taken in. Its documents stay in the library.
func (a *App) UnwatchFolder(dir string) error {
	defer a.ws.Enter()()
	return a.ws.Unwatch(dir)
}

// ListWatched lists the watched folders and whether each is being watched.
func (a *App) ListWatched() ([]WatchedFolder, error) {
	defer a.ws.Enter()()
	return a.ws.Watched()
}
