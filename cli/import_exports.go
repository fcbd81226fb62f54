package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/importer"
	"github.com/mneme-dev/mneme/internal/progress"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/stdin"
	"github.com/mneme-dev/mneme/internal/text"
)

// openExport opens what `mneme import` names (a file, a zip, or - for
// stdin) and tells its format, unless --from names it. Ctrl+C ends a wait
// for stdin at once (a pipe left open and silent).
func (a *App) openExport(ctx context.Context, name, from string) (*importer.Input, error) {
	format, err := importer.ParseFormat(from)
	if err != nil {
		return nil, exitError{code: 2, msg: "import: " + err.Error()}
	}
	var in *importer.Input
	if name == "-" {
		in, err = importer.OpenReader(stdin.Cancelable(ctx, a.stdin), format)
	} else {
		in, err = importer.Open(name, format)
	}
	if err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	return in, nil
}

// importExport imports another assistant's export (ChatGPT, Claude, Open
// WebUI): conversations stream in, bad ones are reported with their
// position, and the end says what was kept and what was skipped and why.
func (a *App) importExport(ctx context.Context, common config.Flags, path string, in *importer.Input, extract bool) error {
	r, err := importer.NewReader(in)
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	start := time.Now()
	prog := progress.NewImport(a.stderr)
	if prog.OnTerminal() && path != "-" {
		// A pass over the bytes (about a second a GB) gives the bar its total.
		prog.Total = importer.CountConversations(path, in.Format)
	}
	fmt.Fprintf(a.stderr, "mneme: importing an export of %s (%s)…\n", in.Format.Name(), sanitize.Line(in.Name))
	follow, err := s.startImportIndex(ctx)
	if err != nil {
		return err
	}
	defer follow.close()
	sum, err := importer.Run(ctx, s.store, s.cfg.User, r, importer.Options{
		OnBatch: follow.Batch,
		OnBad: func(err error) {
			prog.End()
			fmt.Fprintf(a.stderr, "mneme: import: skipped %s\n", sanitize.Line(err.Error()))
		},
		Progress: prog.Report,
	})
	prog.End()
	if err != nil && ctx.Err() != nil {
		s.log.Info("import interrupted", "format", in.Format, "conversations", sum.Conversations, "imported", sum.Stats.Imported, "err", err)
		return exitError{code: ExitInterrupted, msg: fmt.Sprintf("import interrupted: %s conversations read, %s new messages stored; run the same command again to resume: messages already imported are skipped",
			text.Thousands(sum.Conversations), text.Thousands(sum.Stats.Imported))}
	}
	broken := err
	if err != nil && !errors.Is(err, importer.ErrBroken) && !errors.Is(err, importer.ErrNotArray) {
		return err
	}
	if sum.Conversations == 0 && sum.Bad == 0 { // "[]", empty ones, or broken before the first
		if broken != nil {
			return fmt.Errorf("import: %s: %w; nothing was imported", sanitize.Line(in.Name), broken)
		}
		return exitError{code: 1, msg: fmt.Sprintf("import: %s holds no conversations with a message to keep; nothing was imported", sanitize.Line(in.Name))}
	}
	bad := text.Count(sum.Bad, "conversation or message", "conversations or messages")
	if broken == nil && sum.Bad > 0 && sum.Stats.Imported+sum.Stats.Unchanged == 0 {
		// Each one's reason was said above; "Imported 0 messages" and
		// "search is ready" before it told otherwise.
		return nothingImported(bad)
	}
	if ierr := a.indexImported(ctx, s, follow, sum.Stats, extract, func() {
		sum.Report(a.stdout, a.stderr, time.Since(start))
	}); ierr != nil {
		return ierr
	}
	if broken != nil {
		return fmt.Errorf("import: %s: %w; the conversations before it are stored", in.Name, broken)
	}
	if sum.Bad > 0 {
		fmt.Fprintf(a.stderr, "mneme: import: %s could not be read or stored (listed above); the rest is imported\n", bad)
	}
	return nil
}
