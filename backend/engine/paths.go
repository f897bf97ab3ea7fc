package engine

import "github.com/carrel-app/carrel/backend/ingest"

// Supported reports whether Carrel can ingest a file with this name (see
// [ingest.Supported]).
func Supported(path string) bool { return ingest.Supported(path) }

// ExpandPaths replaces folders by the files inside them that Carrel reads (sorted),
// respecting .gitignore files and skipping hidden, generated and binary files; plain
// files are kept as given, so that unsupported ones get an error (see [ingest.Expand]).
func ExpandPaths(paths []string) []string { return ingest.Expand(paths) }
