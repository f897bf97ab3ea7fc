//go:build !unix

package testollama

import (
	"io"
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
