// Command answer measures what Carrel adds on top of Ollama when answering, against the
// real test Ollama server (internal/testollama), and prints one line:
//
//	answer ttft_overhead_ms=X embed_ratio=Y
//
// ttft_overhead_ms is the median time to the first answer token through Carrel's answer
// path (prompt building, the llm client, streaming callbacks; retrieval excluded) minus
// the median of a direct streaming POST /api/chat with the same messages and options.
// embed_ratio is chunks per second embedded through Carrel (EmbedPending: batching,
// Ollama client, normalising, FAISS add and save, SQLite marks) divided by chunks per
// second of direct batched POST /api/embed of the same texts. Runs alternate between the
// two sides so that both see the same warm model and machine. Goals: ≤ 30 ms and ≥ 0.95.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/internal/testcorpus"
	"github.com/carrel-app/carrel/internal/testollama"
)

func main() {
	runs := flag.Int("runs", 15, "time-to-first-token runs per side")
	embedRuns := flag.Int("embed-runs", 3, "embedding runs per side")
	doc := flag.String("doc", "GoForOptimization.pdf", "pdfcpu test PDF whose chunks are embedded")
	flag.Parse()
	if err := run(*runs, *embedRuns, *doc); err != nil {
		fmt.Fprintln(os.Stderr, "bench answer:", err)
		os.Exit(1)
	}
}

func run(runs, embedRuns int, doc string) error {
	ctx := context.Background()
	srv, err := testollama.StartServer(ctx, "", nil)
	if err != nil {
		return err
	}
	defer srv.Close()
	tmp, err := os.MkdirTemp("", "carrel-bench-answer-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	overhead, err := ttft(ctx, srv, runs)
	if err != nil {
		return err
	}
	ratio, err := embedRatio(ctx, srv, tmp, doc, embedRuns)
	if err != nil {
		return err
	}
	fmt.Printf("answer ttft_overhead_ms=%.1f embed_ratio=%.3f\n", overhead, ratio)
	return nil
}

// passages are fixed, so that retrieval is excluded and both sides get one prompt.
var passages = []chat.Passage{
	{N: 1, DocTitle: "Walden", Page: 12, Text: strings.Repeat("I went to the woods because I wished to live deliberately, to front only the essential facts of life. ", 6)},
	{N: 2, DocTitle: "Walden", Page: 13, Text: strings.Repeat("Our life is frittered away by detail. Simplify, simplify. ", 8)},
	{N: 3, DocTitle: "FAISS", Page: 3, Text: strings.Repeat("An IndexFlatIP performs exhaustive inner product search over all stored vectors. ", 6)},
}

const (
	question  = "Why did Thoreau go to the woods?"
	numCtx    = 4096
	maxTokens = 8
)

func ttft(ctx context.Context, srv *testollama.Server, runs int) (float64, error) {
	ol := llm.NewOllama(srv.Host)
	msgs, _ := chat.Messages(question, passages, numCtx-maxTokens)
	viaCarrel := func() (time.Duration, error) {
		began := time.Now()
		var first time.Duration
		_, err := chat.Respond(ctx, chat.Request{Question: question, Passages: passages, Model: ol, ModelName: srv.ChatModel,
			NumCtx: numCtx, MaxTokens: maxTokens, KeepAlive: engine.DefaultKeepAlive}, func(ev chat.Event) error {
			if !ev.IsStart && first == 0 {
				first = time.Since(began)
			}
			return nil
		})
		if first == 0 && err == nil {
			err = fmt.Errorf("no token arrived")
		}
		return first, err
	}
	body, _ := json.Marshal(map[string]any{"model": srv.ChatModel, "messages": msgs, "stream": true,
		"keep_alive": engine.DefaultKeepAlive.String(), "options": map[string]any{"num_ctx": numCtx, "num_predict": maxTokens}})
	direct := func() (time.Duration, error) {
		began := time.Now()
		resp, err := http.Post(srv.Host+"/api/chat", "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var first time.Duration
		for sc.Scan() {
			var r struct {
				Message struct{ Content string } `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &r) == nil && r.Message.Content != "" && first == 0 {
				first = time.Since(began)
			}
		}
		if first == 0 {
			return 0, fmt.Errorf("direct /api/chat: no token arrived (%s)", resp.Status)
		}
		return first, nil
	}
	// Warm up: load the model with this num_ctx on both paths.
	for range 2 {
		if _, err := direct(); err != nil {
			return 0, err
		}
		if _, err := viaCarrel(); err != nil {
			return 0, err
		}
	}
	var c, d []float64
	for i := range runs {
		order := []func() (time.Duration, error){viaCarrel, direct}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for j, f := range order {
			t, err := f()
			if err != nil {
				return 0, err
			}
			ms := float64(t.Microseconds()) / 1000
			if (j == 0) == (i%2 == 0) {
				c = append(c, ms)
			} else {
				d = append(d, ms)
			}
		}
	}
	return median(c) - median(d), nil
}

func embedRatio(ctx context.Context, srv *testollama.Server, tmp, doc string, runs int) (float64, error) {
	root, err := testcorpus.Folder()
	if err != nil {
		return 0, err
	}
	pdf := filepath.Join(root, doc)
	// A library with the document's chunks stored but not embedded (no embedding model).
	base := filepath.Join(tmp, "base")
	eng, err := engine.Open(engine.Config{Dir: base, OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: "absent-embedder"})
	if err != nil {
		return 0, err
	}
	if r, err := eng.Intake().IngestFile(ctx, pdf, nil); err != nil || r.Status != engine.Inserted {
		eng.Close()
		return 0, fmt.Errorf("ingest %s: %+v %v", doc, r, err)
	}
	var texts []string
	eng.Library().EachChunk(ctx, func(c library.Chunk, _ string) error {
		texts = append(texts, c.Text)
		return nil
	})
	eng.Close()
	if len(texts) == 0 {
		return 0, fmt.Errorf("%s has no chunks", doc)
	}

	viaCarrel := func(i int) (float64, error) {
		dir := filepath.Join(tmp, fmt.Sprintf("run%d", i))
		if err := exec.Command("cp", "-r", base, dir).Run(); err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		eng, err := engine.Open(engine.Config{Dir: dir, OllamaHost: srv.Host, ChatModel: srv.ChatModel, EmbedModel: srv.EmbedModel})
		if err != nil {
			return 0, err
		}
		defer eng.Close()
		eng.Status(ctx) // the status check is not part of embedding
		began := time.Now()
		n, err := eng.Intake().EmbedPending(ctx)
		if err != nil || n != len(texts) {
			return 0, fmt.Errorf("EmbedPending: %d of %d chunks: %v", n, len(texts), err)
		}
		return float64(n) / time.Since(began).Seconds(), nil
	}
	direct := func() (float64, error) {
		began := time.Now()
		for start := 0; start < len(texts); start += llm.DefaultEmbedBatch {
			batch := texts[start:min(len(texts), start+llm.DefaultEmbedBatch)]
			body, _ := json.Marshal(map[string]any{"model": srv.EmbedModel, "input": batch})
			resp, err := http.Post(srv.Host+"/api/embed", "application/json", bytes.NewReader(body))
			if err != nil {
				return 0, err
			}
			var r struct {
				Embeddings [][]float32 `json:"embeddings"`
			}
			err = json.NewDecoder(resp.Body).Decode(&r)
			resp.Body.Close()
			if err != nil || len(r.Embeddings) != len(batch) {
				return 0, fmt.Errorf("direct /api/embed: %d vectors for %d texts: %v", len(r.Embeddings), len(batch), err)
			}
		}
		return float64(len(texts)) / time.Since(began).Seconds(), nil
	}
	if _, err := direct(); err != nil { // warm up
		return 0, err
	}
	var c, d []float64
	for i := range runs {
		x, err := viaCarrel(i)
		if err != nil {
			return 0, err
		}
		y, err := direct()
		if err != nil {
			return 0, err
		}
		c, d = append(c, x), append(d, y)
	}
	return median(c) / median(d), nil
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
