package app

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/workspace"
)

// ChunkField describes one numeric field of a chunking profile.
type ChunkField = workspace.ChunkField

// ChunkSettings is the chunking section of the settings.
type ChunkSettings = workspace.ChunkSettings

// ChunkSettings returns the chunk sizes per document type, as read from the library's
// chunking.json over the defaults.
func (a *App) ChunkSettings() ChunkSettings {
	defer a.ws.Enter()()
	return a.ws.ChunkSettings()
}

// SetChunkSettings saves chunk sizes per document type in the library's chunking.json
// (only what differs from the defaults; all defaults remove the file) and returns them
// as now in force. They apply to documents added afterwards. A bad value is an error
// naming it as "type.field: what is wrong", one per line.
func (a *App) SetChunkSettings(profiles map[document.Type]map[string]float64) (ChunkSettings, error) {
	defer a.ws.Enter()()
	return a.ws.SetChunkSettings(profiles)
}

// Rechunked says how many documents RechunkLibrary cut again.
type Rechunked struct {
	Documents int `json:"documents"`
}

// RechunkLibrary cuts every ready document again with the chunk sizes now in force, from
// the text already extracted (files are not read again), and embeds the new passages in
// the background. Each document is sent again as library:changed.
func (a *App) RechunkLibrary() (Rechunked, error) {
	defer a.ws.Enter()()
	ids, err := a.ws.Rechunk()
	if err != nil {
		return Rechunked{}, fmt.Errorf("re-chunk the library: %w", err)
	}
	for _, id := range ids {
		if d, err := a.eng().Library().Document(a.ctx(), id); err == nil {
			a.emitDocument(d)
		}
	}
	a.emitStatus()
	return Rechunked{Documents: len(ids)}, nil
}

// LibraryFolder is where the library lives and what the app can do about it.
type LibraryFolder = workspace.LibraryFolder

// LibraryFolderInfo describes the library folder in use.
func (a *App) LibraryFolderInfo() LibraryFolder {
	defer a.ws.Enter()()
	return a.withDialog(a.ws.Folder())
}

// withDialog says whether this bridge has a folder dialog (the desktop app).
func (a *App) withDialog(f LibraryFolder) LibraryFolder {
	f.CanChoose = a.dirDialog != nil
	return f
}

// ChooseLibraryFolder shows the system's folder dialog and returns the chosen folder, or
// "" when the user cancelled. It changes nothing: SetLibraryFolder does.
func (a *App) ChooseLibraryFolder() (string, error) {
	defer a.ws.Enter()()
	if a.dirDialog == nil {
		return "", errors.New("no folder dialog here: type the folder's path")
	}
	return a.dirDialog(filepath.Dir(a.eng().Config().Dir))
}

// SetLibraryFolder changes the library folder without restarting the app, and remembers
// the choice for the next start.
//
// With move, this library (its database, indexes, sessions and settings; the documents
// themselves stay where they are) moves into dir, which must be empty or not exist yet,
// and the old folder is gone afterwards. Without move, the library in dir is opened, or a
// new empty library is started there when dir is empty or does not exist; this library
// stays where it is. Running answers, ingests and downloads are stopped.
func (a *App) SetLibraryFolder(dir string, move bool) (LibraryFolder, error) {
	// The switch holds the gate exclusively: no call is inside while one engine is
	// closed and the next opened.
	if err := a.ws.SetFolder(dir, move); err != nil {
		return LibraryFolder{}, err
	}
	defer a.ws.Enter()()
	info := a.withDialog(a.ws.Folder())
	a.emit.Emit(EventLibrarySwitched, info)
	a.emitStatus()
	return info, nil
}
