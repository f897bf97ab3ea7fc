// Command retrieve benchmarks Carrel's hybrid retrieval (BM25 in bleve + FAISS + RRF +
// parents) at growing library sizes and runs the peer anchor (retrieval_anchor.py, kept
// beside the repository; the Taskfile passes it with -anchor) in the same run, printing
// one line per size:
//
//	retrieve n=N carrel_p50_ms=A carrel_p99_ms=B anchor_p50_ms=C ratio=C/A rss_mb=M
//
// The libraries are real corpus text (pdfcpu's test PDFs, ingested and chunked by Carrel
// into parents and children) replicated document by document with a " ~rK" suffix, as the
// anchor does, until they hold N chunks (children). Each is a real library: SQLite with
// documents, parents and children, bleve over the parents and FAISS over the children, as
// the app lays them out. The timed path is the app's Engine.Search (retrieve.Retriever
// over that SQLite store, with the engine's index adapters and relevance threshold, then
// the documents looked up) except for embedding the query: vectors are random unit 384-d
// vectors and the query's is given, as in the anchor.
//
// Each size is timed -runs times over the same queries, after one untimed pass that fills
// the library's passage cache; the line reports the median of the runs' p50 and of their
// p99 (each run's figures, and the first pass's, go to stderr), not the best run.
//
// Libraries are cached under -cache, keyed by hashes: the ingested corpus by the corpus
// files and the backend's Go sources (any change to extraction or chunking re-ingests it),
// each size by the chunks themselves and the layout version, so a cache never serves
// chunks other than today's. The anchor's hybrid p50 (its BM25 full scan, FAISS flat,
// RRF, parents) is the comparison; it measures 10k and 100k only, so larger sizes print
// anchor_p50_ms=na and a retrieve-note line with the anchor's 100k time scaled linearly
// (its BM25 is a full scan), marked as an estimate. The recall@10 of the timed vector
// search against an exact scan, and CPU time per query, go to stderr.
package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
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
	"github.com/carrel-app/carrel/internal/testcorpus"
)

const (
	dim       = 384
	benchTopK = 10
	model     = "bench-random-384"
	// layout is bumped whenever the way a size's library is built changes.
	layout = "2-parents-sqlite"
	// minVectorScore is the engine's default (engine.Config.MinVectorScore).
	minVectorScore = 0.5
)

// chunkers are the backend packages (with their subpackages) whose code decides the
// ingested corpus's chunks: extraction, chunking, the engine's ingest flow, storage.
var chunkers = []string{"ingest", "chunk", "engine", "library"}

func main() {
	corpus := flag.String("corpus", "", "folder of PDFs (default: pdfcpu's pkg/testdata via go list)")
	cache := flag.String("cache", filepath.Join(os.TempDir(), "carrel-bench-retrieve"), "where built libraries are kept between runs")
	sizesFlag := flag.String("sizes", "10000,100000", "library sizes in chunks, comma-separated")
	nq := flag.Int("queries", 500, "queries per size")
	runs := flag.Int("runs", 3, "timed runs per size; the line reports the median run's p50 and p99")
	anchor := flag.String("anchor", "", "anchor script (retrieval_anchor.py; the Taskfile passes it); \"\" skips it")
	python := flag.String("python", "/usr/bin/python3", "python for the anchor")
	mode := flag.String("mode", "hybrid", "carrel search mode timed: hybrid, lexical or vector")
	ivfMin := flag.Int("ivf", 0, "switch the vector store to IVF at this many vectors (0: flat; see index.Vectors.SetIVF)")
	nprobeDiv := flag.Int("nprobe-div", 8, "with -ivf, probe nlist/N lists")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the timed queries to this file")
	flag.Parse()
	log := func(f string, a ...any) { fmt.Fprintf(os.Stderr, "bench: "+f+"\n", a...) }

	if *corpus == "" {
		dir, err := testcorpus.Folder()
		if err != nil {
			fail(fmt.Errorf("find the pdfcpu corpus (give -corpus): %w", err))
		}
		*corpus = dir
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
	if *runs < 1 {
		fail(fmt.Errorf("-runs %d: give at least 1", *runs))
	}

	srcKey, err := sourceKey(*corpus)
	if err != nil {
		fail(err)
	}
	src, err := corpusTree(filepath.Join(*cache, "src-"+srcKey), *corpus, log)
	if err != nil {
		fail(err)
	}
	log("%d real chunks in %d passages of %d documents from %s (cache key %s, chunks %s)",
		src.children(), src.parents(), len(src.docs), *corpus, srcKey, src.key)
	prune(*cache, srcKey, src.key, log)

	// The anchor first, alone on the machine (it takes about two minutes).
	anchorP50 := map[int]float64{}
	if *anchor != "" {
		log("running the anchor %s", *anchor)
		if anchorP50, err = runAnchor(*python, *anchor, *corpus); err != nil {
			log("anchor failed: %v (ratios print na)", err)
		}
	}

	rng := rand.New(rand.NewPCG(20240601, 1))
	queries := makeQueries(rng, src.texts(), *nq)
	qvecs := make([][]float32, *nq)
	for i := range qvecs {
		qvecs[i] = randomUnit(rng)
	}

	for _, n := range sizes {
		dir := filepath.Join(*cache, fmt.Sprintf("n%d-%s", n, src.key))
		lib, lex, vec, err := openOrBuild(dir, src, n, log)
		if err != nil {
			fail(err)
		}
		// Exact answers (a scan of every float vector) for a sample of the queries,
		// to report the recall of the search that is timed (the 4-bit scan with
		// exact re-rank, or IVF with -ivf).
		nr := min(len(qvecs), 100)
		exact := make([][]index.VectorHit, nr)
		for i := range nr {
			if exact[i], err = vec.SearchExact(qvecs[i], benchTopK); err != nil {
				fail(err)
			}
		}
		what := "4-bit scan + exact re-rank"
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

		var qi int
		s := &searcher{lib: lib, r: &retrieve.Retriever{Lexical: lexAdapter{lex}, Store: lib, MinVectorScore: minVectorScore,
			Dense: denseAdapter{vec: vec, q: func() []float32 { return qvecs[qi] }}}}
		ctx := context.Background()
		opt := retrieve.Options{K: benchTopK, Mode: m}
		// One untimed pass first: it reads each hit's passage from SQLite into the
		// library's cache and sketches it, as a library in use already has, so the timed
		// runs all see the same steady state (its p50 goes to stderr).
		cold := make([]float64, 0, *nq)
		for qi = 0; qi < *nq; qi++ {
			t := time.Now()
			if _, err := s.search(ctx, queries[qi], opt); err != nil {
				fail(err)
			}
			cold = append(cold, float64(time.Since(t).Microseconds())/1000)
		}
		sort.Float64s(cold)
		log("n=%d untimed first pass (passages read from SQLite) p50_ms=%.3g p99_ms=%.3g", n, pct(cold, 50), pct(cold, 99))
		if *cpuProfile != "" {
			f, err := os.Create(fmt.Sprintf("%s.n%d", *cpuProfile, n))
			if err != nil {
				fail(err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				fail(err)
			}
		}
		var p50s, p99s []float64
		hits := 0
		cpu0 := cpuTime()
		for run := range *runs {
			ms := make([]float64, 0, *nq)
			for qi = 0; qi < *nq; qi++ {
				t := time.Now()
				hs, err := s.search(ctx, queries[qi], opt)
				ms = append(ms, float64(time.Since(t).Microseconds())/1000)
				if err != nil {
					fail(err)
				}
				hits += hs
			}
			sort.Float64s(ms)
			p50s, p99s = append(p50s, pct(ms, 50)), append(p99s, pct(ms, 99))
			log("n=%d run %d/%d p50_ms=%.3g p99_ms=%.3g", n, run+1, *runs, p50s[run], p99s[run])
		}
		if *cpuProfile != "" {
			pprof.StopCPUProfile()
		}
		p50, p99 := median(p50s), median(p99s)
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
		nall := *nq * *runs
		log("n=%d mode=%s queries=%d runs=%d mean_hits=%.1f cpu_ms_per_query=%.2f", n, m, *nq, *runs, float64(hits)/float64(nall),
			float64((cpuTime()-cpu0).Microseconds())/1000/float64(nall))
		lex.Close()
		vec.Close()
		lib.Close()
		runtime.GC()
		debug.FreeOSMemory()
	}
}

// searcher is what the app's Engine.Search does with a question once its embedding is
// known: the retriever over the library's SQLite store and both indexes, then each hit's
// document looked up once (the rerank stage is off by default and not timed).
type searcher struct {
	lib *library.Library
	r   *retrieve.Retriever
}

func (s *searcher) search(ctx context.Context, q string, opt retrieve.Options) (int, error) {
	hits, err := s.r.Search(ctx, q, opt)
	if err != nil {
		return 0, err
	}
	docs := map[string]library.Document{}
	for _, h := range hits {
		if _, ok := docs[h.Chunk.DocID]; !ok {
			d, err := s.lib.Document(ctx, h.Chunk.DocID)
			if err != nil {
				return 0, err
			}
			docs[d.ID] = d
		}
	}
	return len(hits), nil
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

// median of a few runs' figures (the lower middle one of an even count).
func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[(len(s)-1)/2]
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

// sourceKey hashes what decides the ingested corpus's chunks: the corpus files (names,
// sizes, times) and the Go sources of the backend packages that read, cut and store them
// (chunkers below). Any change there re-ingests (a minute); search-side packages do not.
func sourceKey(corpus string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("hash the corpus %s: %w", corpus, err)
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("find the module (go env GOMOD): %w", err)
	}
	backend := filepath.Join(filepath.Dir(strings.TrimSpace(string(gomod))), "backend")
	for _, pkg := range chunkers {
		err = filepath.WalkDir(filepath.Join(backend, pkg), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s %d\n", p, len(b))
			h.Write(b)
			return nil
		})
		if err != nil {
			return "", fmt.Errorf("hash the backend sources in %s: %w", backend, err)
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

// prune removes the cache's libraries built from other sources or chunks (each size's
// library is a few hundred MB to GB).
func prune(cache, srcKey, chunksKey string, log func(string, ...any)) {
	entries, err := os.ReadDir(cache)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		stale := strings.HasPrefix(name, "src") && name != "src-"+srcKey
		if strings.HasPrefix(name, "n") && !strings.HasSuffix(name, "-"+chunksKey) {
			stale = true
		}
		if stale && e.IsDir() {
			log("removing the stale cache %s", name)
			os.RemoveAll(filepath.Join(cache, name))
		}
	}
}

// tree is the ingested corpus: documents with their parents and children, in library
// order, and key, a hash of every passage's text and place.
type tree struct {
	docs []srcDoc
	key  string
}

type srcDoc struct {
	doc     library.Document
	parents []library.Parent
}

func (t *tree) children() (n int) {
	for _, d := range t.docs {
		for _, p := range d.parents {
			n += len(p.Children)
		}
	}
	return n
}

func (t *tree) parents() (n int) {
	for _, d := range t.docs {
		n += len(d.parents)
	}
	return n
}

// texts lists the children's texts, which queries are drawn from.
func (t *tree) texts() []string {
	var out []string
	for _, d := range t.docs {
		for _, p := range d.parents {
			for _, c := range p.Children {
				out = append(out, c.Text)
			}
		}
	}
	return out
}

// corpusTree ingests the corpus with Carrel itself (lexical only, no model) into dir once,
// and returns its documents' parents and children.
func corpusTree(dir, corpus string, log func(string, ...any)) (*tree, error) {
	ctx := context.Background()
	cfg := engine.Config{Dir: dir, OllamaHost: "127.0.0.1:1"}
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		os.RemoveAll(dir)
		log("ingesting the corpus into %s", dir)
		eng, err := engine.Open(cfg)
		if err != nil {
			return nil, err
		}
		for _, p := range engine.ExpandPaths([]string{corpus}) {
			if _, err := eng.Intake().IngestFile(ctx, p, nil); err != nil {
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
	docs, err := lib.Documents(ctx)
	if err != nil {
		return nil, err
	}
	t := &tree{}
	h := sha256.New()
	fmt.Fprintln(h, layout)
	for _, d := range docs {
		ps, err := lib.DocumentParents(ctx, d.ID)
		if err != nil {
			return nil, err
		}
		cs, err := lib.DocumentChunks(ctx, d.ID)
		if err != nil {
			return nil, err
		}
		if len(ps) == 0 {
			continue
		}
		bySeq := map[int64]int{}
		sd := srcDoc{doc: d, parents: make([]library.Parent, len(ps))}
		for i, p := range ps {
			sd.parents[i].Chunk = p
			bySeq[p.Seq] = i
			fmt.Fprintf(h, "p %s %d %d %q\n", d.ID, p.PageStart, p.Start, p.Text)
		}
		for _, c := range cs {
			i, ok := bySeq[c.ParentSeq]
			if !ok {
				return nil, fmt.Errorf("chunk %d of %s has no parent (library from before parents?)", c.Seq, d.ID)
			}
			sd.parents[i].Children = append(sd.parents[i].Children, c)
			fmt.Fprintf(h, "c %d %q\n", i, c.Text)
		}
		t.docs = append(t.docs, sd)
	}
	if len(t.docs) == 0 {
		return nil, errors.New("the corpus gave no chunks")
	}
	t.key = hex.EncodeToString(h.Sum(nil))[:12]
	return t, nil
}

// openOrBuild opens the n-chunk library in dir (SQLite, bleve over parents, FAISS over
// children), building it first if the cache has none: the corpus's documents replicated,
// each replica's texts and ids suffixed " ~rK", until n children are stored.
func openOrBuild(dir string, src *tree, n int, log func(string, ...any)) (*library.Library, *index.Lexical, *index.Vectors, error) {
	ctx := context.Background()
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err != nil {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, nil, err
		}
		log("building n=%d in %s", n, dir)
		if err := build(ctx, dir, src, n, log); err != nil {
			return nil, nil, nil, fmt.Errorf("build n=%d: %w", n, err)
		}
		if err := os.WriteFile(done, nil, 0o644); err != nil {
			return nil, nil, nil, err
		}
	}
	lib, err := library.Open(dir)
	if err != nil {
		return nil, nil, nil, err
	}
	lex, err := index.OpenLexical(filepath.Join(dir, "bleve"))
	if err != nil {
		lib.Close()
		return nil, nil, nil, err
	}
	vec, err := index.OpenVectors(filepath.Join(dir, "vectors"))
	if err != nil {
		lib.Close()
		lex.Close()
		return nil, nil, nil, err
	}
	return lib, lex, vec, nil
}

func build(ctx context.Context, dir string, src *tree, n int, log func(string, ...any)) error {
	start := time.Now()
	lib, err := library.Open(dir)
	if err != nil {
		return err
	}
	defer lib.Close()
	lex, err := index.OpenLexical(filepath.Join(dir, "bleve"))
	if err != nil {
		return err
	}
	defer lex.Close()
	vec, err := index.OpenVectors(filepath.Join(dir, "vectors"))
	if err != nil {
		return err
	}
	defer vec.Close()
	if err := vec.Reset(model, dim); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	stored, next := 0, 50000
	for k := 0; stored < n; k++ {
		suffix := ""
		if k > 0 {
			suffix = fmt.Sprintf(" ~r%d", k)
		}
		for _, sd := range src.docs {
			if stored >= n {
				break
			}
			d := sd.doc
			d.ID += strings.ReplaceAll(suffix, " ", "")
			d.Status = "ready"
			var parents []library.Parent
			for _, p := range sd.parents {
				if stored >= n {
					break
				}
				q := library.Parent{Chunk: p.Chunk}
				q.Seq, q.ParentSeq = 0, 0
				q.ID, q.Text = p.ID+suffix, p.Text+suffix
				for _, c := range p.Children[:min(len(p.Children), n-stored)] {
					c.Seq, c.ParentSeq = 0, 0
					c.ID, c.Text = c.ID+suffix, c.Text+suffix
					q.Children = append(q.Children, c)
				}
				stored += len(q.Children)
				parents = append(parents, q)
			}
			if err := lib.PutDocument(ctx, &d); err != nil {
				return err
			}
			if err := lib.ReplaceTree(ctx, d.ID, nil, parents); err != nil {
				return err
			}
			// As the engine indexes them (engine.lexDocsOf, lexicalOnParents):
			// parents in bleve under "p<seq>", children in FAISS under their seq.
			var docs []index.LexDoc
			var ids []int64
			var vecs [][]float32
			for _, p := range parents {
				if p.Seq == 0 { // a repeated parent, not stored
					continue
				}
				docs = append(docs, index.LexDoc{ID: "p" + strconv.FormatInt(p.Seq, 10), DocID: d.ID, Title: d.Title, Section: p.Section, Text: p.Text})
				for _, c := range p.Children {
					ids = append(ids, c.Seq)
					vecs = append(vecs, randomUnit(rng))
				}
			}
			if err := lex.Add(docs); err != nil {
				return err
			}
			if err := vec.Add(ids, vecs); err != nil {
				return err
			}
			if stored >= next {
				log("  %d/%d chunks (%.0fs)", stored, n, time.Since(start).Seconds())
				next += 50000
			}
		}
	}
	if err := vec.Save(); err != nil {
		return err
	}
	log("built n=%d (%d chunks stored) in %.0fs", n, vec.Len(), time.Since(start).Seconds())
	return nil
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

// makeQueries draws n queries of 3 to 8 consecutive words (of 3+ word chunks) from the
// real chunks, as the anchor does.
func makeQueries(rng *rand.Rand, texts []string, n int) []string {
	out := make([]string, 0, n)
	for len(out) < n {
		w := strings.Fields(strings.ToLower(texts[rng.IntN(len(texts))]))
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
	for _, h := range hits { // as engine.rankedOf reads them
		parent := strings.HasPrefix(h.ID, "p")
		seq, err := strconv.ParseInt(strings.TrimPrefix(h.ID, "p"), 10, 64)
		if err == nil {
			out = append(out, retrieve.Ranked{Seq: seq, Score: h.Score, Parent: parent})
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
