package app

import (
	"github.com/carrel-app/carrel/backend/asking"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/workspace"
)

// MemorySettings is what the settings' memory section shows.
type MemorySettings = workspace.MemorySettings

// Memory returns whether memory is on and every memory kept.
func (a *App) Memory() (MemorySettings, error) {
	defer a.ws.Enter()()
	return a.ws.Memory()
}

// SetMemoryEnabled turns long-term memory on or off.
func (a *App) SetMemoryEnabled(on bool) (MemorySettings, error) {
	defer a.ws.Enter()()
	if err := a.eng().Memory().SetEnabled(a.ctx(), on); err != nil {
		return MemorySettings{}, err
	}
	return a.memoryChanged()
}

// AddMemory stores a fact about the user ("prefers short answers"); kind is preference,
// context or goal ("" for context).
func (a *App) AddMemory(kind library.MemoryKind, text string) (MemorySettings, error) {
	defer a.ws.Enter()()
	if _, err := a.eng().Memory().Add(a.ctx(), kind, text); err != nil {
		return MemorySettings{}, err
	}
	return a.memoryChanged()
}

// EditMemory changes a memory's text.
func (a *App) EditMemory(id int64, text string) (MemorySettings, error) {
	defer a.ws.Enter()()
	if _, err := a.eng().Memory().Edit(a.ctx(), id, text); err != nil {
		return MemorySettings{}, err
	}
	return a.memoryChanged()
}

// DeleteMemory forgets a memory.
func (a *App) DeleteMemory(id int64) (MemorySettings, error) {
	defer a.ws.Enter()()
	if err := a.eng().Memory().Delete(a.ctx(), id); err != nil {
		return MemorySettings{}, err
	}
	return a.memoryChanged()
}

// CacheStatus says whether the answer cache is on, how many answers it keeps and how it
// matches questions (by meaning, or by words without an embedding model).
func (a *App) CacheStatus() (asking.CacheStatus, error) {
	defer a.ws.Enter()()
	return a.eng().Asking().CacheStatus(a.ctx())
}

// memoryChanged emits and returns the memory settings as they are now.
func (a *App) memoryChanged() (MemorySettings, error) {
	m, err := a.ws.Memory()
	if err == nil {
		a.emit.Emit(EventMemoryChanged, m)
	}
	return m, err
}
