// Command ingest times Carrel's ingestion of the pdfcpu test corpus through the
// real CLI and engine (extract, chunk, SQLite, BM25 index; Ollama unreachable,
// so no embeddings) and, in the same run, the peer extractors of the anchor
// script given with -anchor (extract_anchor.py, kept beside the repository and
// passed by the Taskfile's ANCHORS) on the same files. It prints one line:
//
//	ingest carrel_pages_per_s=X pymupdf_pages_per_s=Y pypdf_pages_per_s=Z ratio_vs_pymupdf=R
//
// Run it as `go tool task bench:ingest` from the repository root.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/envconfig"
	"github.com/carrel-app/carrel/internal/testcorpus"
)

func main() {
	anchor := flag.String("anchor", "", "the peer extractors' script (extract_anchor.py; the Taskfile passes it)")
	python := flag.String("python", "/usr/bin/python3", "Python with python3-fitz and python3-pypdf")
	corpus := flag.String("corpus", "", "folder of PDFs (default: the pdfcpu module's pkg/testdata)")
	verbose := flag.Bool("v", false, "print each document's outcome and the anchors' output")
	workers := flag.Int("workers", runtime.NumCPU(), "documents ingested at once")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of Carrel's ingest to this file")
	memprofile := flag.String("memprofile", "", "write an allocation profile of the whole run to this file")
	flag.Parse()
	if *memprofile != "" {
		runtime.MemProfileRate = 64 << 10
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			pprof.StartCPUProfile(f)
			defer pprof.StopCPUProfile()
		}
	}
	err := run(*anchor, *python, *corpus, *workers, *verbose)
	if *memprofile != "" {
		if f, ferr := os.Create(*memprofile); ferr == nil {
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
		}
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "bench:ingest:", err)
		os.Exit(1)
	}
}

func run(anchor, python, corpus string, workers int, verbose bool) error {
	if corpus == "" {
		dir, err := testcorpus.Folder()
		if err != nil {
			return err
		}
		corpus = dir
	}
	lib, err := os.MkdirTemp("", "carrel-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(lib)

	// The PDFs under corpus, as the anchor picks them.
	var files []string
	filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(strings.ToLower(p), ".pdf") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) == 0 {
		return fmt.Errorf("no PDFs under %s", corpus)
	}

	// Carrel, through the engine the CLI and the app drive. OCR is off: the anchors
	// read text layers only, and the corpus's 40-odd scanned pages would be timed
	// against Tesseract, not against PyMuPDF.
	os.Setenv(envconfig.OCRVar, "off")
	eng, err := engine.Open(engine.Config{Dir: lib, OllamaHost: "127.0.0.1:9"})
	if err != nil {
		return err
	}
	defer eng.Close()
	start, cpu0 := time.Now(), cpuSeconds()
	var lastDone time.Time // the tail after it is the final lexical write
	results, err := eng.Intake().IngestFiles(context.Background(), files, workers, nil, func(i int, r engine.Result) {
		lastDone = time.Now()
		if verbose {
			fmt.Fprintf(os.Stderr, "[%d/%d] %s: %s %s\n", i+1, len(files), filepath.Base(r.Path), r.Status, r.Error)
		}
	})
	secs, cpu := time.Since(start).Seconds(), cpuSeconds()-cpu0
	tail := time.Since(lastDone).Seconds()
	if err != nil {
		return fmt.Errorf("ingest: %w", err)
	}
	stored, failed := 0, 0
	for _, r := range results {
		stored += r.Pages
		if r.Status == engine.Failed {
			failed++
		}
	}
	fmt.Fprintf(os.Stderr, "carrel     files=%d no_text_or_failed=%d pages_stored=%d secs=%.2f cpu_secs=%.2f pages_per_cpu_s=%.1f tail_secs=%.2f workers=%d\n", len(files), failed, stored, secs, cpu, float64(stored)/cpu, tail, workers)

	// The anchors, on the same files.
	if anchor == "" {
		return errors.New("no -anchor script given: the ratio needs the peer extractors' pages (go tool task bench:ingest passes it)")
	}
	out, err := exec.Command(python, anchor, corpus).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %v\n%s", anchor, err, out)
	}
	if verbose {
		os.Stderr.Write(out)
	}
	// Pages are counted as the anchor counts them, over the same files: the
	// pages of documents without text were read too, but are not stored.
	pages, err := count(out, "pymupdf", "pages")
	if err != nil {
		return err
	}
	carrel := pages / secs
	mu, err := pagesPerSecond(out, "pymupdf")
	if err != nil {
		return err
	}
	py, err := pagesPerSecond(out, "pypdf")
	if err != nil {
		return err
	}
	fmt.Printf("ingest carrel_pages_per_s=%.1f pymupdf_pages_per_s=%.1f pypdf_pages_per_s=%.1f ratio_vs_pymupdf=%.2f\n", carrel, mu, py, carrel/mu)
	return nil
}

func pagesPerSecond(out []byte, name string) (float64, error) { return count(out, name, "pages_per_s") }

func count(out []byte, name, field string) (float64, error) {
	m := regexp.MustCompile(`(?m)^` + name + `\s.*\b` + field + `=([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("no %s line in the anchor's output:\n%s", name, out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// cpuSeconds is the CPU time (user and system) this process has used: on a machine
// shared with other work, pages per CPU-second vary less than pages per second.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
