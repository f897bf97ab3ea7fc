package pdftext

import (
	"context"
	"os"
	"testing"
)

// BenchmarkCorpusExtract reads the text of every page of the pdfcpu
// corpus from documents pdfcpu has already read, on one goroutine: the
// extractor's own cost, without pdfcpu's parsing.
//
//	go test ./backend/ingest/pdftext -run '^$' -bench CorpusExtract
func BenchmarkCorpusExtract(b *testing.B) {
	_, files := corpusFiles(b)
	var docs []*Doc
	pages := 0
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		d, err := Open(read(b, data))
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, d)
		pages += d.NumPages()
	}
	b.ResetTimer()
	for range b.N {
		for _, d := range docs {
			if _, err := d.Extract(context.Background(), 1, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(pages*b.N)/b.Elapsed().Seconds(), "pages/s")
}
