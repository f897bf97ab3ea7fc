//go:build !windows

package main

// attachConsole is only needed on Windows (see console_windows.go).
func attachConsole() {}
