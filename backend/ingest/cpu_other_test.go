//go:build !unix

package ingest

import "time"

// childCPU is not measured here (no getrusage).
func childCPU() time.Duration { return 0 }
