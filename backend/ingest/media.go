package ingest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/backend/envconfig"
)

// Audio and video files are decoded by ffmpeg (a separate program, found on PATH like
// Tesseract) to 16 kHz mono PCM, cut into pieces at quiet moments, and each piece is
// transcribed with timestamps by a recogniser: whisper.cpp's command-line program when
// it and a model file are at hand, else PocketSphinx (recognise_sphinx.go), or OpenAI's
// transcription endpoint when the user chose it (MediaOptions.Cloud). Pieces give
// progress per minute, cancellation within one piece, and parallel work on the cores.

// mediaExts maps the extensions of recordings to the kind they are read as; a video
// file whose only stream is sound is read as audio.
var mediaExts = map[string]document.Kind{
	".mp3": document.KindAudio, ".m4a": document.KindAudio, ".wav": document.KindAudio, ".ogg": document.KindAudio, ".flac": document.KindAudio,
	".mp4": document.KindVideo, ".mkv": document.KindVideo, ".webm": document.KindVideo, ".mov": document.KindVideo,
}

// IsMedia reports whether path names an audio or video file by its extension.
func IsMedia(path string) bool { return mediaExts[strings.ToLower(filepath.Ext(path))] != "" }

// MediaKind is the kind a recording is taken for by its name (document.KindAudio or document.KindVideo)
// until it is read; "" for other files.
func MediaKind(path string) document.Kind { return mediaExts[strings.ToLower(filepath.Ext(path))] }

// MediaOptions tune the reading of audio and video files. The zero value uses
// whisper.cpp when its program and a model file are found, else PocketSphinx.
type MediaOptions struct {
	// FFmpeg is the program that decodes recordings; "" is $CARREL_FFMPEG, else
	// "ffmpeg" on PATH.
	FFmpeg string
	// Recognizer forces one recogniser; document.RecognizerNone picks the best at hand:
	// whisper.cpp with a model, else PocketSphinx. document.RecognizerOpenAI needs Cloud.
	Recognizer document.Recognizer
	// Whisper is whisper.cpp's command-line program; "" is $CARREL_WHISPER, else
	// "whisper-cli" or "whisper-cpp" on PATH.
	Whisper string
	// WhisperModel is the ggml model file whisper.cpp runs (ggml-base.en.bin, …);
	// without one whisper.cpp is not used. "" is $CARREL_WHISPER_MODEL.
	WhisperModel string
	// Language is the spoken language for whisper.cpp ("en", "de", "auto"); "" is "en".
	// PocketSphinx has only its US English model.
	Language string
	// PocketSphinx is PocketSphinx's program; "" is "pocketsphinx_continuous" on PATH.
	PocketSphinx string
	// Cloud transcribes somewhere else (OpenAI). The engine sets it only when the user
	// has turned OpenAI on and chose it for recordings; it is then used first.
	Cloud Transcriber
	// MaxDuration bounds the length of a recording read; 0 is [MaxMediaDuration].
	MaxDuration time.Duration
	// Piece is the length of audio given to the recogniser at a time (progress is
	// reported and a cancel waits per piece); 0 is the recogniser's own (a minute for
	// PocketSphinx).
	Piece time.Duration
}

// Transcriber transcribes audio in a service outside Carrel (OpenAI's endpoint).
type Transcriber interface {
	// Name says which service and model, for the user: "OpenAI whisper-1".
	Name() string
	// MaxPiece is the longest audio it takes in one request.
	MaxPiece() time.Duration
	// Transcribe returns the timed segments of a 16 kHz mono WAV file of the given
	// length, times from the start of the file.
	Transcribe(ctx context.Context, wav string, seconds float64) ([]Segment, error)
}

const (
	// MaxMediaDuration is the longest recording read: a day's lectures.
	MaxMediaDuration = 8 * time.Hour
	// MaxMediaFileSize is the largest audio or video file read. It is decoded by ffmpeg
	// as a stream, never held in memory, so the bound is the disk's, not ours.
	MaxMediaFileSize = 16 << 30
	// sampleRate is what every recogniser here wants: 16 kHz mono, 16-bit.
	sampleRate = 16000
)

func (o MediaOptions) withDefaults() MediaOptions {
	if o.FFmpeg == "" {
		o.FFmpeg = envconfig.FFmpeg()
	}
	if o.Whisper == "" {
		o.Whisper = envconfig.Whisper()
	}
	if o.WhisperModel == "" {
		o.WhisperModel = envconfig.WhisperModel()
	}
	if o.Language == "" {
		o.Language = "en"
	}
	if o.MaxDuration <= 0 {
		o.MaxDuration = MaxMediaDuration
	}
	return o
}

// ffmpegPath is the decoder to run, or "" when there is none.
func (o MediaOptions) ffmpegPath() string {
	return lookPath(o.FFmpeg, "ffmpeg")
}

// lookPath finds name (when set) or the first of the defaults on PATH; "" if none.
func lookPath(name string, defaults ...string) string {
	if name != "" {
		defaults = []string{name}
	}
	for _, n := range defaults {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// ffmpegInstall says how to install ffmpeg on this system.
func ffmpegInstall() string {
	switch runtime.GOOS {
	case "darwin":
		return "install ffmpeg (brew install ffmpeg) and add the file again"
	case "windows":
		return "install ffmpeg (winget install ffmpeg) so that ffmpeg.exe is on PATH, and add the file again"
	}
	return "install ffmpeg (Debian/Ubuntu: sudo apt install ffmpeg) and add the file again"
}

// MediaTools says which programs for recordings are at hand, for a settings view.
type MediaTools struct {
	FFmpeg       string `json:"ffmpeg"`        // path, "" when missing
	Whisper      string `json:"whisper"`       // whisper.cpp's program, "" when missing
	WhisperModel string `json:"whisper_model"` // the model file in use, "" when none
	PocketSphinx string `json:"pocketsphinx"`  // path, "" when missing
	// Recognizer is the one a recording would be transcribed with now (RecognizerNone
	// when none).
	Recognizer document.Recognizer `json:"recognizer"`
}

// FindMediaTools looks for the programs recordings need.
func FindMediaTools(o MediaOptions) MediaTools {
	o = o.withDefaults()
	t := MediaTools{FFmpeg: o.ffmpegPath(), Whisper: lookPath(o.Whisper, "whisper-cli", "whisper-cpp"), PocketSphinx: lookPath(o.PocketSphinx, "pocketsphinx_continuous")}
	if fileExists(o.WhisperModel) {
		t.WhisperModel = o.WhisperModel
	}
	if r, err := pickRecognizer(o); err == nil {
		t.Recognizer = r.kind()
	}
	return t
}

func fileExists(p string) bool {
	if p == "" {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// recognizer turns one piece of speech (a 16 kHz mono WAV file) into timed segments.
type recognizer interface {
	kind() document.Recognizer
	source() string // for the user: "PocketSphinx (en-us)"
	// pieceLen is how long a piece it is given; workers how many run at once.
	pieceLen() time.Duration
	workers() int
	// warmup is how much audio before a piece it is given too, its words dropped: a
	// recogniser that adapts to the sound as it goes (PocketSphinx's live cepstral mean)
	// hears a piece's first words badly without it.
	warmup() time.Duration
	// recognize transcribes the WAV file, dropping what is said in its first skip
	// seconds (a warm-up), word by word where it can.
	recognize(ctx context.Context, wav string, seconds, skip float64) ([]Segment, error)
}

// pickRecognizer chooses the recogniser: the one forced, else the cloud when set, else
// whisper.cpp with a model, else PocketSphinx.
func pickRecognizer(o MediaOptions) (recognizer, error) {
	whisper := lookPath(o.Whisper, "whisper-cli", "whisper-cpp")
	sphinx := lookPath(o.PocketSphinx, "pocketsphinx_continuous")
	switch o.Recognizer {
	case document.RecognizerOpenAI:
		if o.Cloud == nil {
			return nil, errors.New("transcription by OpenAI is chosen but OpenAI is not turned on: turn it on in Settings, or choose a local recogniser")
		}
		return cloudRecognizer{o.Cloud}, nil
	case document.RecognizerWhisper:
		switch {
		case whisper == "":
			return nil, errors.New("whisper.cpp is chosen but its program (whisper-cli) is not on PATH: install whisper.cpp, or choose another recogniser in Settings → Audio and video")
		case !fileExists(o.WhisperModel):
			return nil, fmt.Errorf("whisper.cpp needs a model file: choose one in Settings → Audio and video (%q was not found)", o.WhisperModel)
		}
		return whisperRecognizer{prog: whisper, model: o.WhisperModel, lang: o.Language}, nil
	case document.RecognizerPocketSphinx:
		if sphinx == "" {
			return nil, errors.New("PocketSphinx is chosen but not installed: install pocketsphinx and pocketsphinx-en-us (Debian/Ubuntu: sudo apt install pocketsphinx pocketsphinx-en-us)")
		}
		return sphinxRecognizer{prog: sphinx}, nil
	case "":
	default:
		return nil, fmt.Errorf("unknown speech recogniser %q", o.Recognizer)
	}
	if o.Cloud != nil {
		return cloudRecognizer{o.Cloud}, nil
	}
	if whisper != "" && fileExists(o.WhisperModel) {
		return whisperRecognizer{prog: whisper, model: o.WhisperModel, lang: o.Language}, nil
	}
	if sphinx != "" {
		return sphinxRecognizer{prog: sphinx}, nil
	}
	return nil, errors.New("no speech recogniser is installed: install whisper.cpp and choose a model file in Settings → Audio and video, or install PocketSphinx (Debian/Ubuntu: sudo apt install pocketsphinx pocketsphinx-en-us)")
}

// probe is what ffmpeg says of a recording before decoding it.
type probe struct {
	duration float64 // seconds; 0 when unknown
	audio    bool    // it has an audio stream
	video    bool    // it has a video stream that is not just cover art
	title    string  // its title tag, if any
	artist   string
}

var (
	durationRE = regexp.MustCompile(`Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)`)
	streamRE   = regexp.MustCompile(`(?m)^\s*Stream #\d+:\d+.*?: (Audio|Video): (.*)$`)
	tagRE      = regexp.MustCompile(`(?m)^\s{4}(title|artist)\s*: (.+)$`)
)

// probeMedia asks ffmpeg what the file holds (its streams, length and tags) from the
// report it prints when given no output.
func probeMedia(ctx context.Context, ffmpeg, path string) (probe, error) {
	var p probe
	cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-nostdin", "-i", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run() // it exits 1: no output file was given
	if err := ctx.Err(); err != nil {
		return p, err
	}
	out := stderr.String()
	if !strings.Contains(out, "Input #0") {
		return p, newError(ErrCorrupt, path, "ffmpeg cannot read it: "+lastLine(out), nil)
	}
	if m := durationRE.FindStringSubmatch(out); m != nil {
		h, _ := strconv.Atoi(m[1])
		mi, _ := strconv.Atoi(m[2])
		s, _ := strconv.ParseFloat(m[3], 64)
		p.duration = float64(h*3600+mi*60) + s
	}
	for _, m := range streamRE.FindAllStringSubmatch(out, -1) {
		switch {
		case m[1] == "Audio":
			p.audio = true
		case !strings.Contains(m[2], "attached pic"): // an MP3's cover image is no video
			p.video = true
		}
	}
	// Tags of the input, not of its streams: the first of each.
	in := out
	if i := strings.Index(in, "Stream #"); i > 0 {
		in = in[:i]
	}
	for _, m := range tagRE.FindAllStringSubmatch(in, -1) {
		v := strings.TrimSpace(m[2])
		switch {
		case m[1] == "title" && p.title == "":
			p.title = v
		case m[1] == "artist" && p.artist == "":
			p.artist = v
		}
	}
	return p, nil
}

// lastLine is the last non-blank line of s, for an error message.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// hashFile returns the hex SHA-256 of the file at path and its size, streaming.
func hashFile(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, openError(path, err)
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("read %s: %w", filepath.Base(path), err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// readMedia transcribes an audio or video file into doc.
func readMedia(ctx context.Context, doc *Document, opts Options) error {
	path := doc.Path
	o := opts.Media.withDefaults()
	ffmpeg := o.ffmpegPath()
	if ffmpeg == "" {
		return newError(ErrMissingTool, path, "audio and video are decoded by ffmpeg, which is not installed: "+ffmpegInstall(), nil)
	}
	pr, err := probeMedia(ctx, ffmpeg, path)
	if err != nil {
		return err
	}
	if !pr.audio {
		detail := ""
		if pr.video {
			detail = "it is a video without sound"
		}
		return newError(ErrNoAudio, path, detail, nil)
	}
	if pr.duration > o.MaxDuration.Seconds() {
		return newError(ErrTooLarge, path, fmt.Sprintf("%s long, and Carrel transcribes recordings up to %s", Clock(pr.duration), Clock(o.MaxDuration.Seconds())), nil)
	}
	rec, err := pickRecognizer(o)
	if err != nil {
		return newError(ErrMissingTool, path, err.Error(), nil)
	}
	doc.Kind = document.KindAudio
	if pr.video && mediaExts[strings.ToLower(filepath.Ext(path))] == document.KindVideo {
		doc.Kind = document.KindVideo
	}
	doc.Title, doc.Author = pr.title, pr.artist
	if doc.Title == "" {
		doc.Title = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}

	dir, err := os.MkdirTemp("", "carrel-audio-")
	if err != nil {
		return fmt.Errorf("transcribe %s: %w", filepath.Base(path), err)
	}
	defer os.RemoveAll(dir)
	pcm := filepath.Join(dir, "audio.pcm")
	if err := decode(ctx, ffmpeg, path, pcm); err != nil {
		return err
	}
	st, err := os.Stat(pcm)
	if err != nil {
		return fmt.Errorf("transcribe %s: %w", filepath.Base(path), err)
	}
	samples := st.Size() / 2
	seconds := float64(samples) / sampleRate
	if samples < sampleRate/10 {
		return newError(ErrEmpty, path, "its audio track holds no sound", nil)
	}
	energy, err := loudness(pcm)
	if err != nil {
		return fmt.Errorf("transcribe %s: %w", filepath.Base(path), err)
	}
	piece := rec.pieceLen()
	if o.Piece > 0 {
		piece = o.Piece
	}
	cuts := cutPoints(energy, samples, int64(piece.Seconds()*sampleRate))
	segs, err := recognizePieces(ctx, rec, pcm, dir, pieces(energy, cuts, samples, rec.warmup()), seconds, opts.Progress)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("transcribe %s with %s: %w", filepath.Base(path), rec.source(), err)
	}
	t := &Transcript{Source: rec.source(), Recognizer: rec.kind(), Media: Media{Kind: doc.Kind, Path: path}, Duration: seconds, Segments: segs}
	if err := LayoutTranscript(doc, t); err != nil {
		return err
	}
	if rec.kind() == document.RecognizerPocketSphinx {
		doc.Warnings = append(doc.Warnings, "Transcribed by PocketSphinx: expect wrong words. "+RecognizerAdvice(document.RecognizerPocketSphinx))
	}
	return nil
}

// decode has ffmpeg write the first audio stream of path as 16 kHz mono 16-bit PCM.
func decode(ctx context.Context, ffmpeg, path, out string) error {
	cmd := exec.CommandContext(ctx, ffmpeg, "-hide_banner", "-nostdin", "-loglevel", "error", "-i", path,
		"-map", "0:a:0", "-vn", "-ac", "1", "-ar", strconv.Itoa(sampleRate), "-c:a", "pcm_s16le", "-f", "s16le", "-y", out)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return newError(ErrCorrupt, path, "ffmpeg could not decode its audio: "+lastLine(stderr.String()), err)
	}
	return nil
}

// frameLen is the unit of silence search: 100 ms.
const frameLen = sampleRate / 10

// loudness returns the mean square of every 100 ms of the PCM file: 36,000 numbers
// for an hour.
func loudness(pcm string) ([]float64, error) {
	f, err := os.Open(pcm)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var energy []float64
	r := bufio.NewReaderSize(f, 1<<16)
	buf := make([]byte, frameLen*2)
	for {
		n, err := io.ReadFull(r, buf)
		if n > 1 {
			var sum float64
			for i := 0; i+1 < n; i += 2 {
				v := float64(int16(binary.LittleEndian.Uint16(buf[i:])))
				sum += v * v
			}
			energy = append(energy, sum/float64(n/2))
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return energy, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// quietest returns the quietest 100 ms frame in (at-window, at], at least 1.
func quietest(energy []float64, at, window int) int {
	at = min(at, len(energy)-1)
	best := at
	for i := at; i > at-window && i > 0; i-- {
		if energy[i] < energy[best] {
			best = i
		}
	}
	return max(best, 1)
}

// cutPoints returns the sample offsets pieces start at (the first is 0), about piece
// samples apart, each moved to the quietest 100 ms within a fifth of a piece before its
// target so that no word is cut in two.
func cutPoints(energy []float64, samples, piece int64) []int64 {
	cuts := []int64{0}
	if samples <= piece+piece/4 {
		return cuts
	}
	pieceFrames := int(piece / frameLen)
	window := max(1, pieceFrames/5)
	for at := pieceFrames; at < len(energy)-pieceFrames/4; {
		best := quietest(energy, at, window)
		cuts = append(cuts, int64(best)*frameLen)
		at = best + pieceFrames
	}
	return cuts
}

// piece is one piece of a recording: samples [from, to), recognised after the warm-up
// samples [warmFrom, warmTo) whose words are dropped.
type piece struct {
	from, to         int64
	warmFrom, warmTo int64
}

// pieces turns cut points into spans, each with up to warm of audio to hear first: what
// comes just before it, or, for the first piece, its own opening up to a quiet moment.
func pieces(energy []float64, cuts []int64, samples int64, warm time.Duration) []piece {
	w := int64(warm.Seconds() * sampleRate)
	out := make([]piece, len(cuts))
	for i, c := range cuts {
		end := samples
		if i+1 < len(cuts) {
			end = cuts[i+1]
		}
		out[i] = piece{from: c, to: end}
		switch {
		case w == 0:
		case i > 0:
			out[i].warmFrom, out[i].warmTo = max(0, c-w), c
		case end > w: // the first piece replays its own opening, ending at a pause
			f := quietest(energy, int(w/frameLen), int(w/frameLen/3))
			out[i].warmFrom, out[i].warmTo = 0, int64(f)*frameLen
		}
	}
	return out
}

// recognizePieces runs rec over the pieces of pcm that start at cuts, a few at once,
// and returns their segments in time order. progress hears minutes done of minutes in
// all, after each piece.
func recognizePieces(ctx context.Context, rec recognizer, pcm, dir string, spans []piece, seconds float64, progress Progress) ([]Segment, error) {
	total := int64(seconds * sampleRate)
	results := make([][]Segment, len(spans))
	minutes := int(math.Ceil(seconds / 60))
	if progress != nil {
		progress(0, minutes)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		firstErr error
		done     int64 // samples transcribed
		wg       sync.WaitGroup
	)
	next := make(chan int)
	for range max(1, min(rec.workers(), len(spans))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				segs, err := recognizePiece(ctx, rec, pcm, dir, i, spans[i])
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
					cancel()
				}
				results[i] = segs
				done += spans[i].to - spans[i].from
				d := int(float64(done) / sampleRate / 60)
				if done >= total {
					d = minutes
				}
				if progress != nil && err == nil {
					progress(d, minutes) // under mu: calls never overlap, done only grows
				}
				mu.Unlock()
			}
		}()
	}
	for i := range spans {
		select {
		case next <- i:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Segment
	for _, r := range results {
		out = append(out, r...)
	}
	return out, nil
}

// recognizePiece writes a span of pcm, its warm-up first, as a WAV file and recognises
// it, giving times from the start of the recording and dropping what was heard in the
// warm-up.
func recognizePiece(ctx context.Context, rec recognizer, pcm, dir string, i int, sp piece) ([]Segment, error) {
	wav := filepath.Join(dir, fmt.Sprintf("piece%05d.wav", i))
	parts := [][2]int64{{sp.from, sp.to}}
	warm := float64(sp.warmTo-sp.warmFrom) / sampleRate
	if warm > 0 {
		parts = [][2]int64{{sp.warmFrom, sp.warmTo}, {sp.from, sp.to}}
	}
	if err := writeWAV(pcm, wav, parts...); err != nil {
		return nil, err
	}
	defer os.Remove(wav)
	off := float64(sp.from) / sampleRate
	segs, err := rec.recognize(ctx, wav, warm+float64(sp.to-sp.from)/sampleRate, warm)
	if err != nil {
		return nil, fmt.Errorf("at %s: %w", Clock(off), err)
	}
	for k := range segs {
		segs[k].Start = max(0, segs[k].Start-warm) + off
		segs[k].End = max(0, segs[k].End-warm) + off
	}
	return segs, nil
}

// writeWAV writes the sample ranges [from, to) of the 16 kHz mono 16-bit PCM file pcm,
// one after the other, as a WAV file.
func writeWAV(pcm, wav string, parts ...[2]int64) error {
	in, err := os.Open(pcm)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(wav)
	if err != nil {
		return err
	}
	var n uint32
	for _, p := range parts {
		n += uint32((p[1] - p[0]) * 2)
	}
	h := make([]byte, 0, 44)
	h = append(h, "RIFF"...)
	h = binary.LittleEndian.AppendUint32(h, 36+n)
	h = append(h, "WAVEfmt "...)
	h = binary.LittleEndian.AppendUint32(h, 16)
	h = binary.LittleEndian.AppendUint16(h, 1) // PCM
	h = binary.LittleEndian.AppendUint16(h, 1) // mono
	h = binary.LittleEndian.AppendUint32(h, sampleRate)
	h = binary.LittleEndian.AppendUint32(h, sampleRate*2)
	h = binary.LittleEndian.AppendUint16(h, 2)
	h = binary.LittleEndian.AppendUint16(h, 16)
	h = append(h, "data"...)
	h = binary.LittleEndian.AppendUint32(h, n)
	if _, err := out.Write(h); err != nil {
		out.Close()
		return err
	}
	for _, p := range parts {
		if _, err := io.Copy(out, io.NewSectionReader(in, p[0]*2, (p[1]-p[0])*2)); err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}

// cloudRecognizer is a [Transcriber] as a recogniser.
type cloudRecognizer struct{ t Transcriber }

func (c cloudRecognizer) kind() document.Recognizer { return document.RecognizerOpenAI }
func (c cloudRecognizer) source() string            { return c.t.Name() }
func (c cloudRecognizer) pieceLen() time.Duration   { return c.t.MaxPiece() }
func (c cloudRecognizer) workers() int              { return 2 }
func (c cloudRecognizer) warmup() time.Duration     { return 0 }
func (c cloudRecognizer) recognize(ctx context.Context, wav string, seconds, skip float64) ([]Segment, error) {
	segs, err := c.t.Transcribe(ctx, wav, seconds)
	return skipSegments(segs, skip), err
}

// skipSegments drops the segments that start in the first skip seconds.
func skipSegments(segs []Segment, skip float64) []Segment {
	out := segs[:0]
	for _, s := range segs {
		if s.Start >= skip-0.05 {
			out = append(out, s)
		}
	}
	return out
}

// fileMedia is [FileWithOptions] for an audio or video file: hashed as a stream, never
// read into memory, and transcribed.
func fileMedia(ctx context.Context, path string, opts Options) (*Document, error) {
	if err := Admit(path); err != nil {
		return nil, err
	}
	sum, n, err := hashFile(path)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, newError(ErrEmpty, path, "", nil)
	}
	doc := &Document{Path: path, SHA256: sum, Bytes: n}
	if err := readMedia(ctx, doc, opts); err != nil {
		return nil, err
	}
	doc.DocType = document.TypeGeneral
	return doc, nil
}
