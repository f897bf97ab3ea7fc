package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/carrel-app/carrel/backend/cache"
	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/library"
)

const memoryUsage = `usage: carrel memory list [--json]
       carrel memory add [--kind preference|context|goal] TEXT...
       carrel memory edit ID TEXT...
       carrel memory rm ID
       carrel memory on|off            learn from your questions and tell the model, or not
       carrel memory model on|off      let the local chat model propose memories too (each checked
                                       against your own words; off by default)`

// memoryCmd shows and edits what Carrel remembers about the user.
func memoryCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	if len(args) == 0 {
		return usageError{errors.New(memoryUsage)}
	}
	sub, args := args[0], args[1:]
	fsg := flag.NewFlagSet("memory "+sub, flag.ContinueOnError)
	fsg.SetOutput(env.Stderr)
	asJSON := fsg.Bool("json", false, "print JSON")
	kind := fsg.String("kind", "", "preference, context or goal (default context)")
	if err := fsg.Parse(args); err != nil {
		return usageError{err}
	}
	args = fsg.Args()
	id := func() (int64, error) {
		if len(args) == 0 {
			return 0, usageError{errors.New(memoryUsage)}
		}
		n, err := strconv.ParseInt(args[0], 10, 64)
		if err != nil || n <= 0 {
			return 0, usageError{fmt.Errorf("memory: %q is not a memory id (see carrel memory list)", args[0])}
		}
		return n, nil
	}
	switch sub {
	case "list":
		return listMemories(ctx, eng, *asJSON, env)
	case "add":
		m, err := eng.Memory().Add(ctx, library.MemoryKind(*kind), strings.Join(args, " "))
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "remembered %d: %s\n", m.ID, m.Text)
		return nil
	case "edit":
		n, err := id()
		if err != nil {
			return err
		}
		m, err := eng.Memory().Edit(ctx, n, strings.Join(args[1:], " "))
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "memory %d: %s\n", m.ID, m.Text)
		return nil
	case "rm", "delete":
		n, err := id()
		if err != nil {
			return err
		}
		if err := eng.Memory().Delete(ctx, n); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "forgot memory %d\n", n)
		return nil
	case "on", "off":
		if err := eng.Memory().SetEnabled(ctx, sub == "on"); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "memory %s\n", sub)
		return nil
	case "model":
		if len(args) != 1 || (args[0] != "on" && args[0] != "off") {
			return usageError{errors.New(memoryUsage)}
		}
		if err := eng.Memory().SetModelEnabled(ctx, args[0] == "on"); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "memories proposed by the local model: %s\n", args[0])
		return nil
	}
	return usageError{fmt.Errorf("memory: unknown subcommand %q\n%s", sub, memoryUsage)}
}

// listMemories prints whether memory is on and what is remembered.
func listMemories(ctx context.Context, eng *engine.Engine, asJSON bool, env Env) error {
	list, err := eng.Memory().List(ctx)
	if err != nil {
		return err
	}
	on := eng.Memory().Enabled(ctx)
	if asJSON {
		return json.NewEncoder(env.Stdout).Encode(map[string]any{"enabled": on, "memories": list})
	}
	state := "on"
	if !on {
		state = "off (nothing is learnt and no memory goes to the model)"
	}
	fmt.Fprintf(env.Stdout, "Memory is %s.\n", state)
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "Nothing remembered yet: say things like \"I'm a second-year nursing student\" or \"I prefer short answers\" in a question.")
	}
	for _, m := range list {
		fmt.Fprintf(env.Stdout, "%4d  %-10s  %s\n", m.ID, m.Kind, m.Text)
	}
	return nil
}

const cacheUsage = `usage: carrel cache status [--json]
       carrel cache clear
       carrel cache on|off
       carrel cache calibrate [--json] [--set] [PAIRS.jsonl]   cosine distributions of paraphrase and
                                       different-question pairs for the embedding model, and the threshold`

// cacheCmd shows, clears and calibrates the answer cache.
func cacheCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	if len(args) == 0 {
		return usageError{errors.New(cacheUsage)}
	}
	sub, args := args[0], args[1:]
	fsg := flag.NewFlagSet("cache "+sub, flag.ContinueOnError)
	fsg.SetOutput(env.Stderr)
	asJSON := fsg.Bool("json", false, "print JSON")
	set := fsg.Bool("set", false, "use the calibrated threshold from now on")
	if err := fsg.Parse(args); err != nil {
		return usageError{err}
	}
	args = fsg.Args()
	switch sub {
	case "status":
		return cacheStatus(ctx, eng, *asJSON, env)
	case "clear":
		n, err := eng.Asking().ClearCache(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "forgot %d cached answers\n", n)
		return nil
	case "on", "off":
		if err := eng.Asking().SetCacheEnabled(ctx, sub == "on"); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "answer cache %s\n", sub)
		return nil
	case "calibrate":
		if len(args) != 1 {
			return usageError{errors.New("cache calibrate: give a pairs file (JSON lines of {\"a\", \"b\", \"same\"}), e.g. backend/cache/testdata/pairs.jsonl")}
		}
		return calibrateCache(ctx, eng, args[0], *set, *asJSON, env)
	}
	return usageError{fmt.Errorf("cache: unknown subcommand %q\n%s", sub, cacheUsage)}
}

// cacheStatus prints whether the answer cache is on, what it holds and how it matches.
func cacheStatus(ctx context.Context, eng *engine.Engine, asJSON bool, env Env) error {
	cs, err := eng.Asking().CacheStatus(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(env.Stdout).Encode(cs)
	}
	state := "on"
	if !cs.Enabled {
		state = "off"
	}
	fmt.Fprintf(env.Stdout, "answer cache %s: %d answers kept; matching by %s", state, cs.Entries, cs.Match)
	if cs.Match == chat.MatchMeaning {
		fmt.Fprintf(env.Stdout, " (%s, cosine ≥ %.3f, and the same content words)", cs.EmbedModel, cs.Threshold)
	}
	fmt.Fprintln(env.Stdout)
	if cs.Note != "" {
		fmt.Fprintln(env.Stdout, cs.Note)
	}
	return nil
}

// calibrateCache prints the cosine distributions of the pairs in pairsFile for the
// embedding model and the threshold they give, kept from now on when set.
func calibrateCache(ctx context.Context, eng *engine.Engine, pairsFile string, set, asJSON bool, env Env) error {
	pairs, err := cache.ReadPairs(pairsFile)
	if err != nil {
		return err
	}
	c, err := eng.Asking().CalibrateCache(ctx, pairs)
	if err != nil {
		return err
	}
	if set {
		if err := eng.Asking().SetCacheThreshold(ctx, c.Threshold); err != nil {
			return err
		}
	}
	if asJSON {
		return json.NewEncoder(env.Stdout).Encode(c)
	}
	fmt.Fprintf(env.Stdout, "%s on %d pairs\n", c.Model, c.Same.N+c.Different.N)
	fmt.Fprintf(env.Stdout, "  paraphrases  cosine min %.3f  p10 %.3f  p50 %.3f  max %.3f\n", c.Same.Min, c.Same.P10, c.Same.P50, c.Same.Max)
	fmt.Fprintf(env.Stdout, "  different    cosine min %.3f  p10 %.3f  p50 %.3f  max %.3f\n", c.Different.Min, c.Different.P10, c.Different.P50, c.Different.Max)
	fmt.Fprintf(env.Stdout, "  embedding alone would need ≥ %.3f; with the word check: threshold %.3f\n", c.ThresholdAlone, c.Threshold)
	fmt.Fprintf(env.Stdout, "  at %.3f: embedding alone recalls %.0f%% of paraphrases with %.0f%% wrong hits; words alone %.0f%% / %.0f%%; both (the cache) %.0f%% / %.0f%%\n",
		c.Threshold, 100*c.EmbeddingRecall, 100*c.EmbeddingFalse, 100*c.WordsRecall, 100*c.WordsFalse, 100*c.HitRecall, 100*c.HitFalse)
	if set {
		fmt.Fprintf(env.Stdout, "threshold set to %.3f\n", c.Threshold)
	}
	return nil
}

// cachedLine tells where a reused answer came from and how to ask afresh.
func cachedLine(c *chat.CachedFrom) string {
	where := "an earlier answer"
	if c.SessionTitle != "" {
		where = fmt.Sprintf("session %q (%s)", c.SessionTitle, c.SessionID)
	}
	match := "the same content words (no embedding model)"
	if c.Match == chat.MatchMeaning {
		match = fmt.Sprintf("meaning (cosine %.3f) and the same content words", c.Similarity)
	}
	return fmt.Sprintf("Cached answer from %s, %s, matched by %s; saved $%.4f. Ask again with --fresh for a new answer.",
		where, c.At.Local().Format("2006-01-02 15:04"), match, c.SavedUSD)
}
