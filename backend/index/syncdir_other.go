//go:build !windows

package index

import (
	"fmt"
	"os"
	"path/filepath"
)

// syncDir fsyncs a directory so that renames inside it survive a power loss.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", filepath.Base(dir), err)
	}
	return nil
}
