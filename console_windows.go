package main

import (
	"os"
	"syscall"
)

// attachConsole gives the command line a console to print to on Windows.
//
// carrel.exe is one binary for the window and the CLI, linked as a GUI
// program (-H windowsgui, as Wails builds it) so that a double-click opens no
// console window. Windows gives such a program no console: typed in cmd or
// PowerShell, `carrel search ...` would print nothing. So when stdout or
// stderr is not already usable (a pipe or a file, as when redirected, or run
// by a script or wine), it attaches to the parent's console and writes there.
// cmd does not wait for a GUI program, so interactive output can land after
// the next prompt; scripts that redirect or pipe the output are unaffected
// (see docs/building-windows.md).
func attachConsole() {
	out, errOut := usable(os.Stdout), usable(os.Stderr)
	if out && errOut {
		return
	}
	const attachParentProcess = ^uintptr(0) // (DWORD)-1
	attach := syscall.NewLazyDLL("kernel32.dll").NewProc("AttachConsole")
	if r, _, _ := attach.Call(attachParentProcess); r == 0 {
		return // started from Explorer: no console to attach to
	}
	con, err := os.OpenFile("CONOUT$", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	if !out {
		os.Stdout = con
	}
	if !errOut {
		os.Stderr = con
	}
}

// usable reports whether f is an open handle of a known type (a console,
// pipe or file).
func usable(f *os.File) bool {
	h := syscall.Handle(f.Fd())
	if h == syscall.InvalidHandle || h == 0 {
		return false
	}
	t, err := syscall.GetFileType(h)
	return err == nil && t != 0 // FILE_TYPE_UNKNOWN
}
