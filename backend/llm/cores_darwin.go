package llm

import "golang.org/x/sys/unix"

// physicalCores counts the cores (not hardware threads), 0 when it cannot.
func physicalCores() int {
	n, err := unix.SysctlUint32("hw.physicalcpu")
	if err != nil {
		return 0
	}
	return int(n)
}
