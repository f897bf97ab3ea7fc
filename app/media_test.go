package app

import (
	"context"
	"io"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/internal/testaudio"
	"github.com/carrel-app/carrel/internal/testengine"
)

// verifies the files route serves a recording with its media type and answers range
// requests (206 with the asked bytes), as a player seeking in it needs, through the same
// handler the desktop app mounts in Wails' asset server.
func TestFilesServesRecordingRanges(t *testing.T) {
	f := testaudio.Make(t)
	ctx := context.Background()
	eng := testengine.Open(t, engine.Config{})
	const id = "0123456789abcdef0123456789abcdef"
	if err := eng.Library().PutDocument(ctx, &library.Document{ID: id, Path: f.MP3, Title: "talk", Kind: "audio", Status: library.StatusReady}); err != nil {
		t.Fatal(err)
	}
	a := New(eng, newHub())
	a.start(ctx)
	defer a.stop()
	raw, _ := os.ReadFile(f.MP3)

	req := httptest.NewRequest("GET", "http://carrel/files/"+id, nil)
	req.Header.Set("Range", "bytes=1000-1999")
	rec := httptest.NewRecorder()
	a.FilesHandler().ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Body)
	if rec.Code != 206 || string(body) != string(raw[1000:2000]) || rec.Header().Get("Content-Type") != "audio/mpeg" || rec.Header().Get("Accept-Ranges") != "bytes" {
		t.Fatalf("range request: %d, %d bytes, headers %v", rec.Code, len(body), rec.Header())
	}
	if cr := rec.Header().Get("Content-Range"); cr == "" {
		t.Errorf("no Content-Range")
	}
}
