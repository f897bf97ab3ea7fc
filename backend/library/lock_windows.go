//go:build windows

package library

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// tryLock takes an exclusive lock on one byte of f without waiting; false means another
// process holds it. The byte lies far past the end (4 GiB in): a locked range cannot be
// read by others on Windows, and the holder's name must stay readable.
func tryLock(f *os.File) (bool, error) {
	ol := windows.Overlapped{OffsetHigh: 1}
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return false, nil
	}
	return err == nil, err
}
