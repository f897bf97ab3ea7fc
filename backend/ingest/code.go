package ingest

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// codeExts are the source and configuration files read as code.
var codeExts = map[string]bool{}

// codeNames are source files known by their whole name.
var codeNames = map[string]bool{
	"makefile": true, "dockerfile": true, "containerfile": true, "justfile": true,
	"rakefile": true, "gemfile": true, "cmakelists.txt": true, "license": true,
	"readme": true, "changelog": true, "authors": true, "copying": true,
}

// generated names files that are nearly always machine-written.
var generated = map[string]bool{
	"package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true, "go.sum": true,
	"cargo.lock": true, "poetry.lock": true, "composer.lock": true, "gemfile.lock": true,
	"uv.lock": true, "pipfile.lock": true, "bun.lockb": true,
}

func init() {
	for _, e := range strings.Fields(`
		.go .py .pyi .js .mjs .cjs .jsx .ts .tsx .svelte .vue .java .kt .kts .scala .groovy
		.c .h .cc .cpp .cxx .hpp .hh .m .mm .cs .fs .swift .rs .zig .nim .d .dart
		.rb .php .pl .pm .lua .r .jl .hs .ml .mli .ex .exs .erl .hrl .clj .cljs .elm .lisp .scm .rkt
		.sh .bash .zsh .fish .ps1 .bat .cmd .sql .proto .graphql .gql .tf .nix
		.css .scss .sass .less .json .jsonc .yaml .yml .toml .ini .cfg .conf .xml .gradle .cmake .mk
		.tex .bib .rst .adoc .asciidoc .org .ipynb .csv .tsv .log .diff .patch .properties .env.example`) {
		codeExts[e] = true
	}
}

// isCode reports whether path names a source or configuration file.
func isCode(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	if codeNames[base] || generated[base] {
		return true
	}
	return codeExts[strings.ToLower(filepath.Ext(base))]
}

// declaration matches lines that start a top-level declaration in common
// languages; they become the outline of a source file.
var declaration = regexp.MustCompile(`^(?:func|type|class|def|async def|function|export (?:default )?(?:async )?(?:function|class|const|interface|type)|interface|struct|enum|impl|trait|fn|pub fn|pub struct|pub enum|pub trait|module|package|public (?:static )?(?:final )?(?:class|interface|enum|record)|CREATE TABLE)\b[^\n]{0,120}`)

// readCode reads a source file: its lines as they are (indentation kept),
// pages cut at blank lines where possible, top-level declarations as the
// outline, and its path in the repository as its title.
func readCode(ctx context.Context, doc *Document, data []byte) error {
	text := normalizePlainText(decodeText(data))
	if strings.TrimSpace(text) == "" {
		return newError(ErrEmpty, doc.Path, "no text in it", nil)
	}
	var heads []mdHeading
	off := 0
	for line := range strings.SplitSeq(text, "\n") {
		if len(heads) < 2000 && declaration.MatchString(line) {
			t := strings.TrimRight(strings.TrimSpace(line), "{:( ")
			if t = cleanLine(t); t != "" {
				heads = append(heads, mdHeading{title: t, level: 1, offset: off})
			}
		}
		off += len(line) + 1
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	doc.Pages, doc.Outline = pagesOf(text, heads, nil)
	doc.Title = repoTitle(doc.Path)
	return nil
}

// repoTitle names a file by its path inside the repository (the nearest
// folder above it holding .git), or else by its folder and name, with
// forward slashes: "backend/ingest/code.go".
func repoTitle(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Base(path)
	}
	home, _ := os.UserHomeDir()
	dir := filepath.Dir(abs)
	for range 40 {
		if dir == home || dir == filepath.Dir(dir) {
			break
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			if rel, err := filepath.Rel(dir, abs); err == nil {
				return filepath.ToSlash(rel)
			}
		}
		dir = filepath.Dir(dir)
	}
	return filepath.Base(filepath.Dir(abs)) + "/" + filepath.Base(abs)
}
