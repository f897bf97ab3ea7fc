package ingest

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/carrel-app/carrel/backend/document"
	"github.com/carrel-app/carrel/internal/testaudio"
)

// sphinxOnly transcribes with PocketSphinx whatever else is installed.
var sphinxOnly = Options{Media: MediaOptions{Recognizer: document.RecognizerPocketSphinx}}

// verifies that a spoken paragraph, as MP3 and MP4, is transcribed by PocketSphinx
// with timestamps: the words are mostly right (recall reported, at least 0.6), segments
// are in time order within the recording, each segment's text is where it says on its
// page, and every sentence's words are found near its time span.
func TestMediaTranscribesSpeech(t *testing.T) {
	testaudio.Need(t, "pocketsphinx_continuous")
	f := testaudio.Make(t)
	spoken := strings.Join(testaudio.Sentences, " ")
	// The subtests run at once: their children's CPU time is summed after both.
	cpu0 := childCPU()
	t.Cleanup(func() {
		audio := 2 * f.Spans[len(f.Spans)-1][1]
		cpu := childCPU() - cpu0
		t.Logf("CPU time of ffmpeg and PocketSphinx: %v for %.1f s of speech (%.2f of realtime, the 10 s warm-ups included)", cpu.Round(time.Millisecond), audio, cpu.Seconds()/audio)
	})
	for _, tc := range []struct {
		path string
		kind document.Kind
	}{{f.MP3, document.KindAudio}, {f.MP4, document.KindVideo}} {
		t.Run(filepath.Ext(tc.path), func(t *testing.T) {
			t.Parallel() // one process each: two cores, half the wall time
			start := time.Now()
			var mu sync.Mutex
			var prog [][2]int
			opts := sphinxOnly
			opts.Progress = func(done, total int) {
				mu.Lock()
				prog = append(prog, [2]int{done, total})
				mu.Unlock()
			}
			doc, err := FileWithOptions(context.Background(), tc.path, opts)
			if err != nil {
				t.Fatal(err)
			}
			took := time.Since(start)
			tr := doc.Transcript
			if doc.Kind != tc.kind || tr == nil || tr.Recognizer != document.RecognizerPocketSphinx || tr.Media.Path != tc.path || tr.Media.Kind != tc.kind {
				t.Fatalf("kind %q, transcript %+v", doc.Kind, tr)
			}
			var text strings.Builder
			for _, p := range doc.Pages {
				text.WriteString(p.Text + "\n")
			}
			recall := testaudio.Recall(spoken, text.String())
			end := f.Spans[len(f.Spans)-1][1]
			t.Logf("%s: word recall %.3f over %d words; %.1f s of speech in %v (wall-clock realtime factor %.2f); transcript: %q",
				filepath.Base(tc.path), recall, len(testaudio.Words(spoken)), tr.Duration, took.Round(time.Millisecond), took.Seconds()/tr.Duration, text.String())
			if recall < 0.6 {
				t.Errorf("word recall %.3f < 0.6", recall)
			}
			if tr.Duration < end-0.2 || tr.Duration > end+0.5 {
				t.Errorf("duration %.2f s, spoken %.2f s", tr.Duration, end)
			}
			prev := -1.0
			for i, s := range tr.Segments {
				if s.Start < prev || s.End < s.Start || s.End > tr.Duration+0.1 {
					t.Errorf("segment %d [%.2f, %.2f] out of order after %.2f", i, s.Start, s.End, prev)
				}
				prev = s.Start
				if got := doc.Pages[s.Page-1].Text[s.From:s.To]; got != s.Text {
					t.Errorf("segment %d says %q, its page holds %q there", i, s.Text, got)
				}
			}
			// Each sentence: the segments said within its span hold some of its words.
			for i, span := range f.Spans {
				var heard strings.Builder
				for _, s := range tr.Segments {
					if s.End > span[0]-0.3 && s.Start < span[1]+0.3 {
						heard.WriteString(s.Text + " ")
					}
				}
				if r := testaudio.Recall(testaudio.Sentences[i], heard.String()); r < 0.3 {
					t.Errorf("sentence %d [%.1f, %.1f]: recall %.2f in %q", i, span[0], span[1], r, heard.String())
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(prog) == 0 || prog[len(prog)-1][0] != prog[len(prog)-1][1] || prog[len(prog)-1][1] != 1 {
				t.Errorf("progress %v, want it to end at 1 of 1 minute", prog)
			}
		})
	}
}

// verifies a recording is transcribed piece by piece with progress in minutes, and
// that cancelling stops it promptly, with ctx's error, leaving no temporary files.
func TestMediaProgressAndCancel(t *testing.T) {
	testaudio.Need(t, "pocketsphinx_continuous")
	f := testaudio.Make(t)
	dir := t.TempDir()
	// About a minute and a half: the paragraph three times over.
	long := filepath.Join(dir, "long.mp3")
	list := filepath.Join(dir, "list.txt")
	os.WriteFile(list, []byte(strings.Repeat("file '"+f.WAV+"'\n", 3)), 0o644)
	ffmpegRun(t, "-f", "concat", "-safe", "0", "-i", list, "-c:a", "libmp3lame", "-b:a", "32k", long)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var prog [][2]int
	var cancelledAt time.Time
	opts := sphinxOnly
	opts.Media.Piece = 10 * time.Second
	opts.Progress = func(done, total int) {
		mu.Lock()
		defer mu.Unlock()
		prog = append(prog, [2]int{done, total})
		if len(prog) == 2 { // the first piece is done
			cancelledAt = time.Now()
			cancel()
		}
	}
	_, err := FileWithOptions(ctx, long, opts)
	stopped := time.Since(cancelledAt)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := int(math.Ceil(3 * f.Spans[len(f.Spans)-1][1] / 60))
	if len(prog) != 2 || prog[0] != [2]int{0, want} || prog[1][1] != want {
		t.Fatalf("progress %v: want 0 of %d minutes, then one piece", prog, want)
	}
	t.Logf("stopped %v after the cancel", stopped.Round(time.Millisecond))
	if stopped > 5*time.Second {
		t.Errorf("took %v to stop after the cancel", stopped)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left in the temporary folder: %v", left)
	}
}

// verifies that the pieces of a long recording start at the quietest moment before
// each minute, never inside a sentence.
func TestMediaCutsAtPauses(t *testing.T) {
	f := testaudio.Make(t)
	dir := t.TempDir()
	pcm := filepath.Join(dir, "a.pcm")
	list := filepath.Join(dir, "list.txt")
	os.WriteFile(list, []byte(strings.Repeat("file '"+f.WAV+"'\n", 6)), 0o644)
	ffmpegRun(t, "-f", "concat", "-safe", "0", "-i", list, "-ac", "1", "-ar", "16000", "-f", "s16le", pcm)
	st, _ := os.Stat(pcm)
	energy, err := loudness(pcm)
	if err != nil {
		t.Fatal(err)
	}
	cuts := cutPoints(energy, st.Size()/2, 60*sampleRate)
	one := f.Spans[len(f.Spans)-1][1] // the length of one paragraph
	if len(cuts) < 2 {
		t.Fatalf("cuts %v for %.0f s", cuts, 6*one)
	}
	for _, c := range cuts[1:] {
		sec := float64(c) / sampleRate
		at := sec - one*float64(int(sec/one)) // where in its paragraph
		inside := false
		for _, s := range f.Spans {
			if at > s[0]+0.05 && at < s[1]-0.05 {
				inside = true
			}
		}
		if inside {
			t.Errorf("a piece starts at %.2f s, inside a sentence (%.2f s into its paragraph; spans %v)", sec, at, f.Spans)
		}
	}
}

// verifies the clear errors: a video without sound, ffmpeg missing, no recogniser, a
// file that is not media at all.
func TestMediaErrors(t *testing.T) {
	f := testaudio.Make(t)
	ctx := context.Background()
	_, err := FileWithOptions(ctx, f.Silent, sphinxOnly)
	if !errors.Is(err, ErrNoAudio) || !strings.Contains(err.Error(), "no audio track") {
		t.Errorf("silent video: %v", err)
	}

	_, err = FileWithOptions(ctx, f.MP3, Options{Media: MediaOptions{FFmpeg: "/nonexistent/ffmpeg"}})
	if !errors.Is(err, ErrMissingTool) || !strings.Contains(err.Error(), "install ffmpeg") {
		t.Errorf("missing ffmpeg: %v", err)
	}
	ff, _ := exec.LookPath("ffmpeg")
	// With an empty PATH nothing is found, ffmpeg first.
	t.Setenv("PATH", t.TempDir())
	_, err = FileWithOptions(ctx, f.MP3, Options{})
	if !errors.Is(err, ErrMissingTool) || !strings.Contains(err.Error(), "sudo apt install ffmpeg") {
		t.Errorf("ffmpeg not on PATH: %v", err)
	}
	_, err = FileWithOptions(ctx, f.MP3, Options{Media: MediaOptions{FFmpeg: ff}})
	if !errors.Is(err, ErrMissingTool) || !strings.Contains(err.Error(), "no speech recogniser") {
		t.Errorf("no recogniser: %v", err)
	}

	junk := filepath.Join(t.TempDir(), "notes.mp3")
	os.WriteFile(junk, []byte("these are my notes, not a recording\n"), 0o644)
	_, err = FileWithOptions(ctx, junk, Options{Media: MediaOptions{FFmpeg: ff}})
	if !errors.Is(err, ErrCorrupt) {
		t.Errorf("text named .mp3: %v", err)
	}
}

// verifies segments are read from whisper.cpp's JSON output (-oj), non-speech marks
// dropped, and from PocketSphinx's timed words, fillers dropped and segments cut at
// pauses.
func TestRecognizerOutputs(t *testing.T) {
	segs, err := whisperSegments([]byte(`{"systeminfo":"AVX = 1","model":{"type":"base"},"params":{"language":"en"},
	"result":{"language":"en"},"transcription":[
	{"timestamps":{"from":"00:00:00,000","to":"00:00:03,200"},"offsets":{"from":0,"to":3200},"text":" The heart pumps blood."},
	{"timestamps":{"from":"00:00:03,200","to":"00:00:05,000"},"offsets":{"from":3200,"to":5000},"text":" [BLANK_AUDIO]"},
	{"timestamps":{"from":"00:01:05,000","to":"00:01:07,500"},"offsets":{"from":65000,"to":67500},"text":" Rivers carry water."}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) != 2 || segs[0].Text != "The heart pumps blood." || segs[1].Start != 65 || segs[1].End != 67.5 {
		t.Errorf("whisper segments %+v", segs)
	}
	out := "the heart pumps blood\n<s> 0.000 0.100 1.0\nthe 0.110 0.200 0.9\nheart 0.210 0.500 0.9\n[NOISE] 0.5 0.6 1\npumps 0.610 0.900 0.8\nblood(2) 0.910 1.300 0.7\n<sil> 1.310 1.900 1.0\nrivers 1.910 2.300 0.5\n</s> 2.310 2.500 1.0\n"
	segs = sphinxSegments(out, 0)
	if len(segs) != 2 || segs[0].Text != "the heart pumps blood" || segs[0].Start != 0.11 || segs[0].End != 1.3 || segs[1].Text != "rivers" {
		t.Errorf("sphinx segments %+v", segs)
	}
}

// verifies a transcript's layout: one segment a line, paragraphs at pauses, and
// TimeAt mapping page offsets back to the segment said there.
func TestLayoutTranscript(t *testing.T) {
	doc := &Document{Path: "talk.mp3"}
	tr := &Transcript{Segments: []Segment{{Start: 0, End: 2, Text: "first  line"}, {Start: 2.5, End: 4, Text: "second"}, {Start: 9, End: 10, Text: " "}, {Start: 12, End: 13, Text: "after a pause"}}}
	if err := LayoutTranscript(doc, tr); err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) != 1 || doc.Pages[0].Text != "first line\nsecond\n\nafter a pause" || len(tr.Segments) != 3 || doc.Transcript != tr || tr.Duration != 13 {
		t.Fatalf("pages %+v segments %+v", doc.Pages, tr.Segments)
	}
	for _, c := range []struct {
		off  int
		want float64
	}{{0, 0}, {9, 0}, {10, 2.5}, {11, 2.5}, {17, 12}, {18, 12}} {
		if got, ok := tr.TimeAt(1, c.off); !ok || got != c.want {
			t.Errorf("TimeAt(1, %d) = %v %v, want %v", c.off, got, ok, c.want)
		}
	}
	if _, ok := tr.TimeAt(1, 40); ok {
		t.Error("TimeAt past the end is ok")
	}
	// Long transcripts span pages; every segment is found where it says.
	var segs []Segment
	for i := range 400 {
		segs = append(segs, Segment{Start: float64(i), End: float64(i) + 0.9, Text: "sentence number " + Clock(float64(i)) + " of a long lecture about rivers"})
	}
	doc = &Document{Path: "long.mp3"}
	tr = &Transcript{Segments: segs}
	if err := LayoutTranscript(doc, tr); err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) < 3 {
		t.Fatalf("%d pages", len(doc.Pages))
	}
	for i, s := range tr.Segments {
		if doc.Pages[s.Page-1].Text[s.From:s.To] != s.Text {
			t.Fatalf("segment %d misplaced: %+v", i, s)
		}
	}
	if Clock(3725) != "1:02:05" || Clock(65.9) != "1:05" {
		t.Errorf("Clock: %s %s", Clock(3725), Clock(65.9))
	}
}

func ffmpegRun(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("ffmpeg", append([]string{"-hide_banner", "-nostdin", "-loglevel", "error", "-y"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("ffmpeg %v: %v: %s", args, err, out)
	}
}
