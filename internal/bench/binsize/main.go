// Command binsize prints what each module costs in a Go binary built with its symbol
// table (the release build strips it): the bytes of the file its functions and data
// take, from `go tool nm -size`, summed per module.
//
//	go build -trimpath -tags desktop,production -o /tmp/carrel . && go run ./internal/bench/binsize /tmp/carrel
//
// Zero-initialised variables (.bss, .noptrbss) take memory, not file bytes, and are left
// out. The runtime's per-function tables (.gopclntab, about as large again as the code)
// are not attributed, so the rows sum to less than the file.
package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

func main() {
	top := flag.Int("top", 25, "modules to print")
	flag.Parse()
	if flag.NArg() != 1 {
		log.Fatal("usage: binsize [-top N] BINARY")
	}
	if err := run(flag.Arg(0), *top); err != nil {
		log.Fatal(err)
	}
}

func run(bin string, top int) error {
	f, err := elf.Open(bin)
	if err != nil {
		return err
	}
	var nobits [][2]uint64
	for _, s := range f.Sections {
		if s.Type == elf.SHT_NOBITS {
			nobits = append(nobits, [2]uint64{s.Addr, s.Addr + s.Size})
		}
	}
	f.Close()
	mods, err := exec.Command("go", "list", "-m", "-f", "{{.Path}}", "all").Output()
	if err != nil {
		return fmt.Errorf("go list -m all: %w", err)
	}
	paths := strings.Fields(string(mods))
	// Longest module path first, so that a/b/v2 wins over a/b.
	sort.Slice(paths, func(i, j int) bool { return len(paths[i]) > len(paths[j]) })
	out, err := exec.Command("go", "tool", "nm", "-size", bin).Output()
	if err != nil {
		return fmt.Errorf("go tool nm: %w", err)
	}
	bytesOf := map[string]uint64{}
	var total uint64
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 4 {
			continue // undefined symbols have no address
		}
		addr, err1 := strconv.ParseUint(fs[0], 16, 64)
		size, err2 := strconv.ParseUint(fs[1], 10, 64)
		if err1 != nil || err2 != nil || inAny(addr, nobits) {
			continue
		}
		name := strings.Join(fs[3:], " ")
		bytesOf[owner(name, paths)] += size
		total += size
	}
	type row struct {
		name  string
		bytes uint64
	}
	var rows []row
	for k, v := range bytesOf {
		rows = append(rows, row{k, v})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].bytes > rows[j].bytes })
	st, err := os.Stat(bin)
	if err != nil {
		return err
	}
	fmt.Printf("%12d  %6.1f MB  the file (with its symbol table)\n", st.Size(), float64(st.Size())/1e6)
	fmt.Printf("%12d  %6.1f MB  all attributed symbols\n", total, float64(total)/1e6)
	for i, r := range rows {
		if i == top {
			break
		}
		fmt.Printf("%12d  %6.1f MB  %s\n", r.bytes, float64(r.bytes)/1e6, r.name)
	}
	return nil
}

func inAny(a uint64, ranges [][2]uint64) bool {
	for _, r := range ranges {
		if a >= r[0] && a < r[1] {
			return true
		}
	}
	return false
}

// owner names the module a symbol belongs to: a module of this source tree it starts
// with (generic instances count for the package that defines them), else one guessed
// from its package path (a binary built from another tree), else the standard library,
// the runtime's tables, or C code.
func owner(sym string, paths []string) string {
	for _, p := range paths {
		if strings.HasPrefix(sym, p+".") || strings.HasPrefix(sym, p+"/") {
			return p
		}
	}
	switch {
	case strings.HasPrefix(sym, "go:") || strings.HasPrefix(sym, "type:") || strings.HasPrefix(sym, "runtime."):
		return "(Go runtime and type data)"
	case strings.HasPrefix(sym, "_") || !strings.Contains(sym, "."):
		return "(C and C++: SQLite, FAISS, cgo glue)"
	}
	pkg := sym
	if i := strings.IndexAny(pkg, "(["); i >= 0 {
		pkg = pkg[:i]
	}
	slash := strings.LastIndex(pkg, "/")
	if dot := strings.Index(pkg[slash+1:], "."); dot >= 0 {
		pkg = pkg[:slash+1+dot]
	}
	elems := strings.Split(pkg, "/")
	if !strings.Contains(elems[0], ".") {
		return "(Go standard library)"
	}
	n := min(3, len(elems)) // host/owner/repo
	if n < len(elems) && len(elems[n]) > 1 && elems[n][0] == 'v' && strings.Trim(elems[n][1:], "0123456789") == "" {
		n++ // a major version suffix
	}
	return strings.Join(elems[:n], "/")
}
