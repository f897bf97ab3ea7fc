package app

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWindowStateRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Carrel", "window.json")
	def := windowState{Width: 1280, Height: 820}
	if got := loadWindow(path, def, 900, 560); got != def {
		t.Fatalf("no file: %+v", got)
	}
	want := windowState{Width: 1500, Height: 900, Maximised: true}
	if err := saveWindow(path, want); err != nil {
		t.Fatal(err)
	}
	if got := loadWindow(path, def, 900, 560); got != want {
		t.Fatalf("saved %+v, loaded %+v", want, got)
	}
	// Too small (a minimised window reports tiny sizes) or garbage: the default.
	saveWindow(path, windowState{Width: 10, Height: 10})
	if got := loadWindow(path, def, 900, 560); got != def {
		t.Fatalf("tiny: %+v", got)
	}
	os.WriteFile(path, []byte("{"), 0o644)
	if got := loadWindow(path, def, 900, 560); got != def {
		t.Fatalf("garbage: %+v", got)
	}
}
