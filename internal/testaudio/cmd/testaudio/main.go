// Command testaudio makes the test recordings (see package testaudio) and prints them as
// JSON: the files, the sentences and each sentence's time span. The browser tests use it.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/carrel-app/carrel/internal/testaudio"
)

func main() {
	f, err := testaudio.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testaudio:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(map[string]any{"wav": f.WAV, "mp3": f.MP3, "mp4": f.MP4, "silent": f.Silent,
		"sentences": testaudio.Sentences, "spans": f.Spans})
}
