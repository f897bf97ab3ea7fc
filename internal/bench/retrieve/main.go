// Command retrieve benchmarks Carrel's hybrid retrieval (BM25 in bleve + FAISS + RRF) at
// growing library sizes and runs the peer anchor (../shared/anchors/retrieval_anchor.py)
// in the same run, printing one line per size:
//
//	retrieve n=N carrel_p50_ms=A carrel_p99_ms=B anchor_p50_ms=C ratio=C/A rss_mb=M
//
// The libraries are real corpus text (pdfcpu's test PDFs, ingested and chunked by Carrel)
// replicated with a " ~rK" suffix, as the anchor does; vectors are random unit 384-d
// vectors, and the query embedding is not timed (both as in the anchor). Built indexes are
// cached under -cache and reused. The anchor's hybrid p50 (its BM25 full scan, FAISS flat,
// RRF, parents) is the comparison; it measures 10k and 100k only, so larger sizes print
// anchor_p50_ms=na and a retrieve-note line with the anchor's 100k time scaled linearly
// (its BM25 is a full scan), marked as an estimate. The recall@10 of the timed vector
// search against an exact scan, and CPU time per query, go to stderr.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/index"
	"github.com/carrel-app/carrel/backend/library"
	"github.com/carrel-app/carrel/backend/retrieve"
)

const (
	dim       = 384
	benchTopK = 10
	model     = "bench-random-384"
)

func main() {
	corpus := flag.String("corpus", "", "folder of PDFs (default: pdfcpu's pkg/testdata via go list)")
	cache := flag.String("cache", filepath.Join(os.TempDir(), "carrel-bench-retrieve"), "where built libraries are kept between runs")
	sizesFlag := flag.String("sizes", "10000,100000", "library sizes in chunks, comma-separated")
	nq := flag.Int("queries", 500, "queries per size")
	anchor := flag.String("anchor", "../shared/anchors/retrieval_anchor.py", "anchor script; \"\" skips it")
	python := flag.String("python", "/usr/bin/python3", "python for the anchor")
	mode := flag.String("mode", "hybrid", "carrel search mode timed: hybrid, lexical or vector")
	ivfMin := flag.Int("ivf", 0, "switch the vector store to IVF at this many vectors (0: flat; see index.Vectors.SetIVF)")
	nprobeDiv := flag.Int("nprobe-div", 8, "with -ivf, probe nlist/N lists")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the timed queries to this file")
	flag.Parse()
	log := func(f string, a ...any) { fmt.Fprintf(os.Stderr, "bench: "+f+"\n", a...) }

	if *corpus == "" {
		out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/pdfcpu/pdfcpu").Output()
		if err != nil {
			fail(fmt.Errorf("find the pdfcpu corpus (give -corpus): %w", err))
		}
		*corpus = filepath.Join(strings.TrimSpace(string(out)), "pkg", "testdata")
	}
	var sizes []int
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fail(fmt.Errorf("bad size %q", s))
		}
		sizes = append(sizes, n)
	}
	m, err := retrieve.ParseMode(*mode)
	if err != nil {
		fail(err)
	}

	chunks, err := corpusChunks(filepath.Join(*cache, "src"), *corpus)
	if err != nil {
		fail(err)
	}
	log("%d real chunks from %s", len(chunks), *corpus)

	// The anchor first, alone on the machine (it takes about two minutes).
	anchorP50 := map[int]float64{}
	if *anchor != "" {
		log("running the anchor %s", *anchor)
		if anchorP50, err = runAnchor(*python, *anchor, *corpus); err != nil {
			log("anchor failed: %v (ratios print na)", err)
		}
	}

	rng := rand.New(rand.NewPCG(20240601, 1))
	queries := makeQueries(rng, chunks, *nq)
	qvecs := make([][]float32, *nq)
	for i := range qvecs {
		qvecs[i] = randomUnit(rng)
	}

	for _, n := range sizes {
		dir := filepath.Join(*cache, fmt.Sprintf("n%d", n))
		lex, vec, err := openOrBuild(dir, chunks, n, log)
		if err != nil {
			fail(err)
		}
		// Exact answers (a scan of every float vector) for a sample of the queries,
		// to report the recall of the search that is timed (the 8-bit scan with
		// exact re-rank, or IVF with -ivf).
		nr := min(len(qvecs), 100)
		exact := make([][]index.VectorHit, nr)
		for i := range nr {
			if exact[i], err = vec.SearchExact(qvecs[i], benchTopK); err != nil {
				fail(err)
			}
		}
		what := "8-bit scan + exact re-rank"
		if *ivfMin > 0 {
			t := time.Now()
			if err := vec.SetIVF(*ivfMin, *nprobeDiv); err != nil {
				fail(err)
			}
			log("n=%d vectors rebuilt for -ivf %d in %.0fs", n, *ivfMin, time.Since(t).Seconds())
			what = fmt.Sprintf("ivf nprobe=nlist/%d", *nprobeDiv)
		}
		found, total := 0, 0
		for i := range nr {
			got, err := vec.Search(qvecs[i], benchTopK, nil)
			if err != nil {
				fail(err)
			}
			for _, w := range exact[i] {
				total++
				for _, g := range got {
					if g.ID == w.ID {
						found++
						break
					}
				}
			}
		}
		log("n=%d vector recall@%d of %s vs exact flat: %.3f (%d queries)", n, benchTopK, what, float64(found)/float64(max(1, total)), nr)
		store := replicaStore{chunks: chunks}
		r := &retrieve.Retriever{Lexical: lexAdapter{lex}, Store: store}
		var qi int
		r.Dense = denseAdapter{vec: vec, q: func() []float32 { return qvecs[qi] }}
		ctx := context.Background()
		for qi = 0; qi < 5; qi++ { // warm-up, not counted
			if _, err := r.Search(ctx, queries[qi], retrieve.Options{K: benchTopK, Mode: m}); err != nil {
				fail(err)
			}
		}
		if *cpuProfile != "" {
			f, err := os.Create(fmt.Sprintf("%s.n%d", *cpuProfile, n))
			if err != nil {
				fail(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				fail(err)
			}
		}
		ms := make([]float64, 0, *nq)
		hits := 0
		cpu0 := cpuTime()
		for qi = 0; qi < *nq; qi++ {
			t := time.Now()
			hs, err := r.Search(ctx, queries[qi], retrieve.Options{K: benchTopK, Mode: m})
			ms = append(ms, float64(time.Since(t).Microseconds())/1000)
			if err != nil {
				fail(err)
			}
			hits += len(hs)
		}
		if *cpuProfile != "" {
			pprof.StopCPUProfile()
		}
		sort.Float64s(ms)
		p50, p99 := pct(ms, 50), pct(ms, 99)
		anchorS, ratioS := "na", "na"
		if a, ok := anchorP50[n]; ok {
			anchorS, ratioS = fmt.Sprintf("%.3g", a), fmt.Sprintf("%.1f", a/p50)
		}
		fmt.Printf("retrieve n=%d carrel_p50_ms=%.3g carrel_p99_ms=%.3g anchor_p50_ms=%s ratio=%s rss_mb=%d\n",
			n, p50, p99, anchorS, ratioS, rssMB())
		if _, ok := anchorP50[n]; !ok && len(anchorP50) > 0 {
			// The anchor stops at 100k (its BM25 is a Python full scan). Its hybrid
			// time grows linearly with n (one pass over every chunk per query), so
			// the comparable figure is its largest size scaled up: an estimate, said so.
			an, ap := 0, 0.0
			for k, v := range anchorP50 {
				if k > an {
					an, ap = k, v
				}
			}
			est := ap * float64(n) / float64(an)
			fmt.Printf("retrieve-note n=%d anchor_measured=no anchor_linear_estimate_ms=%.4g (from n=%d, %.3g ms) ratio_estimate=%.1f\n",
				n, est, an, ap, est/p50)
		}
		log("n=%d mode=%s queries=%d mean_hits=%.1f cpu_ms_per_query=%.2f", n, m, *nq, float64(hits)/float64(*nq),
			float64((cpuTime()-cpu0).Microseconds())/1000/float64(*nq))
		lex.Close()
		vec.Close()
		runtime.GC()
		debug.FreeOSMemory()
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench:", err)
	os.Exit(1)
}

func pct(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

// cpuTime is the CPU time the process has used (user and system): unlike wall time, it
// barely moves when other processes share the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssMB is the process's resident memory now.
func rssMB() int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb / 1024
		}
	}
	return -1
}

// corpusChunks ingests the corpus with Carrel itself (lexical only, no model) into dir once,
// and returns its chunks in library order.
func corpusChunks(dir, corpus string) ([]library.Chunk, error) {
	cfg := engine.Config{Dir: dir, OllamaHost: "127.0.0.1:1"}
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		os.RemoveAll(dir)
		eng, err := engine.Open(cfg)
		if err != nil {
			return nil, err
		}
		for _, p := range engine.ExpandPaths([]string{corpus}) {
			if _, err := eng.IngestFile(context.Background(), p, nil); err != nil {
				eng.Close()
				return nil, err
			}
		}
		eng.Close()
		if err := os.WriteFile(filepath.Join(dir, ".complete"), nil, 0o644); err != nil {
			return nil, err
		}
	}
	lib, err := library.Open(dir)
	if err != nil {
		return nil, err
	}
	defer lib.Close()
	var out []library.Chunk
	err = lib.EachChunk(context.Background(), func(c library.Chunk, title string) error {
		out = append(out, c)
		return nil
	})
	if len(out) == 0 && err == nil {
		err = errors.New("the corpus gave no chunks")
	}
	return out, err
}

// replica returns the text and seq of chunk i of a library of replicated real chunks.
func replica(chunks []library.Chunk, i int) (seq int64, text string) {
	k := i / len(chunks)
	text = chunks[i%len(chunks)].Text
	if k > 0 {
		text += fmt.Sprintf(" ~r%d", k)
	}
	return int64(i + 1), text
}

// openOrBuild opens the indexes of an n-chunk library in dir, building them first if the
// cache has none.
func openOrBuild(dir string, chunks []library.Chunk, n int, log func(string, ...any)) (*index.Lexical, *index.Vectors, error) {
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err != nil {
		os.RemoveAll(dir)
		log("building n=%d in %s", n, dir)
		start := time.Now()
		lex, err := index.OpenLexical(filepath.Join(dir, "bleve"))
		if err != nil {
			return nil, nil, err
		}
		vec, err := index.OpenVectors(filepath.Join(dir, "vectors"))
		if err != nil {
			return nil, nil, err
		}
		if err := vec.Reset(model, dim); err != nil {
			return nil, nil, err
		}
		rng := rand.New(rand.NewPCG(uint64(n), 7))
		const batch = 2000
		for lo := 0; lo < n; lo += batch {
			hi := min(n, lo+batch)
			docs := make([]index.LexDoc, 0, hi-lo)
			ids := make([]int64, 0, hi-lo)
			vecs := make([][]float32, 0, hi-lo)
			for i := lo; i < hi; i++ {
				seq, text := replica(chunks, i)
				c := chunks[i%len(chunks)]
				docs = append(docs, index.LexDoc{ID: strconv.FormatInt(seq, 10), DocID: c.DocID, Section: c.Section, Text: text})
				ids = append(ids, seq)
				vecs = append(vecs, randomUnit(rng))
			}
			if err := lex.Add(docs); err != nil {
				return nil, nil, err
			}
			if err := vec.Add(ids, vecs); err != nil {
				return nil, nil, err
			}
			if hi%50000 == 0 {
				log("  %d/%d (%.0fs)", hi, n, time.Since(start).Seconds())
			}
		}
		if err := vec.Save(); err != nil {
			return nil, nil, err
		}
		lex.Close()
		vec.Close()
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return nil, nil, err
		}
		log("built n=%d in %.0fs", n, time.Since(start).Seconds())
	}
	lex, err := index.OpenLexical(filepath.Join(dir, "bleve"))
	if err != nil {
		return nil, nil, err
	}
	vec, err := index.OpenVectors(filepath.Join(dir, "vectors"))
	if err != nil {
		lex.Close()
		return nil, nil, err
	}
	return lex, vec, nil
}

func randomUnit(rng *rand.Rand) []float32 {
	v := make([]float32, dim)
	var s float64
	for i := range v {
		x := rng.NormFloat64()
		v[i] = float32(x)
		s += x * x
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// makeQueries draws n queries of 3 to 8 consecutive words (of 3+ characters' chunks) from
// the real chunks, as the anchor does.
func makeQueries(rng *rand.Rand, chunks []library.Chunk, n int) []string {
	out := make([]string, 0, n)
	for len(out) < n {
		w := strings.Fields(strings.ToLower(chunks[rng.IntN(len(chunks))].Text))
		if len(w) < 3 {
			continue
		}
		k := 3 + rng.IntN(6)
		s := rng.IntN(max(1, len(w)-k+1))
		out = append(out, strings.Join(w[s:min(len(w), s+k)], " "))
	}
	return out
}

var anchorLine = regexp.MustCompile(`^latency method=hybrid N=(\d+) .*?p50_ms=([0-9.eE+-]+)`)

// runAnchor runs the anchor script and returns its hybrid p50 per size.
func runAnchor(python, script, corpus string) (map[int]float64, error) {
	cmd := exec.Command(python, script, corpus)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	res := map[int]float64{}
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(os.Stderr, "anchor:", line)
		if m := anchorLine.FindStringSubmatch(line); m != nil {
			n, _ := strconv.Atoi(m[1])
			v, _ := strconv.ParseFloat(m[2], 64)
			res[n] = v
		}
	}
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		return res, err
	}
	return res, nil
}

type lexAdapter struct{ l *index.Lexical }

func (a lexAdapter) SearchLexical(_ context.Context, q string, k int, docIDs []string) ([]retrieve.Ranked, error) {
	hits, err := a.l.Search(q, k, docIDs)
	if err != nil {
		return nil, err
	}
	out := make([]retrieve.Ranked, 0, len(hits))
	for _, h := range hits {
		seq, err := strconv.ParseInt(h.ID, 10, 64)
		if err == nil {
			out = append(out, retrieve.Ranked{Seq: seq, Score: h.Score})
		}
	}
	return out, nil
}

// QueryTerms and TextTerms make the "nothing relevant" gate run, as in the app.
func (a lexAdapter) QueryTerms(_ context.Context, q string) ([]retrieve.TermWeight, error) {
	tw, err := a.l.QueryTerms(q)
	out := make([]retrieve.TermWeight, len(tw))
	for i, t := range tw {
		out[i] = retrieve.TermWeight(t)
	}
	return out, err
}

func (a lexAdapter) TextTerms(text string) map[string]bool { return a.l.TextTerms(text) }

// denseAdapter searches with the current random query vector (embedding not timed).
type denseAdapter struct {
	vec *index.Vectors
	q   func() []float32
}

func (a denseAdapter) SearchDense(_ context.Context, _ string, k int, _ []string) ([]retrieve.Ranked, error) {
	hits, err := a.vec.Search(a.q(), k, nil)
	if err != nil {
		return nil, err
	}
	out := make([]retrieve.Ranked, len(hits))
	for i, h := range hits {
		out[i] = retrieve.Ranked{Seq: h.ID, Score: float64(h.Score)}
	}
	return out, nil
}

// replicaStore serves the replicated chunks from memory (SQLite's lookup of ten rows by
// primary key is not what this measures).
type replicaStore struct{ chunks []library.Chunk }

func (s replicaStore) Chunks(_ context.Context, seqs []int64) (map[int64]library.Chunk, error) {
	out := make(map[int64]library.Chunk, len(seqs))
	for _, seq := range seqs {
		i := int(seq - 1)
		c := s.chunks[i%len(s.chunks)]
		_, c.Text = replica(s.chunks, i)
		c.Seq = seq
		out[seq] = c
	}
	return out, nil
}
