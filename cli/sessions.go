package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/carrel-app/carrel/backend/chat"
	"github.com/carrel-app/carrel/backend/engine"
	"github.com/carrel-app/carrel/backend/llm"
	"github.com/carrel-app/carrel/backend/provider"
)

// printAnswerFooter tells, after a streamed answer, what it used and how to follow up.
func printAnswerFooter(env Env, ans *chat.Answer) {
	if ans.Warning != "" {
		fmt.Fprintln(env.Stdout, "\n"+ans.Warning)
	}
	if ans.Provider != "" {
		line := fmt.Sprintf("%s (%s): %d prompt + %d completion tokens", ans.Model, ans.Provider, ans.Usage.PromptTokens, ans.Usage.CompletionTokens)
		if ans.Usage.TokensPerSec > 0 {
			line += fmt.Sprintf(", %.1f tokens/s", ans.Usage.TokensPerSec)
		}
		line += fmt.Sprintf(", $%.4f", ans.Usage.CostUSD)
		fmt.Fprintln(env.Stderr, line)
	}
	if ans.SessionID != "" {
		fmt.Fprintf(env.Stderr, "session %s: follow up with `carrel ask --session %s QUESTION`\n", ans.SessionID, ans.SessionID)
	}
}

const sessionsUsage = `usage: carrel sessions list [--json]
       carrel sessions show [--json] ID
       carrel sessions export [--out FILE] ID     Markdown with numbered references
       carrel sessions rename ID TITLE...
       carrel sessions delete ID`

// sessionsCmd lists, shows, exports, renames and deletes study sessions.
func sessionsCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	if len(args) == 0 {
		return usageError{errors.New(sessionsUsage)}
	}
	sub, args := args[0], args[1:]
	fsg := flag.NewFlagSet("sessions "+sub, flag.ContinueOnError)
	fsg.SetOutput(env.Stderr)
	asJSON := fsg.Bool("json", false, "print JSON")
	out := fsg.String("out", "", "write the export to this file instead of standard output")
	if err := fsg.Parse(args); err != nil {
		return usageError{err}
	}
	args = fsg.Args()
	needID := func(n int) error {
		if len(args) < n {
			return usageError{errors.New(sessionsUsage)}
		}
		return nil
	}
	switch sub {
	case "list":
		return listSessions(ctx, eng, *asJSON, env)
	case "show":
		if err := needID(1); err != nil {
			return err
		}
		return showSession(ctx, eng, args[0], *asJSON, env)
	case "export":
		if err := needID(1); err != nil {
			return err
		}
		md, err := eng.Asking().Export(ctx, args[0])
		if err != nil {
			return err
		}
		if *out != "" {
			return os.WriteFile(*out, []byte(md), 0o644)
		}
		fmt.Fprint(env.Stdout, md)
		return nil
	case "rename":
		if err := needID(2); err != nil {
			return err
		}
		return eng.Asking().Rename(ctx, args[0], strings.Join(args[1:], " "))
	case "delete":
		if err := needID(1); err != nil {
			return err
		}
		return eng.Asking().Delete(ctx, args[0])
	}
	return usageError{fmt.Errorf("sessions: unknown command %q\n%s", sub, sessionsUsage)}
}

// listSessions prints the sessions and what was spent in all.
func listSessions(ctx context.Context, eng *engine.Engine, asJSON bool, env Env) error {
	list, err := eng.Asking().Sessions(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(env.Stdout).Encode(list)
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "No sessions yet: `carrel ask QUESTION` starts one.")
	}
	for _, s := range list {
		fmt.Fprintf(env.Stdout, "%s  %s  %2d questions  $%.4f  %s\n", s.ID, s.UpdatedAt.Local().Format("2006-01-02 15:04"),
			s.Messages, s.CostUSD, s.Title)
	}
	if m, err := eng.Meter(ctx); err == nil && len(list) > 0 {
		fmt.Fprintf(env.Stdout, "total spent: $%.4f", m.TotalUSD)
		if m.BudgetUSD > 0 {
			fmt.Fprintf(env.Stdout, " of a $%.2f budget (%.0f%%)", m.BudgetUSD, 100*m.BudgetUsed)
		}
		fmt.Fprintln(env.Stdout)
	}
	return nil
}

// showSession prints session id as Markdown (or JSON).
func showSession(ctx context.Context, eng *engine.Engine, id string, asJSON bool, env Env) error {
	d, err := eng.Asking().Session(ctx, id)
	if err != nil {
		return err
	}
	if asJSON {
		return json.NewEncoder(env.Stdout).Encode(d)
	}
	md, err := eng.Asking().Export(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprint(env.Stdout, md)
	return nil
}

// applyAnswerFlags applies --provider, --cloud-model and --budget over config.json.
func applyAnswerFlags(cfg *engine.Config, name, cloudModel string, budget float64) error {
	switch p := provider.Name(name); p {
	case "":
	case engine.ProviderOllama, engine.ProviderOpenAI, engine.ProviderAnthropic:
		cfg.Provider = p
	default:
		return fmt.Errorf("--provider %q: use ollama, openai or anthropic", name)
	}
	if cloudModel != "" {
		switch cfg.Provider {
		case engine.ProviderOpenAI:
			cfg.OpenAIModel = cloudModel
		case engine.ProviderAnthropic:
			cfg.AnthropicModel = cloudModel
		default:
			return errors.New("--cloud-model needs --provider openai or anthropic")
		}
	}
	if budget >= 0 {
		cfg.BudgetUSD = budget
	}
	return nil
}

const keysUsage = `usage: carrel keys status
       carrel keys set PROVIDER      reads the key from standard input (openai, anthropic)
       carrel keys delete PROVIDER`

// keysCmd stores API keys in the OS keyring. The key is read from standard input, so
// that it stays out of the shell's history and the process list.
func keysCmd(ctx context.Context, eng *engine.Engine, args []string, env Env) error {
	if len(args) == 0 {
		return usageError{errors.New(keysUsage)}
	}
	switch {
	case args[0] == "status":
		s := eng.CloudSettings()
		for _, p := range []provider.Name{engine.ProviderOpenAI, engine.ProviderAnthropic} {
			switch src := s.Keys[p]; src {
			case "":
				fmt.Fprintf(env.Stdout, "%s: no key (%s)\n", p, s.KeyError[p])
			default:
				fmt.Fprintf(env.Stdout, "%s: key from the %s\n", p, src)
			}
		}
		return nil
	case args[0] == "set" && len(args) == 2:
		in := env.Stdin
		if in == nil {
			in = os.Stdin
		}
		fmt.Fprintf(env.Stderr, "%s API key (then Enter): ", args[1])
		var key string
		if _, err := fmt.Fscanln(in, &key); err != nil {
			return fmt.Errorf("read the key from standard input: %w", err)
		}
		if err := llm.SetAPIKey(provider.Name(args[1]), key); err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "\nstored in the OS keyring as %s/%s\n", llm.KeyringService, args[1])
		return nil
	case args[0] == "delete" && len(args) == 2:
		return llm.DeleteAPIKey(provider.Name(args[1]))
	}
	return usageError{errors.New(keysUsage)}
}
