package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/document"
)

// sphinxRecognizer runs PocketSphinx 0.8+5prealpha (Debian pocketsphinx, with the
// pocketsphinx-en-us model as its built-in default): `pocketsphinx_continuous -infile
// x.wav -time yes` prints, per utterance, the hypothesis and then one line per word:
// "word start end confidence", fillers included (<s>, </s>, <sil>, [NOISE], ++…++).
type sphinxRecognizer struct{ prog string }

func (sphinxRecognizer) kind() document.Recognizer { return document.RecognizerPocketSphinx }
func (sphinxRecognizer) source() string            { return "PocketSphinx (US English)" }

// A minute a piece: progress every minute, and a cancel waits for at most one.
func (sphinxRecognizer) pieceLen() time.Duration { return time.Minute }

// It uses one core per process.
func (sphinxRecognizer) workers() int { return max(1, runtime.NumCPU()) }

// Its live cepstral mean normalisation starts from a default and adapts over the first
// seconds: heard cold, a piece's first sentence is mostly lost (word recall on the test
// paragraph 0.54 cold, 0.75 after 12 s of warm-up).
func (sphinxRecognizer) warmup() time.Duration { return 10 * time.Second }

func (s sphinxRecognizer) recognize(ctx context.Context, wav string, seconds, skip float64) ([]Segment, error) {
	cmd := exec.CommandContext(ctx, s.prog, "-infile", wav, "-time", "yes", "-logfn", os.DevNull)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("pocketsphinx_continuous: %v: %s", err, lastLine(stderr.String()))
	}
	return sphinxSegments(stdout.String(), skip), nil
}

// sphinxWord is one word of PocketSphinx's timed output.
type sphinxWord struct {
	text       string
	start, end float64
}

// sphinxSegments reads PocketSphinx's timed word lines into segments: a segment ends at
// an utterance's end, at a pause of [sphinxPause] after a few words, or when it grows
// past [segmentWords] words. Words starting in the first skip seconds are dropped.
func sphinxSegments(out string, skip float64) []Segment {
	var segs []Segment
	var cur []sphinxWord
	flush := func() {
		if len(cur) == 0 {
			return
		}
		words := make([]string, len(cur))
		for i, w := range cur {
			words[i] = w.text
		}
		segs = append(segs, Segment{Start: cur[0].start, End: cur[len(cur)-1].end, Text: strings.Join(words, " ")})
		cur = cur[:0]
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			continue // a hypothesis line, or noise
		}
		start, err1 := strconv.ParseFloat(f[1], 64)
		end, err2 := strconv.ParseFloat(f[2], 64)
		if _, err3 := strconv.ParseFloat(f[3], 64); err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		w := f[0]
		switch {
		case w == "<s>":
			continue
		case w == "</s>":
			flush()
			continue
		case w == "<sil>":
			if end-start >= sphinxPause && len(cur) >= 4 {
				flush()
			}
			continue
		case strings.HasPrefix(w, "[") || strings.HasPrefix(w, "++") || strings.HasPrefix(w, "<"):
			continue // [NOISE], ++BREATH++
		}
		if start < skip-0.05 {
			continue
		}
		if i := strings.IndexByte(w, '('); i > 0 { // "the(2)": an alternative pronunciation
			w = w[:i]
		}
		cur = append(cur, sphinxWord{text: w, start: start, end: end})
		if len(cur) >= segmentWords {
			flush()
		}
	}
	flush()
	return segs
}

const (
	// sphinxPause is a silence that ends a segment once it has a few words.
	sphinxPause = 0.3
	// segmentWords caps a segment: a line of the transcript is a sentence or so.
	segmentWords = 20
)

// whisperRecognizer runs whisper.cpp's command-line program (whisper-cli; `main` in
// older builds) with a ggml model, writing its result as JSON (-oj): a "transcription"
// list of segments with "offsets" in milliseconds and "text".
type whisperRecognizer struct {
	prog, model, lang string
}

func (whisperRecognizer) kind() document.Recognizer { return document.RecognizerWhisper }
func (w whisperRecognizer) source() string {
	return "whisper.cpp (" + filepath.Base(w.model) + ")"
}

// Five minutes a piece: the model loads once per piece (a second or so), and whisper
// itself works in windows of 30 seconds.
func (whisperRecognizer) pieceLen() time.Duration { return 5 * time.Minute }

// One process at a time, using every core (its -t).
func (whisperRecognizer) workers() int { return 1 }

// It normalises each 30-second window by itself.
func (whisperRecognizer) warmup() time.Duration { return 0 }

func (w whisperRecognizer) recognize(ctx context.Context, wav string, seconds, skip float64) ([]Segment, error) {
	base := strings.TrimSuffix(wav, filepath.Ext(wav))
	cmd := exec.CommandContext(ctx, w.prog, "-m", w.model, "-f", wav, "-l", w.lang,
		"-t", strconv.Itoa(max(1, runtime.NumCPU())), "-oj", "-of", base, "-np")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%s: %v: %s", filepath.Base(w.prog), err, lastLine(stderr.String()))
	}
	defer os.Remove(base + ".json")
	b, err := os.ReadFile(base + ".json")
	if err != nil {
		return nil, fmt.Errorf("%s wrote no result: %w", filepath.Base(w.prog), err)
	}
	segs, err := whisperSegments(b)
	return skipSegments(segs, skip), err
}

// whisperSegments reads whisper.cpp's -oj output.
func whisperSegments(b []byte) ([]Segment, error) {
	var out struct {
		Transcription []struct {
			Offsets struct {
				From int64 `json:"from"`
				To   int64 `json:"to"`
			} `json:"offsets"`
			Text string `json:"text"`
		} `json:"transcription"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("read whisper.cpp's result: %w", err)
	}
	segs := make([]Segment, 0, len(out.Transcription))
	for _, t := range out.Transcription {
		text := strings.TrimSpace(t.Text)
		// whisper marks non-speech in brackets: [BLANK_AUDIO], [Music], (applause).
		if text == "" || (strings.HasPrefix(text, "[") && strings.HasSuffix(text, "]")) || (strings.HasPrefix(text, "(") && strings.HasSuffix(text, ")")) {
			continue
		}
		segs = append(segs, Segment{Start: float64(t.Offsets.From) / 1000, End: float64(t.Offsets.To) / 1000, Text: text})
	}
	return segs, nil
}
