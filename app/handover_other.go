//go:build !linux

package app

// HandOver reports false: on Windows and macOS Wails' single-instance lock hands a second
// launch's arguments over before the library is opened (once the page has loaded).
func HandOver(files []string) bool { return false }
