//go:build !unix

package ingest

import "time"

// cpuTime is not measured on this platform.
func cpuTime() time.Duration { return 0 }

// childCPU is not measured on this platform.
func childCPU() time.Duration { return 0 }
