// Command testsites serves the fake sites of internal/testsites for callers outside Go
// tests (the browser end-to-end test). It prints one JSON line once they listen:
//
//	{"url":"http://127.0.0.1:PORT","resolve":"news.ycombinator.com:443:127.0.0.1:PORT,...","cert":"/tmp/.../cert.pem"}
//
// A carrel started with CARREL_RESOLVE set to "resolve" and SSL_CERT_FILE set to "cert"
// (Go's TLS reads extra roots from it on Linux) then reaches the real site names here.
// It serves until its standard input closes, or SIGINT/SIGTERM.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/carrel-app/carrel/internal/testsites"
)

func main() {
	s, err := testsites.Run()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsites:", err)
		os.Exit(1)
	}
	defer s.Close()
	dir, err := os.MkdirTemp("", "carrel-testsites-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsites:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	cert := filepath.Join(dir, "cert.pem")
	if err := os.WriteFile(cert, s.CertPEM, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "testsites:", err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(map[string]string{"url": s.URL, "resolve": s.ResolveString(), "cert": cert})
	done := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
}
