package cli

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

// The test binary doubles as carrel: with CARREL_TEST_MAIN set it runs the command line
// as main does, so these tests drive real processes (signals, locks, exit codes).
func TestMain(m *testing.M) {
	if os.Getenv("CARREL_TEST_MAIN") == "1" {
		envconfig.HoldKeys() // as main does
		assets := fstest.MapFS{"index.html": {Data: []byte("<!doctype html><title>Carrel</title>")}}
		_, code, err := Run(os.Args[1:], Env{Stdout: os.Stdout, Stderr: os.Stderr, Assets: assets})
		if err != nil {
			fmt.Fprintln(os.Stderr, "carrel:", err)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// proc is a carrel process started by a test.
type proc struct {
	cmd    *exec.Cmd
	stdout *syncBuffer
	stderr *syncBuffer
	done   chan struct{}
	err    error
}

func startCarrel(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "CARREL_TEST_MAIN=1", "XDG_CONFIG_HOME="+t.TempDir()), env...)
	p := &proc{cmd: cmd, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.stdout, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	return p
}

// syncBuffer is a bytes.Buffer safe to read while the process writes to it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// wait returns the exit code, failing the test when the process takes longer than d.
func (p *proc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(d):
		p.cmd.Process.Kill()
		<-p.done
		t.Fatalf("%s still running after %s\nstderr:\n%s", strings.Join(p.cmd.Args[1:], " "), d, p.stderr)
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// serveLibrary starts `carrel serve` on lib and waits for its link.
func serveLibrary(t *testing.T, lib string) *proc {
	t.Helper()
	p := startCarrel(t, nil, "--library", lib, "--ollama-host", "127.0.0.1:9", "serve", "--addr", "127.0.0.1:0")
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(p.stdout.String(), "\n") {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start\nstderr:\n%s", p.stderr)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var info struct{ URL string }
	if s := p.stdout.String(); json.Unmarshal([]byte(s), &info) != nil || !strings.Contains(info.URL, "?token=") {
		t.Fatalf("serve printed %q\nstderr:\n%s", s, p.stderr)
	}
	return p
}

// verifies two processes on one library: with serve holding it, search and ingest say
// at once which process has it (pid and command) instead of hanging; serve stops
// promptly on SIGTERM; then, and after a SIGKILL leaves the lock file behind, the
// library opens again.
func TestSecondProcessOnALibrary(t *testing.T) {
	lib := t.TempDir()
	note := filepath.Join(t.TempDir(), "note.txt")
	os.WriteFile(note, []byte("The quokka lives on Rottnest Island."), 0o644)
	srv := serveLibrary(t, lib)

	for _, args := range [][]string{
		{"search", "--mode", "lexical", "quokka"},
		{"ingest", note},
		{"status"},
	} {
		start := time.Now()
		p := startCarrel(t, nil, append([]string{"--library", lib, "--ollama-host", "127.0.0.1:9"}, args...)...)
		code := p.wait(t, 5*time.Second)
		msg := p.stderr.String()
		if code != 1 || !strings.Contains(msg, "in use by") || !strings.Contains(msg, fmt.Sprintf("pid %d", srv.cmd.Process.Pid)) || !strings.Contains(msg, "serve --addr") {
			t.Fatalf("%s beside serve: exit %d after %s\nstderr:\n%s", args[0], code, time.Since(start), msg)
		}
		t.Logf("%s beside serve: %s in %s", args[0], strings.TrimSpace(msg), time.Since(start).Round(time.Millisecond))
	}

	start := time.Now()
	srv.cmd.Process.Signal(syscall.SIGTERM)
	if code := srv.wait(t, stopGrace+2*time.Second); code != 0 {
		t.Fatalf("serve after SIGTERM: exit %d\nstderr:\n%s", code, srv.stderr)
	}
	t.Logf("serve stopped %s after SIGTERM", time.Since(start).Round(time.Millisecond))
	p := startCarrel(t, nil, "--library", lib, "--ollama-host", "127.0.0.1:9", "ingest", note)
	if code := p.wait(t, 60*time.Second); code != 0 {
		t.Fatalf("ingest after serve stopped: exit %d\n%s", code, p.stderr)
	}

	// A kill -9 leaves the lock file with a dead pid in it: ignored.
	srv = serveLibrary(t, lib)
	srv.cmd.Process.Kill()
	srv.wait(t, 3*time.Second)
	if b, _ := os.ReadFile(filepath.Join(lib, "carrel.lock")); !strings.Contains(string(b), fmt.Sprint(srv.cmd.Process.Pid)) {
		t.Fatalf("lock file after kill -9: %q", b)
	}
	p = startCarrel(t, nil, "--library", lib, "--ollama-host", "127.0.0.1:9", "search", "--json", "--mode", "lexical", "quokka")
	if code := p.wait(t, 30*time.Second); code != 0 {
		t.Fatalf("search after serve was killed: exit %d\n%s", code, p.stderr)
	}
	if out := p.stdout.String(); !strings.Contains(out, "Rottnest") {
		t.Fatalf("search found %s", out)
	}
}

// verifies commands stop promptly on SIGTERM and SIGINT in the middle of long work (an
// ingest of the pdfcpu corpus, 55 PDFs and ~1,500 pages): they exit 130 within the grace
// period and two seconds.
func TestCommandsStopOnSignal(t *testing.T) {
	corpus := testcorpus.Dir(t)
	for _, c := range []struct {
		sig  syscall.Signal
		args []string
	}{
		{syscall.SIGTERM, []string{"--ollama-host", "127.0.0.1:9", "ingest", corpus}},
		{syscall.SIGINT, []string{"--ollama-host", "127.0.0.1:9", "ingest", corpus}},
	} {
		lib := t.TempDir()
		p := startCarrel(t, nil, append([]string{"--library", lib}, c.args...)...)
		// Opened and busy: its first progress line is out (a loaded machine may take a while).
		for deadline := time.Now().Add(time.Minute); !strings.Contains(p.stderr.String(), ": extracting") && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(time.Second)
		select {
		case <-p.done:
			t.Fatalf("%s ended before the signal\nstderr:\n%s", c.args[2], p.stderr)
		default:
		}
		start := time.Now()
		p.cmd.Process.Signal(c.sig)
		code := p.wait(t, stopGrace+2*time.Second)
		took := time.Since(start)
		t.Logf("%s: exit %d %s after %v", c.args[2], code, took.Round(time.Millisecond), c.sig)
		if code != 130 {
			t.Fatalf("%s after %v: exit %d, want 130 (interrupted)\nstderr:\n%s", c.args[2], c.sig, code, p.stderr)
		}
		// Mostly it winds down by itself in under a second; on a loaded machine an extraction
		// step can still be running at stopGrace, and the process is then ended (the library
		// survives a kill). Either way it stops within the bound checked above.
		if strings.Contains(p.stderr.String(), "stopping now") {
			t.Logf("%s did not wind down by itself within %s; the process was ended", c.args[2], stopGrace)
		}
	}
}

// verifies every command against an Ollama that accepts connections and never answers
// (a listener that reads nothing back, as a hung server or a frozen machine behaves),
// the case where `search` once ignored SIGTERM for minutes: each command either finishes
// by itself within a few seconds (the status probe gives up and it works without the
// model) or, still busy half a second after reaching Ollama, exits 130 within the grace
// period of SIGTERM or SIGINT. None hangs. Each command is a subtest, in order.
func TestCommandsStopWithSilentOllama(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var held sync.Mutex
	var conns []net.Conn
	var accepted atomic.Int64
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held.Lock()
			conns = append(conns, c) // kept open, never answered
			held.Unlock()
			accepted.Add(1)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		held.Lock()
		for _, c := range conns {
			c.Close()
		}
		held.Unlock()
	})
	silent := ln.Addr().String()
	lib := t.TempDir()
	note := filepath.Join(t.TempDir(), "note.md")
	os.WriteFile(note, []byte("# Quokkas\n\nThe quokka lives on Rottnest Island and eats leaves.\n"), 0o644)
	if code := startCarrel(t, nil, "--library", lib, "--ollama-host", "127.0.0.1:9", "ingest", note).wait(t, time.Minute); code != 0 {
		t.Fatalf("ingest: exit %d", code)
	}
	for i, args := range [][]string{
		{"search", "quokka"},
		{"ask", "Where does the quokka live?"},
		{"status"},
		{"serve", "--addr", "127.0.0.1:0"},
		// ingest: TestCommandsStopOnSignal (an ingest long enough to be stopped for sure)
	} {
		t.Run(args[0], func(t *testing.T) {
			sig := []syscall.Signal{syscall.SIGTERM, syscall.SIGINT}[i%2]
			start := time.Now()
			before := accepted.Load()
			p := startCarrel(t, nil, append([]string{"--library", lib, "--ollama-host", silent}, args...)...)
			// Busy once it has reached Ollama (or, serve, printed its link): its signal handling
			// is in place from before the library is opened. A loaded machine may take seconds
			// to get there; a signal before it would only test Go's default.
			for accepted.Load() == before && p.stdout.String() == "" && time.Since(start) < time.Minute {
				select {
				case <-p.done:
				case <-time.After(20 * time.Millisecond):
					continue
				}
				break
			}
			select {
			case <-p.done:
				code := p.wait(t, 0)
				if code != 0 || time.Since(start) > 15*time.Second {
					t.Fatalf("%s with a silent Ollama: exit %d after %s\nstderr:\n%s", args[0], code, time.Since(start), p.stderr)
				}
				t.Logf("%s with a silent Ollama: done by itself in %s", args[0], time.Since(start).Round(time.Millisecond))
				return
			case <-time.After(500 * time.Millisecond):
			}
			sent := time.Now()
			p.cmd.Process.Signal(sig)
			code := p.wait(t, stopGrace+2*time.Second)
			want := 130
			if args[0] == "serve" {
				want = 0 // serve's way to stop is a signal
			}
			// A command that finished its output just as the signal came is done, not stuck.
			if code != want && !(code == 0 && p.stdout.String() != "") {
				t.Fatalf("%s with a silent Ollama, after %v: exit %d, want %d\nstderr:\n%s", args[0], sig, code, want, p.stderr)
			}
			t.Logf("%s with a silent Ollama: still busy 0.5 s after reaching it, exit %d %s after %v", args[0], code, time.Since(sent).Round(time.Millisecond), sig)
		})
	}
}

// verifies that the programs Carrel starts do not inherit the cloud API keys set in its
// environment (issue 14, item 4): with both keys exported, an ingest of a recording runs
// ffmpeg (through a wrapper that records its environment and then runs the real ffmpeg),
// and the recorded environment holds neither key; the keys still work: an answer through
// OpenAI (a local server speaking its wire format, checking the key) is given.
func TestChildrenGetNoKeys(t *testing.T) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Fatal("ffmpeg is needed (go tool task setup:test installs it)")
	}
	dir := t.TempDir()
	dump := filepath.Join(dir, "ffmpeg.env")
	wrapper := filepath.Join(dir, "ffmpeg")
	script := fmt.Sprintf("#!/bin/sh\nenv >> %q\nexec %q \"$@\"\n", dump, ffmpeg)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	wav := filepath.Join(dir, "tone.wav")
	if err := os.WriteFile(wav, toneWAV(2), 0o644); err != nil {
		t.Fatal(err)
	}
	openaiKey, anthropicKey := "sk-proj-CHILDtest0123456789abcdefWXYZ", "sk-ant-api03-CHILDtest9876543210wxyz"
	want := openaiKey
	cloud := cloudDouble(t, "openai", &want)
	lib := t.TempDir()
	cfg := fmt.Sprintf(`{"provider": "openai", "openai_base_url": %q}`, cloud.URL+"/v1")
	if err := os.WriteFile(filepath.Join(lib, "config.json"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"OPENAI_API_KEY=" + openaiKey, "ANTHROPIC_API_KEY=" + anthropicKey, "CARREL_FFMPEG=" + wrapper}
	p := startCarrel(t, env, "--library", lib, "--ollama-host", "127.0.0.1:9", "ingest", wav)
	p.wait(t, 3*time.Minute) // a tone has no words: the recording may fail; ffmpeg ran either way
	got, err := os.ReadFile(dump)
	if err != nil {
		t.Fatalf("ffmpeg was not run (%v)\nstderr:\n%s", err, p.stderr)
	}
	if !strings.Contains(string(got), "PATH=") {
		t.Fatalf("the wrapper recorded no environment: %q", got)
	}
	for _, key := range []string{openaiKey, anthropicKey} {
		if strings.Contains(string(got), key[8:len(key)-4]) {
			t.Fatalf("ffmpeg, started by Carrel, inherited the API key ending %s", key[len(key)-4:])
		}
	}
	note := filepath.Join(dir, "walden.md")
	os.WriteFile(note, []byte("# Walden\n\nThoreau planted beans by Walden Pond.\n"), 0o644)
	if code := startCarrel(t, env, "--library", lib, "--ollama-host", "127.0.0.1:9", "ingest", note).wait(t, time.Minute); code != 0 {
		t.Fatalf("ingest the note: exit %d", code)
	}
	p = startCarrel(t, env, "--library", lib, "--ollama-host", "127.0.0.1:9", "ask", "--json", "What did Thoreau plant?")
	if code := p.wait(t, time.Minute); code != 0 || !strings.Contains(p.stdout.String(), "beans") {
		t.Fatalf("ask through OpenAI with the key from the environment: exit %d\n%s\n%s", code, p.stdout, p.stderr)
	}
	t.Logf("ffmpeg ran %d times without the keys; the answer came through OpenAI with the key held in memory", strings.Count(string(got), "PATH="))
}

// toneWAV is secs seconds of a 440 Hz tone, 16 kHz mono 16-bit PCM.
func toneWAV(secs int) []byte {
	const rate = 16000
	n := rate * secs
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + 2*n))
	b.WriteString("WAVEfmt ")
	le(uint32(16))
	le(uint16(1))
	le(uint16(1))
	le(uint32(rate))
	le(uint32(2 * rate))
	le(uint16(2))
	le(uint16(16))
	b.WriteString("data")
	le(uint32(2 * n))
	for i := range n {
		le(int16(8000 * math.Sin(2*math.Pi*440*float64(i)/rate)))
	}
	return b.Bytes()
}
