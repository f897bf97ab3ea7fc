package testollama

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// RunnerArgs returns the command lines (arguments after the program) of the model runners
// the server has running now, read from /proc: what a test checks of how a model was
// loaded (--threads, --ctx-size, --parallel). Linux only.
func (s *Server) RunnerArgs() ([][]string, error) {
	if s.proc == nil || s.proc.cmd.Process == nil {
		return nil, fmt.Errorf("runner args: the server is not running")
	}
	group := s.proc.cmd.Process.Pid // the watchdog leads the group (Setpgid)
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, st := range stats {
		b, err := os.ReadFile(st)
		if err != nil {
			continue // exited meanwhile
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parentheses.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) < 3 {
			continue
		}
		if pg, err := strconv.Atoi(f[2]); err != nil || pg != group {
			continue
		}
		cmd, err := os.ReadFile(filepath.Join(filepath.Dir(st), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
		if len(args) > 1 && args[1] == "runner" {
			out = append(out, args[1:])
		}
	}
	return out, nil
}
