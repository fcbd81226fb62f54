package cli

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/flagtext"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/learn"
	"github.com/mneme-dev/mneme/learn/eval"
)

func evalCommand() command {
	return command{names: []string{"eval"}, run: (*App).runEval,
		help: "  mneme eval memory [--model M] [--json]   measure learning on a built-in set of dialogues\n"}
}

// runEval is `mneme eval memory` (learn/eval) against the configured
// Ollama. It opens no store and writes nothing to the data dir.
func (a *App) runEval(ctx context.Context, args []string) error {
	if flagtext.HelpAsked(args) && (len(args) == 0 || args[0] != "memory") {
		fmt.Fprint(a.stdout, "Usage: mneme eval memory [--model M] [--json]\n\nMeasures learning on a built-in set of dialogues (mneme eval memory -h lists its flags).\n")
		return nil
	}
	if len(args) == 0 || args[0] != "memory" {
		return exitError{code: 2, msg: "eval: the one evaluation is `mneme eval memory [--model M] [--json]`"}
	}
	var common config.Flags
	fs := a.newFlagSet("eval memory", "mneme eval memory [--model M] [--json]", &common)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	rest, err := a.parseArgs(fs, args[1:])
	if err != nil {
		return err
	}
	if err := noArgs("eval memory", rest); err != nil {
		return err
	}
	cfg, err := config.Load(common, a.getenv)
	if err != nil {
		return err
	}
	u, err := config.OllamaURL(cfg.Ollama)
	if err != nil {
		return err
	}
	client := ollamaClient(u, cfg)
	// --model names the model to measure; else the one that learns.
	name := cmp.Or(common.Model, cfg.ExtractModel)
	if name == "" {
		st := probeOllama(ctx, client, u.String(), cfg)
		if st.Err != nil {
			return fmt.Errorf("eval memory: %w", st.Err)
		}
		name = st.Model
	}
	set, err := eval.Builtin()
	if err != nil {
		return err
	}
	show, _ := client.Show(ctx, &api.ShowRequest{Model: name}) // nil when it fails
	first := &eval.FirstLog{}
	model := learn.Model{Name: name, Log: slog.New(first),
		Options: map[string]any{"num_ctx": agent.ChooseContext(cfg.NumCtx, cfg.NumCtxMax, show).Tokens}}
	fmt.Fprintf(a.stderr, "Evaluating memory with %s on %d dialogues (matcher: %s)\n", sanitize.Line(name), len(set.Dialogues), eval.MatcherName)
	rep, err := eval.Run(ctx, client, model, set, eval.Options{Progress: func(done, total int, r eval.DialogueResult) {
		fmt.Fprintf(a.stderr, "[%d/%d] %s\n", done, total, r)
	}})
	if err != nil {
		return fmt.Errorf("eval memory: %w", err)
	}
	if *asJSON {
		err = writeJSON(a.stdout, rep)
	} else {
		err = rep.WriteTable(a.stdout)
	}
	if err == nil && rep.Dialogues > 0 && rep.Failed == rep.Dialogues {
		// Every reply was malformed: the figures above measure nothing.
		return exitError{code: 1, msg: fmt.Sprintf("eval memory: the model answered all %d extractions with malformed output; the figures mean nothing. The first: %s",
			rep.Failed, text.Cut(sanitize.Line(first.String()), 300))}
	}
	return err
}
