//go:build unix

package testollama

import (
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// watchdog runs `ollama serve` ($0) in the shell's own process group. A
// background reader holds this process's pipe on fd 3: when the pipe closes
// (Close, or this process dying in any way) it asks the server to stop, and
// kills the group if it has not within 5 s. When the server exits for any
// reason the shell removes $1 (if set) and kills the whole group, model
// runners included, itself last.
const watchdog = `
exec 3<&0
"$0" serve </dev/null 3<&- &
pid=$!
{ read _ <&3; kill -TERM "$pid" 2>/dev/null; sleep 5; kill -KILL 0; } </dev/null &
exec 3<&-
wait "$pid"
if [ -n "$1" ]; then rm -rf "$1"; fi
kill -KILL 0
`

type process struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	exited chan struct{}
	err    error
}

func startProcess(bin string, env []string, logw io.Writer, cleanupDir string) (*process, error) {
	cmd := exec.Command("/bin/sh", "-c", watchdog, bin, cleanupDir)
	cmd.Env = env
	cmd.Stdout = logw
	cmd.Stderr = logw
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, stdin: stdin, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop closes the watchdog's pipe and waits for the group to exit, killing
// it after grace.
func (p *process) stop(grace time.Duration) {
	p.stdin.Close()
	select {
	case <-p.exited:
		return
	case <-time.After(grace):
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// lockFile takes an exclusive lock on path (created if needed), blocking
// until it is free; unlock releases it.
func lockFile(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// Signal sends sig to the server's whole process group (the server, its model runners
// and the watchdog), for fault tests: SIGKILL kills Ollama mid-answer; SIGSTOP freezes
// it, so that the kernel still accepts connections and nothing answers, until SIGCONT.
func (s *Server) Signal(sig syscall.Signal) error {
	return syscall.Kill(-s.proc.cmd.Process.Pid, sig)
}
