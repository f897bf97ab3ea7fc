// Package testcache names the folders where tests and evaluations keep what they fetch
// (word vectors, npm packages) between runs: carrel-test/NAME in the user's cache folder,
// or in the temporary folder when there is none.
package testcache

import (
	"os"
	"path/filepath"
)

// Dir returns the cache folder for name; it is not created.
func Dir(name string) string {
	d, err := os.UserCacheDir()
	if err != nil {
		d = os.TempDir()
	}
	return filepath.Join(d, "carrel-test", name)
}
