// Command embed (go tool task bench:embed) measures ingesting with a real embedder: it adds
// the pdfcpu corpus (or one of its PDFs, -doc) to a new Carrel library with all-MiniLM-L6-v2
// through the real test Ollama (internal/testollama), then embeds the same children by
// calling POST /api/embed directly, and prints one line:
//
//	embed carrel_chunks_per_s=A direct_chunks_per_s=B ratio=A/B ready_s=T
//
// ready_s is the wall time from the start of the ingest until every document is ready and
// every child has its vector (searchable by meaning); carrel_chunks_per_s is the children
// over ready_s, so extraction, chunking, SQLite, bleve and FAISS all count against Carrel.
// direct_chunks_per_s is the same texts through /api/embed in batches of the size Carrel
// sends, with the same options (num_ctx, num_thread: llm.Ollama.EmbedOptions; set
// CARREL_EMBED_THREADS to measure other threads on both sides), one request after
// another: the runner embeds one input at a time (Ollama loads embedding models with one
// slot), so that is the fastest way found. -runs repeats both sides alternately and prints the median of each with its
// spread (min–max) on stderr. Goals: ratio ≥ 0.95; WaldenFull.pdf (-doc) ready within 60 s.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
)

func main() {
	doc := flag.String("doc", "", "one PDF of the pdfcpu corpus (e.g. WaldenFull.pdf) instead of the whole corpus")
	runs := flag.Int("runs", 1, "runs per side")
	flag.Parse()
	if err := run(*doc, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "bench embed:", err)
		os.Exit(1)
	}
}

func run(doc string, runs int) error {
	ctx := context.Background()
	srv, err := testollama.StartMiniLMServer(ctx, "", nil)
	if err != nil {
		return err
	}
	defer srv.Close()
	model := testollama.MiniLMModel
	paths, err := corpus(doc)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "carrel-bench-embed-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	client := llm.NewOllama(srv.Host)
	if _, err := client.Embed(ctx, model, []string{"warm up"}); err != nil { // load the runner
		return err
	}
	opts := client.EmbedOptions(ctx, model) // as Carrel's engine sends them (num_ctx, num_thread)
	fmt.Fprintf(os.Stderr, "bench embed: options %v\n", opts)

	var carrel, direct, ready []float64
	var texts []string
	for i := range runs {
		dir := filepath.Join(tmp, fmt.Sprintf("lib%d", i))
		eng, err := engine.Open(engine.Config{Dir: dir, OllamaHost: srv.Host, EmbedModel: model})
		if err != nil {
			return err
		}
		eng.Status(ctx) // the status check is not part of ingesting
		loadBefore := loadAvg()
		began := time.Now()
		// Vectors are searchable as their batch lands (the index is searched whatever
		// the document's state): first is when the first batch of the run landed, asked
		// when embedding began (the children stored) and last when the last one landed.
		var first, asked, last atomic.Int64
		progress := func(d library.Document) {
			if d.Status == library.StatusEmbedding {
				now := int64(time.Since(began))
				asked.CompareAndSwap(0, now)
				if d.Done > 0 {
					first.CompareAndSwap(0, now)
					last.Store(now)
				}
			}
		}
		res, err := eng.Intake().IngestFiles(ctx, paths, 0, progress, nil)
		took := time.Since(began).Seconds()
		if err == nil {
			texts, err = children(ctx, eng.Library())
		}
		eng.Close()
		if err != nil {
			return err
		}
		for j, r := range res {
			if r.Status == engine.Failed {
				fmt.Fprintf(os.Stderr, "bench embed: %s failed: %s\n", filepath.Base(paths[j]), r.Error)
			}
		}
		carrel, ready = append(carrel, float64(len(texts))/took), append(ready, took)

		d, err := embedDirect(ctx, srv.Host, model, opts, texts)
		if err != nil {
			return err
		}
		direct = append(direct, d)
		sec := func(n *atomic.Int64) float64 { return time.Duration(n.Load()).Seconds() }
		fmt.Fprintf(os.Stderr, "bench embed: run %d: %d children, carrel %.1f/s (embedding from %.1f s, first vectors %.1f s, last %.1f s, ready %.1f s), direct %.1f/s, load %s -> %s\n",
			i+1, len(texts), carrel[i], sec(&asked), sec(&first), sec(&last), took, d, loadBefore, loadAvg())
	}
	a, b, t := median(carrel), median(direct), median(ready)
	if runs > 1 {
		fmt.Fprintf(os.Stderr, "bench embed: %d runs, median (min–max): carrel %.1f (%.1f–%.1f) direct %.1f (%.1f–%.1f) ready_s %.1f (%.1f–%.1f)\n",
			runs, a, slices.Min(carrel), slices.Max(carrel), b, slices.Min(direct), slices.Max(direct), t, slices.Min(ready), slices.Max(ready))
	}
	fmt.Printf("embed carrel_chunks_per_s=%.1f direct_chunks_per_s=%.1f ratio=%.3f ready_s=%.1f\n", a, b, a/b, t)
	return nil
}

// children returns the texts of every child in the library, and fails unless each has
// its vector.
func children(ctx context.Context, lib *library.Library) ([]string, error) {
	if left, err := lib.Unembedded(ctx, 10); err != nil || len(left) > 0 {
		return nil, fmt.Errorf("%d+ children left without a vector after the ingest (%v)", len(left), err)
	}
	var texts []string
	err := lib.EachChunk(ctx, func(c library.Chunk, _ string) error {
		texts = append(texts, c.Text)
		return nil
	})
	return texts, err
}

// embedDirect embeds texts with POST /api/embed in Carrel's batch size and options and
// returns texts per second.
func embedDirect(ctx context.Context, host, model string, opts map[string]any, texts []string) (float64, error) {
	began := time.Now()
	for start := 0; start < len(texts); start += llm.DefaultEmbedBatch {
		batch := texts[start:min(len(texts), start+llm.DefaultEmbedBatch)]
		body, _ := json.Marshal(map[string]any{"model": model, "input": batch, "options": opts})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, host+"/api/embed", bytes.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		var r struct {
			Embeddings [][]float32 `json:"embeddings"`
			Error      string      `json:"error"`
		}
		err = json.NewDecoder(resp.Body).Decode(&r)
		resp.Body.Close()
		if err != nil || len(r.Embeddings) != len(batch) {
			return 0, fmt.Errorf("direct /api/embed: %d vectors for %d texts: %v %s", len(r.Embeddings), len(batch), err, r.Error)
		}
	}
	return float64(len(texts)) / time.Since(began).Seconds(), nil
}

// corpus lists the pdfcpu corpus's PDFs, or the one named doc.
func corpus(doc string) ([]string, error) {
	root, err := testcorpus.Folder()
	if err != nil {
		return nil, err
	}
	if doc != "" {
		return []string{filepath.Join(root, doc)}, nil
	}
	var paths []string
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.EqualFold(filepath.Ext(p), ".pdf") {
			paths = append(paths, p)
		}
		return err
	})
	return paths, err
}

// loadAvg is the machine's load average over 1, 5 and 15 minutes, or "?" where there is
// no /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "?"
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
