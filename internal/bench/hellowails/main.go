// Command hellowails is the footprint anchor: the smallest Wails v2 app (one static page,
// no bindings), built like Carrel (production tags, stripped). scripts/footprint.sh
// launches it beside Carrel in the same run so window time and idle memory are reported
// as ratios to what Wails and WebKit cost by themselves on this machine.
//
// Build: go build -tags desktop,production -ldflags "-s -w" ./internal/bench/hellowails
package main

import (
	"log"
	"testing/fstest"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
)

const page = `<!doctype html><html><head><meta charset="utf-8"><title>Hello</title></head>
<body style="font-family:sans-serif"><h1>Hello, Wails</h1><p>The footprint anchor.</p></body></html>`

func main() {
	assets := fstest.MapFS{"index.html": {Data: []byte(page)}}
	err := wails.Run(&options.App{
		// Carrel's title, so the same xdotool search finds both windows.
		Title:       "Carrel",
		Width:       1024,
		Height:      700,
		AssetServer: &assetserver.Options{Assets: assets},
	})
	if err != nil {
		log.Fatal(err)
	}
}
