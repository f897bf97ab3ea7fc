package ingest

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkCorpus ingests the whole pdfcpu corpus, one document after the
// other (each spread over the engine's instances), and reports pages/s.
//
//	go test ./backend/ingest -run '^$' -bench Corpus -benchtime 3x
func BenchmarkCorpus(b *testing.B) {
	benchCorpus(b, 1)
}

// BenchmarkCorpusConcurrent ingests the corpus with two documents in
// flight, as when the user drops a folder.
func BenchmarkCorpusConcurrent(b *testing.B) {
	benchCorpus(b, 2)
}

func benchCorpus(b *testing.B, inFlight int) {
	files := corpusFiles(b)
	if _, err := Warmup(context.Background()); err != nil {
		b.Fatal(err)
	}
	var pages atomic.Int64
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for range b.N {
		sem := make(chan struct{}, inFlight)
		var wg sync.WaitGroup
		for _, path := range files {
			sem <- struct{}{}
			wg.Go(func() {
				defer func() { <-sem }()
				doc, err := FileWithOptions(context.Background(), path, noOCR)
				if err != nil && !errors.Is(err, ErrNoText) {
					b.Errorf("%s: %v", filepath.Base(path), err)
					return
				}
				pages.Add(int64(len(doc.Pages)))
			})
		}
		wg.Wait()
	}
	el, cpu := time.Since(start), cpuTime()-cpu0
	b.ReportMetric(float64(pages.Load())/el.Seconds(), "pages/s")
	// Throughput per CPU-second depends less on how busy the machine is.
	if cpu > 0 {
		b.ReportMetric(float64(pages.Load())/cpu.Seconds(), "pages/cpu-s")
	}
	b.ReportMetric(float64(pages.Load())/float64(b.N), "pages/op")
}

// BenchmarkEngineStartup measures starting PDFium: "cold" compiles the
// WebAssembly module into an empty cache directory, "warm" loads it from
// the cache the cold run filled.
func BenchmarkEngineStartup(b *testing.B) {
	dir := b.TempDir()
	start := func(b *testing.B, dir string) {
		e, err := newEngine(dir, 1)
		if err != nil {
			b.Fatal(err)
		}
		in, err := e.acquire(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		e.release(in)
		if err := e.close(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("cold", func(b *testing.B) {
		for i := range b.N {
			start(b, filepath.Join(dir, "cold", string(rune('a'+i%26)), time.Now().Format("150405.000000000")))
		}
	})
	b.Run("warm", func(b *testing.B) {
		warm := filepath.Join(dir, "warm")
		start(b, warm)
		b.ResetTimer()
		for range b.N {
			start(b, warm)
		}
	})
}
