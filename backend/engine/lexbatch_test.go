package engine

import (
	"context"
	"testing"

	"github.com/carrel-app/carrel/internal/testcorpus"
)

// verifies IngestFiles, which writes the lexical entries of several documents at once,
// leaves every chunk in the lexical index when it returns, each document findable.
func TestIngestFilesLexicalBatch(t *testing.T) {
	ctx := context.Background()
	eng := openEngine(t, Config{})
	defer func(n int) { lexBatchSize = n }(lexBatchSize)
	lexBatchSize = 400 // filled several times, and a remainder written at the end
	names := []string{"WaldenFull.pdf", "gobook.0.pdf", "T4.pdf", "schmager_plateau10.pdf"}
	words := []string{"pond", "compiler", "facsimile", "GoHotDraw"}
	var files []string
	for _, n := range names {
		files = append(files, testcorpus.File(t, n))
	}
	results, err := eng.IngestFiles(ctx, files, 2, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for _, r := range results {
		if r.Status != Inserted {
			t.Fatalf("%+v", r)
		}
		chunks += r.Chunks
	}
	if chunks < lexBatchSize {
		t.Fatalf("only %d chunks: the batch never filled up before the end", chunks)
	}
	units, err := eng.lexicalUnits(ctx) // parents or chunks, whichever the index holds
	if err != nil {
		t.Fatal(err)
	}
	if n, err := eng.lex.Count(); err != nil || n != uint64(units) || units < lexBatchSize {
		t.Errorf("lexical index holds %d entries, the library %d (%v)", n, units, err)
	}
	for i, r := range results {
		hits, err := eng.lex.Search(words[i], 1, []string{r.DocID})
		if err != nil || len(hits) == 0 {
			t.Errorf("%s: not in the lexical index (%v)", r.Path, err)
		}
	}
}
