//go:build !unix

package crashpoint

import "os"

func kill() {
	p, err := os.FindProcess(os.Getpid())
	if err == nil {
		p.Kill()
	}
	select {}
}
