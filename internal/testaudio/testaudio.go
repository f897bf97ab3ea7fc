// Package testaudio makes real recordings for tests: espeak-ng (Debian espeak-ng) speaks
// a known paragraph sentence by sentence, the sentences are joined with pauses into one
// WAV file (so that each sentence's time span is known exactly), and ffmpeg makes MP3 and
// MP4 files of it, and a video without sound. Files are made once per machine and kept
// in the temporary folder, keyed by everything that shapes them.
package testaudio

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Sentences are what is spoken, in order: distinct topics in everyday words, so that a
// question about one finds that one.
var Sentences = []string{
	"The heart pumps blood through the arteries to every part of the body.",
	"Ice melts into water when the weather gets warm.",
	"Rivers carry water from the mountains down to the sea.",
	"The students read their books in the library every morning.",
	"The train leaves the station at nine o'clock and arrives in the city at noon.",
}

// Voice is espeak-ng's voice and speed: of the voices tried, the female variant at 140
// words a minute with short word gaps gave PocketSphinx the best recall (0.68 against
// 0.19 to 0.51 for the others on a first paragraph).
var Voice = []string{"-v", "en-us+f2", "-s", "140", "-g", "6"}

// Pause is the silence between sentences, in seconds.
const Pause = 1.0

// Files are the recordings of [Sentences].
type Files struct {
	WAV, MP3, MP4 string
	// Silent is a short video with no audio track.
	Silent string
	// Spans are each sentence's [start, end) in seconds.
	Spans [][2]float64
}

var (
	once    sync.Once
	files   Files
	errMake error
)

// Need fails the test when espeak-ng or ffmpeg is missing (go tool task setup:test
// installs them).
func Need(tb testing.TB, programs ...string) {
	tb.Helper()
	for _, p := range append([]string{"espeak-ng", "ffmpeg"}, programs...) {
		if _, err := exec.LookPath(p); err != nil {
			tb.Fatalf("%s is not installed: run `go tool task setup:test` (apt install espeak-ng ffmpeg pocketsphinx pocketsphinx-en-us)", p)
		}
	}
}

// Make returns the recordings, making them on first use.
func Make(tb testing.TB) Files {
	tb.Helper()
	Need(tb)
	f, err := Build()
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// Build makes the recordings (once per process; the files are kept between runs).
func Build() (Files, error) {
	once.Do(func() { files, errMake = make_() })
	return files, errMake
}

func make_() (Files, error) {
	h := sha256.New()
	fmt.Fprintf(h, "v1 %q %q %v", Sentences, Voice, Pause)
	dir := filepath.Join(os.TempDir(), "carrel-test-audio-"+hex.EncodeToString(h.Sum(nil))[:12])
	f := Files{WAV: filepath.Join(dir, "talk.wav"), MP3: filepath.Join(dir, "talk.mp3"), MP4: filepath.Join(dir, "talk.mp4"), Silent: filepath.Join(dir, "silent.mp4")}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return f, err
	}
	// Test packages run at once may make them at once: each works in its own folder and
	// renames finished files into place.
	work, err := os.MkdirTemp(dir, "work-")
	if err != nil {
		return f, err
	}
	defer os.RemoveAll(work)
	// Each sentence alone, then joined: the spans are sums of lengths.
	var pcm []byte
	rate := 0
	for i, s := range Sentences {
		w := filepath.Join(work, fmt.Sprintf("s%d.wav", i))
		if out, err := exec.Command("espeak-ng", append(append([]string{}, Voice...), "-w", w, s)...).CombinedOutput(); err != nil {
			return f, fmt.Errorf("espeak-ng: %v: %s", err, out)
		}
		r, data, err := readWAV(w)
		if err != nil {
			return f, err
		}
		if rate == 0 {
			rate = r
		}
		if i > 0 {
			pcm = append(pcm, make([]byte, int(Pause*float64(rate))*2)...)
		}
		start := float64(len(pcm)/2) / float64(rate)
		pcm = append(pcm, data...)
		f.Spans = append(f.Spans, [2]float64{start, float64(len(pcm)/2) / float64(rate)})
	}
	if err := writeWAV(filepath.Join(work, "talk.wav"), rate, pcm); err != nil {
		return f, err
	}
	if err := os.Rename(filepath.Join(work, "talk.wav"), f.WAV); err != nil {
		return f, err
	}
	ff := func(out string, args ...string) error {
		if _, err := os.Stat(out); err == nil {
			return nil
		}
		tmp := filepath.Join(work, filepath.Base(out))
		cmd := exec.Command("ffmpeg", append(append([]string{"-hide_banner", "-nostdin", "-loglevel", "error", "-y"}, args...), tmp)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("ffmpeg %s: %v: %s", filepath.Base(out), err, b)
		}
		return os.Rename(tmp, out)
	}
	err = errors.Join(
		ff(f.MP3, "-i", f.WAV, "-c:a", "libmp3lame", "-b:a", "64k"),
		ff(f.MP4, "-f", "lavfi", "-i", "color=c=navy:s=160x120:r=5", "-i", f.WAV, "-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k"),
		ff(f.Silent, "-f", "lavfi", "-i", "color=c=black:s=160x120:r=5", "-t", "2", "-an", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"),
	)
	return f, err
}

// readWAV returns the sample rate and the 16-bit mono samples of espeak-ng's WAV output.
func readWAV(path string) (int, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, nil, err
	}
	if len(b) < 44 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return 0, nil, fmt.Errorf("%s: not a WAV file", path)
	}
	rate := 0
	for i := 12; i+8 <= len(b); {
		id, n := string(b[i:i+4]), int(binary.LittleEndian.Uint32(b[i+4:]))
		body := b[i+8:]
		switch id {
		case "fmt ":
			if binary.LittleEndian.Uint16(body[2:]) != 1 || binary.LittleEndian.Uint16(body[14:]) != 16 {
				return 0, nil, fmt.Errorf("%s: not 16-bit mono", path)
			}
			rate = int(binary.LittleEndian.Uint32(body[4:]))
		case "data":
			// espeak-ng writing to a file may leave the size unset (0 or -1): take the rest.
			if n <= 0 || n > len(body) {
				n = len(body)
			}
			return rate, body[:n&^1], nil
		}
		i += 8 + n + n&1
	}
	return 0, nil, fmt.Errorf("%s: no data", path)
}

func writeWAV(path string, rate int, pcm []byte) error {
	h := []byte("RIFF")
	h = binary.LittleEndian.AppendUint32(h, uint32(36+len(pcm)))
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint16(h, 1)
	h = binary.LittleEndian.AppendUint32(h, uint32(rate))
	h = binary.LittleEndian.AppendUint32(h, uint32(rate*2))
	h = binary.LittleEndian.AppendUint16(h, 2)
	h = binary.LittleEndian.AppendUint16(h, 16)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(pcm)))
	return os.WriteFile(path, append(h, pcm...), 0o644)
}

// Words returns the lower-case words of s.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r == '\'')
	})
}

// Recall is the share of the spoken words found in the transcript, each transcript
// word matching at most one spoken word.
func Recall(spoken, heard string) float64 {
	have := map[string]int{}
	for _, w := range Words(heard) {
		have[w]++
	}
	ref := Words(spoken)
	hit := 0
	for _, w := range ref {
		if have[w] > 0 {
			have[w]--
			hit++
		}
	}
	if len(ref) == 0 {
		return 0
	}
	return float64(hit) / float64(len(ref))
}
