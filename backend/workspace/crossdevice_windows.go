package workspace

import (
	"errors"
	"syscall"
)

// crossDevice reports whether a rename failed because source and target are
// on different volumes: ERROR_NOT_SAME_DEVICE on Windows, which Go does not
// map to EXDEV.
func crossDevice(err error) bool {
	const errorNotSameDevice = syscall.Errno(17)
	return errors.Is(err, errorNotSameDevice) || errors.Is(err, syscall.EXDEV)
}
