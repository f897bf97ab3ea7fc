package intake_test

import (
	"context"
	"testing"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/intake"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testengine"
)

// verifies IngestFiles, which writes the lexical entries of several documents at once,
// leaves every chunk in the lexical index when it returns, each document findable.
func TestIngestFilesLexicalBatch(t *testing.T) {
	ctx := context.Background()
	eng := testengine.Open(t, engine.Config{})
	in := eng.Intake()
	const batch = 400 // filled several times, and a remainder written at the end
	defer intake.SetLexBatchSize(batch)()
	names := []string{"WaldenFull.pdf", "gobook.0.pdf", "T4.pdf", "schmager_plateau10.pdf"}
	words := []string{"pond", "compiler", "facsimile", "GoHotDraw"}
	var files []string
	for _, n := range names {
		files = append(files, testcorpus.File(t, n))
	}
	results, err := in.IngestFiles(ctx, files, 2, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	chunks := 0
	for _, r := range results {
		if r.Status != intake.Inserted {
			t.Fatalf("%+v", r)
		}
		chunks += r.Chunks
	}
	if chunks < batch {
		t.Fatalf("only %d chunks: the batch never filled up before the end", chunks)
	}
	units, err := in.LexicalUnits(ctx) // parents or chunks, whichever the index holds
	if err != nil {
		t.Fatal(err)
	}
	if n, err := in.Lexical().Count(); err != nil || n != uint64(units) || units < batch {
		t.Errorf("lexical index holds %d entries, the library %d (%v)", n, units, err)
	}
	for i, r := range results {
		hits, err := in.Lexical().Search(words[i], 1, []string{r.DocID})
		if err != nil || len(hits) == 0 {
			t.Errorf("%s: not in the lexical index (%v)", r.Path, err)
		}
	}
}
