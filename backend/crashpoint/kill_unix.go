//go:build unix

package crashpoint

import "syscall"

func kill() {
	syscall.Kill(syscall.Getpid(), syscall.SIGKILL)
	select {} // the signal is on its way: never run on past the point
}
