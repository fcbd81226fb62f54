package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/private"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
)

func doctorCommand() command {
	return command{names: []string{"doctor"}, run: (*App).runDoctor,
		help: "  mneme doctor                       check Ollama, models, data dir and database\n"}
}

func (a *App) runDoctor(ctx context.Context, args []string) error {
	var common config.Flags
	fs := a.newFlagSet("doctor", "mneme doctor", &common)
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs("doctor", rest); err != nil {
		return err
	}
	// Every bad setting is named, and the rest is checked with each of
	// them unset: one run shows all there is to fix.
	cfg, badSettings := config.Check(common, a.getenv)
	if slices.ContainsFunc(badSettings, func(err error) bool {
		return errors.Is(err, config.ErrDataDir) && !errors.As(err, new(config.Overridden)) // the one used is good
	}) {
		// Checking another data dir would make one: the problems, and no more.
		for _, bad := range badSettings {
			fmt.Fprintln(a.stdout, "problem:", sanitize.Text(bad.Error()))
		}
		return exitError{code: 1}
	}
	// A database that does not open (a key that does not open it, another
	// mneme's lock, a damaged file) is one problem: the rest is checked.
	s, dbErr := a.openConfig(ctx, cfg, memory.ReadOnlyIfNewer())
	var readOnly error
	if dbErr == nil {
		defer s.Close()
		readOnly = s.store.ReadOnlyReason()
	} else if u, err := config.OllamaURL(cfg.Ollama); err == nil {
		s = &session{cfg: cfg, host: u.String(), client: ollamaClient(u, cfg)}
	} else {
		return err
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	// Versions, model names and errors come from the server: one clean line.
	row := func(k, v string) { fmt.Fprintf(tw, "%s\t%s\n", k, sanitize.Line(v)) }
	// A path goes as sanitize.Path writes it: Line again would change a
	// quoted one ("/tmp/a  b" lost a space).
	pathRow := func(k, path, rest string) {
		sep := ""
		if strings.HasPrefix(rest, " ") {
			sep = " " // Line trims it
		}
		fmt.Fprintf(tw, "%s\t%s%s%s\n", k, sanitize.Path(path), sep, sanitize.Line(rest))
	}

	cfgState := "not found, using defaults"
	if cfg.ConfigFileFound {
		cfgState = "loaded"
	}
	n, over := 0, 0
	for _, bad := range badSettings {
		switch {
		case errors.Is(bad, config.ErrConfigFile):
			cfgState = "not read, so none of its settings is used"
		case errors.As(bad, new(config.Overridden)):
			over++
		default:
			n++
		}
	}
	bad := ""
	switch {
	case n == 1:
		bad = "; 1 bad setting below, read as unset"
	case n > 1:
		bad = fmt.Sprintf("; %d bad settings below, each read as unset", n)
	}
	switch {
	case over == 1:
		bad += "; 1 bad value below that a flag or the environment overrides"
	case over > 1:
		bad += fmt.Sprintf("; %d bad values below that flags or the environment override", over)
	}
	pathRow("config", cfg.ConfigFile, fmt.Sprintf(" (%s)%s", cfgState, bad))
	if st, err := os.Stat(cfg.ConfigFile); err == nil && cfg.SecretsInFile && st.Mode().Perm()&0o077 != 0 {
		row("", fmt.Sprintf("warning: other users could read it, and it holds a secret (the sync token or the encryption key); fix with: chmod 600 %s", cfg.ConfigFile))
	}
	pathRow("data dir", cfg.DataDir, setBy(cfg, "data_dir"))
	var schema int
	if dbErr == nil {
		if schema, err = s.store.SchemaVersion(ctx); err != nil {
			return err
		}
	}
	switch {
	case dbErr != nil:
		pathRow("database", filepath.Join(cfg.DataDir, memory.DBFileName), ": cannot be opened (below)")
	case readOnly != nil:
		pathRow("database", s.store.Path(), fmt.Sprintf(" (schema %d of %d): %v", schema, memory.LatestSchemaVersion(), readOnly))
	default:
		pathRow("database", s.store.Path(), fmt.Sprintf(" (schema %d of %d)", schema, memory.LatestSchemaVersion()))
	}
	pathRow("log", filepath.Join(cfg.DataDir, "mneme.log"), "")
	if wide := private.Wide(cfg.DataDir); len(wide) > 0 {
		files := fmt.Sprintf("%d files", len(wide))
		if len(wide) == 1 {
			files = "1 file"
		}
		row("permissions", fmt.Sprintf("warning: %s other users could read (e.g. %s); fix with: chmod -R go-rwx %s",
			files, sanitize.Text(wide[0]), sanitize.Text(cfg.DataDir)))
	}
	row("user", cfg.User+setBy(cfg, "user"))

	st := probeOllama(ctx, s.client, s.host, cfg)
	if st.Reachable {
		row("ollama", fmt.Sprintf("%s%s: reachable, version %s", st.Host, setBy(cfg, "ollama"), st.Version))
		switch {
		case !st.Listed && st.Err != nil: // reachable, yet no list: "none installed" was not so
			row("models", "could not be listed: "+st.Err.Error())
		case len(st.Models) == 0:
			row("models", "none installed")
		}
		for i, m := range st.Models {
			k := ""
			if i == 0 {
				k = "models"
			}
			caps := strings.Join(m.Capabilities, ", ")
			if caps == "" {
				caps = "capabilities not reported"
			}
			ctxLen := ""
			if m.ContextLength > 0 {
				ctxLen = fmt.Sprintf(", context %d", m.ContextLength)
			}
			row(k, fmt.Sprintf("%s (%s; %s%s)", m.Name, text.Bytes(m.Size), caps, ctxLen))
		}
	} else {
		row("ollama", fmt.Sprintf("%s%s: NOT reachable", st.Host, setBy(cfg, "ollama")))
	}
	if st.Model != "" {
		why := st.ModelWhy
		if by := cfg.SetBy("model"); by != "" && why == "configured" {
			why = "set by " + by
		}
		row("chat model", fmt.Sprintf("%s (%s)", st.Model, why))
	}
	choice := chatContext(ctx, s.client, st, cfg)
	if by := cfg.SetBy("num_ctx"); by != "" && choice.Source == agent.ContextConfigured {
		choice.Source = "set by " + by
	} else if by := cfg.SetBy("num_ctx_max"); by != "" && choice.Source == agent.ContextCapped {
		choice.Source = "capped by " + by
	}
	row("context", choice.String())
	switch {
	case st.Embed.Name != "":
		row("embedding", fmt.Sprintf("%s (%s)", st.Embed.Name, st.EmbedNote))
	case st.Reachable:
		row("embedding", st.EmbedNote)
	default:
		row("embedding", "unknown while Ollama is unreachable: search is keyword-only")
	}
	learning := cfg.LearningLine(st.Model)
	if by := setBy(cfg, "memory_review"); by != "" && strings.HasSuffix(learning, `")`) {
		learning = strings.TrimSuffix(learning, ")") + ", " + by[2:] // off (memory_review = "off", set by …)
	} else {
		learning += by
	}
	row("learning", learning)
	switch {
	case dbErr != nil:
		row("sync", "not checked: the database cannot be opened")
		row("search", "not checked: the database cannot be opened")
	case readOnly != nil:
		row("sync", syncRow(ctx, s))
		// The index is kept in step with the database by writing to it.
		row("search", "not checked: the database is read-only")
	default:
		row("sync", syncRow(ctx, s))
		if err := searchRow(ctx, s, st, row); err != nil {
			return err
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	problems := badSettings
	if dbErr != nil {
		problems = append(problems, fmt.Errorf("database: %w", dbErr))
	}
	if problem := cmp.Or(st.Err, readOnly); problem != nil {
		if errors.Is(problem, ollama.ErrModelNotFound) && cfg.SetBy("model") != "" {
			problem = fmt.Errorf("%w%s", problem, setBy(cfg, "model")) // which setting to change
		}
		problems = append(problems, problem)
	}
	if cfg.EmbedModel != "" && st.Reachable && st.Embed.Name == "" { // the one set is not installed
		problems = append(problems, errors.New(st.EmbedNote))
	}
	for _, set := range []struct{ key, model string }{{"model", st.Model}, {"extract_model", cfg.ExtractModel}} {
		// An embedding model set to chat, or to learn with (when learning is on).
		if why := ollama.CannotChat(st.Models, set.model); why != "" && (set.key == "model" || cfg.LearnOn()) {
			problems = append(problems, fmt.Errorf("%s %q cannot chat (%s): choose a chat model", set.key, set.model, why))
		}
	}
	if m := cfg.ExtractModel; cfg.LearnOn() && m != "" && st.Reachable && !ollama.Installed(st.Models, m) {
		problems = append(problems, fmt.Errorf("extract_model %q is not installed: nothing is learnt from your turns until you run `ollama pull %s`, or unset extract_model", m, m))
	}
	if len(problems) > 0 {
		fmt.Fprintln(a.stdout)
		for _, p := range problems {
			fmt.Fprintln(a.stdout, "problem:", sanitize.Text(p.Error()))
		}
		return exitError{code: 1}
	}
	fmt.Fprintln(a.stdout, "\nall good")
	return nil
}

// syncRow says whether sync is set up and how its last round went (it
// does not sync: offline is a state, not a problem, for a local-first memory).
func syncRow(ctx context.Context, s *session) string {
	sy := s.syncer()
	if sy == nil {
		return "off (`mneme sync init URL` shares this memory with your other devices)"
	}
	return sy.Status(ctx).Line(time.Now())
}

// searchRow brings the search index up to date and describes it.
func searchRow(ctx context.Context, s *session, st ollamaState, row func(k, v string)) error {
	ix, err := s.openIndex(ctx, st)
	if err != nil {
		return err
	}
	defer ix.Close()
	if err := ix.Sync(ctx); err != nil {
		return err
	}
	idx, err := ix.Status(ctx)
	if err != nil {
		return err
	}
	search := text.Count(idx.Turns, "turn", "turns") + " indexed by keyword"
	if !idx.KeywordOnly {
		search += fmt.Sprintf("; %s waiting for embeddings", text.Thousands(idx.Pending))
	}
	if idx.EmbedError != "" {
		search += "; embedding failed: " + idx.EmbedError
	}
	row("search", search)
	return nil
}

// chatContext is the context the chat model runs with, as the agent
// chooses it (agent.ChooseContext): without the model's details, from the
// settings alone.
// setBy is " (set by MNEME_X)" for a setting a flag, the environment or
// the config file gave, "" for a default: which one to change.
func setBy(cfg config.Config, key string) string {
	if by := cfg.SetBy(key); by != "" {
		return " (set by " + by + ")"
	}
	return ""
}

func chatContext(ctx context.Context, client *api.Client, st ollamaState, cfg config.Config) agent.ContextChoice {
	var show *api.ShowResponse
	if st.Reachable && st.Model != "" {
		sctx, cancel := context.WithTimeout(ctx, ollama.ProbeTimeout)
		defer cancel()
		show, _ = client.Show(sctx, &api.ShowRequest{Model: st.Model})
	}
	return agent.ChooseContext(cfg.NumCtx, cfg.NumCtxMax, show)
}
