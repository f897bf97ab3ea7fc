package app

import (
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/online"
)

// OnlineSettings are Settings → Online sources: whether URLs may be fetched, and every
// host this library's Carrel has connected to.
type OnlineSettings struct {
	On    bool          `json:"on"`
	Hosts []online.Host `json:"hosts"`
}

// OnlineSettings reports whether online sources are on and the hosts contacted.
func (a *App) OnlineSettings() OnlineSettings {
	defer a.ws.Enter()()
	return onlineOf(a.eng())
}

func onlineOf(eng *engine.Engine) OnlineSettings {
	return OnlineSettings{On: eng.OnlineOn(), Hosts: eng.Hosts()}
}

// SetOnlineSources turns online sources on or off (saved in the library's config.json).
func (a *App) SetOnlineSources(on bool) (OnlineSettings, error) {
	defer a.ws.Enter()()
	if err := a.eng().SetOnline(on); err != nil {
		return OnlineSettings{}, err
	}
	return onlineOf(a.eng()), nil
}

// AddURL fetches a web page, a document served at a URL, or a Hacker News or Reddit
// thread, in the background, and adds it to the library. It refuses at once while
// online sources are off. The URL shows in the library as being fetched (a
// library:changed event whose id is "path:" and the URL), then as the document it
// became, or as failed with the reason.
func (a *App) AddURL(url string) (Queued, error) {
	defer a.ws.Enter()()
	if _, err := online.ParseURL(url); err != nil {
		return Queued{}, err
	}
	// Told before the fetch starts: a fast fetch's outcome must come after it.
	placeholder := Document{ID: pathIDPrefix + url, Path: url, Title: url, URL: url, Status: library.StatusFetching}
	a.emit.Emit(EventLibraryChanged, placeholder)
	if err := a.ws.AddURL(url); err != nil {
		placeholder.Status = library.StatusRemoved
		a.emit.Emit(EventLibraryChanged, placeholder)
		return Queued{}, err
	}
	return Queued{Queued: 1}, nil
}

// fetched ends a URL's placeholder: it becomes the failure, or leaves for the document
// (whose own events the frontend has had).
func (a *App) fetched(url string, res engine.Result, err error) {
	id := pathIDPrefix + url
	switch {
	case err == nil && res.Status == engine.Failed && res.DocID == "":
		a.emit.Emit(EventLibraryChanged, Document{ID: id, Path: url, Title: url, URL: url, Status: library.StatusFailed, Error: res.Error})
		return
	case err != nil:
		a.emit.Emit(EventLibraryChanged, Document{ID: id, Path: url, Title: url, URL: url, Status: library.StatusFailed, Error: err.Error()})
		return
	}
	a.emit.Emit(EventLibraryChanged, Document{ID: id, Path: url, Title: url, URL: url, Status: library.StatusRemoved})
	for _, old := range res.Replaced {
		a.emit.Emit(EventLibraryChanged, Document{ID: old, Status: library.StatusRemoved})
	}
	if res.Status == engine.Skipped && res.DocID != "" {
		if d, derr := a.eng().Library().Document(a.ctx(), res.DocID); derr == nil {
			a.emit.Emit(EventLibraryKnown, a.toDocument(d))
		}
	} else if res.Status == engine.Inserted {
		// The ready event went out before the URL was recorded: say it again with it.
		if d, derr := a.eng().Library().Document(a.ctx(), res.DocID); derr == nil {
			a.emitDocument(d)
		}
	}
}
