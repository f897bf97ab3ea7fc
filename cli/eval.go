package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/retrieve"
)

// evalCmd scores retrieval on a question file (JSON lines of retrieve.Question):
//
//	carrel eval [--json] [--mode M] [--k N] [-v] QA.jsonl
//
// It searches each question as the search command does and prints hit@1/5/10 and MRR@10
// over the answerable questions, and the share of unanswerable ones that found nothing.
func evalCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	fsg := flag.NewFlagSet("eval", flag.ContinueOnError)
	fsg.SetOutput(env.Stderr)
	asJSON := fsg.Bool("json", false, "print one JSON object")
	k := fsg.Int("k", 10, "hits asked for per question (scoring looks at the first 10)")
	mode := fsg.String("mode", string(retrieve.Hybrid), "hybrid, lexical or vector")
	verbose := fsg.Bool("v", false, "print each question's outcome to stderr")
	if err := fsg.Parse(reorderFlags(args)); err != nil {
		return usageError{err}
	}
	if fsg.NArg() != 1 {
		return usageError{errors.New("eval: give one question file (JSON lines)")}
	}
	m, err := retrieve.ParseMode(*mode)
	if err != nil {
		return usageError{err}
	}
	f, err := os.Open(fsg.Arg(0))
	if err != nil {
		return fmt.Errorf("eval: %w", err)
	}
	qs, err := retrieve.ReadQuestions(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("eval: %s: %w", fsg.Arg(0), err)
	}
	if m != retrieve.Lexical {
		// Say what the meaning side is, so a number is never read without it.
		st := eng.Status(ctx)
		if st.Mode == engine.ModeFull {
			fmt.Fprintf(env.Stderr, "eval: vector side: embedding model %s (a tiny or random test model makes it noise)\n", st.EmbedModel)
		} else {
			fmt.Fprintf(env.Stderr, "eval: no embedding model available (%s): %s search is lexical only\n", st.Reason, m)
		}
	}
	var s retrieve.Scorer
	for _, q := range qs {
		hits, err := eng.Search(ctx, q.Question, engine.SearchOptions{K: *k, Mode: m})
		if err != nil {
			return fmt.Errorf("eval: %s: %w", q.ID, err)
		}
		eh := make([]retrieve.EvalHit, len(hits))
		for i, h := range hits {
			eh[i] = retrieve.EvalHit{Doc: h.DocPath, Page: h.FocusPage, Text: h.Text}
		}
		r := s.Add(q, eh)
		if *verbose {
			top := ""
			if len(hits) > 0 {
				top = fmt.Sprintf("%s p%d", baseName(hits[0].DocPath), hits[0].Page)
			}
			fmt.Fprintf(env.Stderr, "%s %-12s rank=%d hits=%d top=%s\n", q.ID, q.Kind, r, len(hits), top)
		}
	}
	res := s.Result(string(m))
	if *asJSON {
		return json.NewEncoder(env.Stdout).Encode(res)
	}
	fmt.Fprintf(env.Stdout, "mode %s: %d answerable questions: hit@1 %.3f hit@5 %.3f hit@10 %.3f MRR@10 %.3f; unanswerable %d, correctly empty %.3f\n",
		res.Mode, res.N, res.Hit1, res.Hit5, res.Hit10, res.MRR10, res.UnanswerableN, res.UnanswerableCorrect)
	return nil
}

// reorderFlags moves flags before the positional arguments, so `eval QA.jsonl --mode x`
// works as well as `eval --mode x QA.jsonl`.
func reorderFlags(args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if !strings.Contains(name, "=") && (name == "mode" || name == "k") && i+1 < len(args) {
			flags = append(flags, args[i+1])
			i++
		}
	}
	return append(flags, rest...)
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
