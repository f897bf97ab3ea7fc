// Command evaldiag shows, for each dev question, where its answer passage ranks in the
// lexical, the vector and the hybrid list searched -k deep on a library embedded with
// MiniLM by evalminilm -library DIR, with the scores that placed it, and the question's
// rank among 10 as `carrel eval` scores it (R10; U10: hits an unanswerable question got),
// then each mode's totals. It tells a passage neither list finds from one that fusion
// misplaces; -show lists each search's first 15 hits.
//
//	go run ./internal/bench/evaldiag -library DIR [-modes hybrid] [-only d01,d02] [-show]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/retrieve"
	"github.com/carrel-app/carrel/internal/testollama"
)

var show *bool

func main() {
	lib := flag.String("library", "", "a library embedded by evalminilm -library (required)")
	qa := flag.String("qa", "testdata/eval/dev.jsonl", "questions")
	depth := flag.Int("k", 50, "depth")
	only := flag.String("only", "", "comma-separated ids")
	modes := flag.String("modes", "lexical,vector,hybrid", "modes, comma-separated")
	show = flag.Bool("show", false, "list each search's first 15 hits")
	flag.Parse()
	if *lib == "" {
		fmt.Fprintln(os.Stderr, "evaldiag: give -library DIR (a library evalminilm -library DIR embedded)")
		os.Exit(2)
	}
	if err := run(*lib, *qa, *depth, *only, strings.Split(*modes, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "evaldiag:", err)
		os.Exit(1)
	}
}

// rank is the 1-based rank of q's first counting hit within hits (0: none), and that hit.
func rank(q retrieve.Question, hits []engine.Hit) (int, engine.Hit) {
	eh := make([]retrieve.EvalHit, len(hits))
	for i, h := range hits {
		eh[i] = retrieve.EvalHit{Doc: h.DocPath, Page: h.FocusPage, Text: h.Text}
	}
	r := retrieve.FirstCorrectWithin(q, eh, len(eh))
	if r == 0 {
		return 0, engine.Hit{}
	}
	return r, hits[r-1]
}

func run(lib, qa string, depth int, only string, modes []string) error {
	ctx := context.Background()
	srv, err := testollama.StartMiniLMServer(ctx, "", nil)
	if err != nil {
		return err
	}
	defer srv.Close()
	model := testollama.MiniLMModel
	cfg := engine.Config{Dir: lib, OllamaHost: srv.Host, EmbedModel: model}
	eng, err := engine.Open(cfg)
	if err != nil {
		return err
	}
	defer eng.Close()
	f, err := os.Open(qa)
	if err != nil {
		return err
	}
	qs, err := retrieve.ReadQuestions(f)
	f.Close()
	if err != nil {
		return err
	}
	type acc struct {
		n, h1, h5, h10, un, unOK int
		rr                       float64
	}
	sums := map[retrieve.Mode]*acc{}
	defer func() {
		for _, m := range modes {
			a := sums[retrieve.Mode(m)]
			if a == nil || a.n == 0 {
				continue
			}
			n := float64(a.n)
			fmt.Printf("SUM %s n=%d hit@1=%.3f hit@5=%.3f hit@10=%.3f mrr@10=%.3f unanswerable=%d/%d\n", m, a.n, float64(a.h1)/n, float64(a.h5)/n, float64(a.h10)/n, a.rr/n, a.unOK, a.un)
		}
	}()
	for _, q := range qs {
		if only != "" && !strings.Contains(","+only+",", ","+q.ID+",") {
			continue
		}
		line := fmt.Sprintf("%s %-12s", q.ID, q.Kind)
		for _, ms := range modes {
			m := retrieve.Mode(ms)
			hits, err := eng.Search(ctx, q.Question, engine.SearchOptions{K: depth, Mode: m})
			if err != nil {
				return err
			}
			r, h := rank(q, hits)
			if *show {
				for i, x := range hits[:min(len(hits), 15)] {
					fmt.Printf("   %s %2d %.3f L%d/%.2f V%d/%.3f %s p%d-%d@%d [%d-%d] %q\n", m[:3], i+1, x.Score, x.LexicalRank, x.LexicalScore, x.VectorRank, x.VectorScore, filepath.Base(x.DocPath), x.Page, x.PageEnd, x.FocusPage, x.Start, x.End, strings.Join(strings.Fields(x.Text), " ")[:min(70, len(x.Text))])
				}
			}
			a := sums[m]
			if a == nil {
				a = &acc{}
				sums[m] = a
			}
			if !q.Answerable() {
				a.un++
				k10, _ := eng.Search(ctx, q.Question, engine.SearchOptions{K: 10, Mode: m})
				if len(k10) == 0 {
					a.unOK++
				}
				line += fmt.Sprintf(" U10=%d", len(k10))
			} else {
				k10, _ := eng.Search(ctx, q.Question, engine.SearchOptions{K: 10, Mode: m})
				r, _ := rank(q, k10)
				line += fmt.Sprintf(" R10=%d", r)
				a.n++
				if r == 1 {
					a.h1++
				}
				if r >= 1 && r <= 5 {
					a.h5++
				}
				if r >= 1 && r <= 10 {
					a.h10++
					a.rr += 1 / float64(r)
				}
			}
			top := 0.0
			if len(hits) > 0 {
				top = hits[0].Score
			}
			line += fmt.Sprintf(" | %s r=%2d n=%2d", m[:3], r, len(hits))
			if r > 0 {
				line += fmt.Sprintf(" s=%.3f/%.3f lex=%.2f cos=%.3f", h.Score, top, h.LexicalScore, h.VectorScore)
			} else if len(hits) > 0 {
				line += fmt.Sprintf(" top=%.3f cos=%.3f", top, hits[0].VectorScore)
			}
		}
		fmt.Println(line)
	}
	return nil
}
