package ingest

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Supported reports whether Carrel can ingest a file with this name: PDF,
// Word, EPUB, mail, web pages, text, Markdown and source files.
func Supported(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	switch {
	case ext == ".pdf", ext == ".epub", ext == ".eml", ext == ".mht", ext == ".mhtml":
		return true
	case docxExts[ext], htmlExts[ext], textExts[ext], mediaExts[ext] != "":
		return true
	}
	return isCode(path)
}

// skipDirs are folders never worth reading, even without a .gitignore.
var skipDirs = map[string]bool{"node_modules": true, "__pycache__": true, "bower_components": true}

// Expand replaces folders in paths by the supported files inside them,
// sorted, and keeps plain files as given (so that an unsupported one gets
// its error). Inside folders it skips hidden files and folders, what the
// folders' .gitignore files exclude, node_modules and the like, generated
// files (lock files, minified bundles), source files over
// [MaxCodeFileSize], binary files whatever their name, and the "_files"
// folder a browser saves beside a web page.
func Expand(paths []string) []string {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil || !info.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		walk(p, nil, &found)
		sort.Strings(found)
		out = append(out, found...)
	}
	return out
}

// walk adds the files to ingest under dir to found; ignores holds the
// .gitignore rules of the folders above.
func walk(dir string, ignores []*ignoreFile, found *[]string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	if ig := readIgnore(dir); ig != nil {
		ignores = append(ignores[:len(ignores):len(ignores)], ig)
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[strings.ToLower(e.Name())] = true
	}
	for _, e := range entries {
		name := e.Name()
		p := filepath.Join(dir, name)
		if strings.HasPrefix(name, ".") || ignored(ignores, p, e.IsDir()) {
			continue
		}
		if e.IsDir() {
			lower := strings.ToLower(name)
			if skipDirs[lower] {
				continue
			}
			// "Page_files" beside "Page.html": a saved page's images and scripts.
			if stem, ok := strings.CutSuffix(lower, "_files"); ok && (names[stem+".html"] || names[stem+".htm"]) {
				continue
			}
			walk(p, ignores, found)
			continue
		}
		if !e.Type().IsRegular() || !Supported(p) || generatedFile(name) {
			continue
		}
		if isCode(p) || textExts[strings.ToLower(filepath.Ext(p))] {
			if info, err := e.Info(); err != nil || info.Size() > MaxCodeFileSize || info.Size() == 0 || binaryFile(p) {
				continue
			}
		}
		*found = append(*found, p)
	}
}

func generatedFile(name string) bool {
	lower := strings.ToLower(name)
	return generated[lower] || strings.Contains(lower, ".min.") || strings.HasSuffix(lower, ".map")
}

// binaryFile reports whether the file's first bytes look binary.
func binaryFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	buf := make([]byte, 8192)
	n, _ := io.ReadFull(f, buf)
	return looksBinary(buf[:n])
}

// ignoreFile is one folder's .gitignore.
type ignoreFile struct {
	dir   string
	rules []ignoreRule
}

type ignoreRule struct {
	re      *regexp.Regexp // matches the path relative to dir, with "/"
	negate  bool
	dirOnly bool
}

// readIgnore reads dir/.gitignore, or returns nil.
func readIgnore(dir string) *ignoreFile {
	f, err := os.Open(filepath.Join(dir, ".gitignore"))
	if err != nil {
		return nil
	}
	defer f.Close()
	ig := &ignoreFile{dir: dir}
	sc := bufio.NewScanner(io.LimitReader(f, 1<<20))
	for sc.Scan() {
		if r, ok := parseIgnore(sc.Text()); ok {
			ig.rules = append(ig.rules, r)
		}
	}
	return ig
}

// parseIgnore compiles one .gitignore line (see gitignore(5)).
func parseIgnore(line string) (ignoreRule, bool) {
	var r ignoreRule
	line = strings.TrimRight(line, " \t\r")
	if line == "" || strings.HasPrefix(line, "#") {
		return r, false
	}
	if strings.HasPrefix(line, "!") {
		r.negate, line = true, line[1:]
	} else if strings.HasPrefix(line, `\`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return r, false
	}
	// A pattern with a slash (other than at its end) is relative to the
	// .gitignore's folder; one without matches at any depth.
	anchored := strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	var b strings.Builder
	b.WriteString("^")
	if !anchored {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case strings.HasPrefix(line[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(line[i:], "/**") && i+3 == len(line):
			b.WriteString("/.*")
			i += 2
		case strings.HasPrefix(line[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			j := strings.IndexByte(line[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := line[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case c == '\\' && i+1 < len(line):
			i++
			b.WriteString(regexp.QuoteMeta(string(line[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	// A match of a folder covers everything inside it.
	b.WriteString("(?:/.*)?$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return r, false
	}
	r.re = re
	return r, true
}

// ignored reports whether the .gitignore files in ignores exclude path: the
// last matching rule, from the deepest folder's file, decides.
func ignored(ignores []*ignoreFile, path string, isDir bool) bool {
	verdict := false
	for _, ig := range ignores {
		rel, err := filepath.Rel(ig.dir, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		rel = filepath.ToSlash(rel)
		for _, r := range ig.rules {
			if r.dirOnly && !isDir && !ruleMatchesParent(r, rel) {
				continue
			}
			if r.re.MatchString(rel) {
				verdict = !r.negate
			}
		}
	}
	return verdict
}

// ruleMatchesParent reports whether a folder-only rule matches one of the
// folders above rel (then rel, a file, is inside an ignored folder).
func ruleMatchesParent(r ignoreRule, rel string) bool {
	for i := strings.LastIndexByte(rel, '/'); i > 0; i = strings.LastIndexByte(rel[:i], '/') {
		if r.re.MatchString(rel[:i]) {
			return true
		}
	}
	return false
}
