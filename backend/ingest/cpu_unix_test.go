//go:build unix

package ingest

import (
	"syscall"
	"time"
)

// childCPU is the CPU time (user and system) used so far by the test's finished child
// processes: the transcription's own work, whatever else shares the machine.
func childCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
