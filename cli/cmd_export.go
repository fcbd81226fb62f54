package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/mdexport"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/fileatomic"
)

func exportCommand() command {
	return command{names: []string{"export"}, run: (*App).runExport,
		help: "  mneme export [--format jsonl|markdown] [--conversation ID] [-o FILE]\n" +
			"  mneme export --all [-o FILE]       a full backup: conversations, summaries, notes, documents\n"}
}

func (a *App) runExport(ctx context.Context, args []string) error {
	var common config.Flags
	fs := a.newFlagSet("export", "mneme export [--conversation ID] [--format jsonl|markdown] [-o FILE] | --all [-o FILE]", &common)
	conv := fs.String("conversation", "", "export only the conversation with this `ID` (a prefix is enough)")
	format := fs.String("format", "jsonl", "the `FORMAT`: jsonl (re-importable) or markdown")
	outPath := fs.String("o", "", "write to `FILE` instead of stdout")
	all := fs.Bool("all", false, "a full backup (JSON lines): conversations, messages, summaries, notes and documents; mneme import restores it")
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs("export", rest); err != nil {
		return err
	}
	if *all && (*conv != "" || *format != "jsonl") {
		return exitError{code: 2, msg: "export: --all is a full backup in JSON lines: it takes neither --conversation nor --format markdown"}
	}
	if *format != "jsonl" && *format != "markdown" {
		return exitError{code: 2, msg: fmt.Sprintf("export: --format must be jsonl or markdown, not %q", *format)}
	}
	switch *outPath {
	case "-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1":
		*outPath = "" // standard output, as it is
	}
	s, err := a.openForReading(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	if *all {
		docs, err := docstore.Open(ctx, s.store)
		if err != nil {
			return err
		}
		write := func(w io.Writer) error {
			return s.store.ExportAll(ctx, s.cfg.User, w, docs.ExportLines(ctx, s.cfg.User))
		}
		if *outPath == "" {
			return write(a.stdout)
		}
		if err := fileatomic.Write(*outPath, 0o600, write); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	}
	convID := ""
	if *conv != "" {
		c, err := s.store.Conversation(ctx, s.cfg.User, *conv)
		if err != nil {
			return fmt.Errorf("--conversation %s: %w", *conv, err)
		}
		convID = c.ID
	}
	export := func(w io.Writer) error {
		if *format == "markdown" {
			return mdexport.Export(ctx, s.store, s.cfg.User, convID, w)
		}
		return s.store.Export(ctx, s.cfg.User, convID, w)
	}
	if *outPath == "" {
		return export(a.stdout)
	}
	if err := fileatomic.Write(*outPath, 0o600, export); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return nil
}
