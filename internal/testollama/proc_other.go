//go:build !unix

package testollama

import (
	"io"
	"syscall"
	"time"
)

type process struct {
	exited chan struct{}
	err    error
}

func startProcess(bin string, env []string, logw io.Writer, cleanupDir string) (*process, error) {
	return nil, errNotSupported
}

func (p *process) stop(grace time.Duration) {}

func lockFile(path string) (unlock func(), err error) { return func() {}, nil }

// Signal is not supported here.
func (s *Server) Signal(sig syscall.Signal) error { return errNotSupported }
