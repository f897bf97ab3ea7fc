// Package deps pins the modules the backend is being built on while its packages are
// written in parallel; delete once every dependency is imported for real.
package deps

import (
	_ "github.com/blevesearch/bleve/v2"
	_ "github.com/klippa-app/go-pdfium/webassembly"
	_ "github.com/mattn/go-sqlite3"
	_ "github.com/ollama/ollama/api"
	_ "github.com/pdfcpu/pdfcpu/pkg/api"
	_ "github.com/wailsapp/wails/v2"
	_ "github.com/wailsapp/wails/v2/pkg/runtime"
	_ "golang.org/x/tools/go/packages"
)
