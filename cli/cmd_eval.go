package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/learn"
	"github.com/mneme-dev/mneme/learn/eval"
)

func evalCommand() command {
	return command{names: []string{"eval"}, run: (*App).runEval,
		help: "  mneme eval memory [--model M] [--json]   measure learning on a built-in set of dialogues\n"}
}

// runEval is `mneme eval memory`: it runs extraction and consolidation
// (package learn) on the built-in dialogues (learn/eval) against the
// configured Ollama and reports precision, recall and duplicates. It
// opens no store and writes nothing to the data dir: the notes it
// consolidates into live in memory.
func (a *App) runEval(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "memory" {
		return exitError{code: 2, msg: "eval: the one evaluation is `mneme eval memory [--model M] [--json]`"}
	}
	var common commonFlags
	fs := a.newFlagSet("eval memory", "mneme eval memory [--model M] [--json]", &common)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	rest, err := parseArgs(fs, args[1:])
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return exitError{code: 2, msg: fmt.Sprintf("eval memory: unexpected argument %q", rest[0])}
	}
	cfg, err := loadConfig(common, a.getenv)
	if err != nil {
		return err
	}
	u, err := ollamaURL(cfg.Ollama)
	if err != nil {
		return err
	}
	client := api.NewClient(u, &http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: dialer.DialContext}})
	// --model names the model to measure; else the one that learns.
	name := common.model
	if name == "" {
		name = cfg.ExtractModel
	}
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
	var show *api.ShowResponse
	if sh, err := client.Show(ctx, &api.ShowRequest{Model: name}); err == nil {
		show = sh
	}
	model := learn.Model{Name: name, Log: slog.New(slog.DiscardHandler),
		Options: map[string]any{"num_ctx": agent.ChooseContext(cfg.NumCtx, cfg.NumCtxMax, show).Tokens}}
	fmt.Fprintf(a.stderr, "Evaluating memory with %s on %d dialogues (matcher: %s)\n", sanitize.Line(name), len(set.Dialogues), eval.MatcherName)
	rep, err := eval.Run(ctx, client, model, set, eval.Options{Progress: func(done, total int, d eval.Dialogue, r eval.DialogueResult) {
		status := fmt.Sprintf("%d extracted, %d of %d expected found", len(r.Extracted), r.Matched, len(r.Expected))
		if r.Failed {
			status += ", a malformed reply"
		}
		fmt.Fprintf(a.stderr, "[%d/%d] %s: %s\n", done, total, d.ID, status)
	}})
	if err != nil {
		return fmt.Errorf("eval memory: %w", err)
	}
	fmt.Fprintln(a.stderr, "Consolidated.")
	if *asJSON {
		return writeJSON(a.stdout, rep)
	}
	return writeEvalReport(a.stdout, rep)
}

// writeEvalReport prints the report as tables.
func writeEvalReport(w io.Writer, rep eval.Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Model %s, %d dialogues, matcher: %s\n\n", sanitize.Line(rep.Model), rep.Dialogues, rep.Matcher)
	fmt.Fprintln(tw, "EXTRACTION\tPRECISION\tRECALL\tMATCHED/EXTRACTED\tMATCHED/EXPECTED")
	row := func(name string, s eval.Scores) {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%d/%d\t%d/%d\n", name, s.Precision, s.Recall, s.Matched, s.Extracted, s.MatchedExpected, s.Expected)
	}
	row("all", rep.Extraction)
	kinds := make([]string, 0, len(rep.ByKind))
	for k := range rep.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		row("  "+sanitize.Line(k), rep.ByKind[k])
	}
	fmt.Fprintf(tw, "\nDialogues with nothing to remember left empty: %d of %d\n", rep.Quiet, rep.QuietOf)
	fmt.Fprintf(tw, "Malformed extraction replies: %d\n", rep.Failed)
	c := rep.Consolidation
	var events []string
	for _, e := range []learn.Event{learn.EventAdd, learn.EventUpdate, learn.EventDelete, learn.EventNone} {
		events = append(events, fmt.Sprintf("%s %d", e, c.Events[e]))
	}
	fmt.Fprintf(tw, "\nConsolidation: %s; %d notes kept\n", strings.Join(events, ", "), len(c.Kept))
	fmt.Fprintf(tw, "Duplicate rate: %.2f (%d pairs of kept notes say the same)\n", c.DuplicateRate, len(c.DuplicatePairs))
	for _, p := range c.DuplicatePairs {
		fmt.Fprintf(tw, "  %q = %q\n", sanitize.Line(p[0]), sanitize.Line(p[1]))
	}
	if c.Errors > 0 {
		fmt.Fprintf(tw, "Consolidation errors: %d\n", c.Errors)
	}
	return tw.Flush()
}
