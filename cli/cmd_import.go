package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/importer"
	"github.com/mneme-dev/mneme/internal/progress"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/stdin"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
)

func importCommand() command {
	return command{names: []string{"import"}, run: (*App).runImport,
		help: "  mneme import FILE|-                import ChatGPT, Claude or Open WebUI exports, or JSON-lines messages\n"}
}

// importMemoryLimit is the Go heap a big import aims to stay under (the
// runtime's soft limit, unless GOMEMLIMIT says otherwise): the import
// streams, and without it the collector lets garbage from a long run of
// batches grow the process well past what it holds.
const importMemoryLimit = 128 << 20

// importGCPercent is the import's GOGC (unless GOGC says otherwise).
const importGCPercent = 400

func (a *App) runImport(ctx context.Context, args []string) error {
	if a.getenv("GOMEMLIMIT") == "" {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(importMemoryLimit))
	}
	if a.getenv("GOGC") == "" {
		// Under that limit, collect less often: an import allocates much
		// short-lived garbage (JSON, analysis), and the collector's work
		// is otherwise a tenth of its time.
		defer debug.SetGCPercent(debug.SetGCPercent(importGCPercent))
	}
	var common config.Flags
	fs := a.newFlagSet("import", "mneme import [--from chatgpt|claude|openwebui|mneme] [--all-users] [--extract] FILE|-", &common)
	allUsers := fs.Bool("all-users", false, `let lines with "user" write other users' data (an evaluation set); otherwise such lines are skipped`)
	from := fs.String("from", "", "the export's `FORMAT`: chatgpt, claude, openwebui or mneme (default: told from the content)")
	extract := fs.Bool("extract", false, "then learn notes about you from the new turns, as after a chat (slow: a model call or more a turn; Ctrl+C keeps what was learnt)")
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return exitError{code: 2, msg: "import: name one file, or - for stdin"}
	}
	export, err := a.openExport(ctx, rest[0], *from)
	if err != nil {
		return err
	}
	if export.Format != importer.Mneme {
		defer export.Close()
		return a.importExport(ctx, common, rest[0], export, *extract)
	}
	var in io.Reader = export.Reader()
	total := -1 // lines in the file; unknown for stdin
	read := &progress.Counter{}
	var size int64 // the file's, for the progress bar; unknown for stdin
	if rest[0] != "-" {
		export.Close()
		f, err := os.Open(rest[0])
		if err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer f.Close()
		if total, err = progress.CountLines(f); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
		}
		in = f
	}
	read.R = in
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	if *allUsers {
		fmt.Fprintln(a.stderr, `mneme: import: warning: --all-users: lines naming another "user" write into that user's memory`)
	}
	start := time.Now()
	others := 0
	// Ctrl+C stops the import even while it waits for more input on stdin.
	docs, err := docstore.Open(ctx, s.store)
	if err != nil {
		return err
	}
	docsBefore, err := docs.Count(ctx)
	if err != nil {
		return err
	}
	follow, err := s.startImportIndex(ctx)
	if err != nil {
		return err
	}
	defer follow.close()
	prog := progress.NewImport(a.stderr)
	st, err := s.store.Import(ctx, s.cfg.User, stdin.Cancelable(ctx, read), memory.ImportOptions{AllUsers: *allUsers, More: docs.Restorers(), OnBad: func(e memory.LineError) {
		if errors.Is(e, memory.ErrOtherUser) {
			others++
		}
		prog.End()
		fmt.Fprintf(a.stderr, "mneme: import: skipped %s\n", sanitize.Line(e.Error()))
	}, OnBatch: func(refs []memory.ConversationRef) {
		follow.Batch(refs)
		if size > 0 {
			prog.Report(-1, float64(read.N.Load())/float64(size))
		}
	}})
	prog.End()
	if err != nil && ctx.Err() != nil {
		s.log.Info("import interrupted", "imported", st.Imported, "unchanged", st.Unchanged, "lines", st.Lines, "err", err)
		return exitError{code: ExitInterrupted, msg: importInterrupted(st, total)}
	}
	if err != nil {
		return err
	}
	if others > 0 {
		fmt.Fprintf(a.stderr, "mneme: import: skipped %s naming a user other than %q; import them as that user (--user NAME), or pass --all-users\n",
			text.Count(others, "line", "lines"), s.cfg.User)
	}
	docsAfter, err := docs.Count(ctx)
	if err != nil {
		return err
	}
	restoredDocs := docsAfter - docsBefore
	// Nothing went in: said without a summary of nothing before it
	// ("Imported 0 messages", "search is ready", then "nothing to import").
	if st.Lines == 0 {
		return exitError{code: 1, msg: "import: the file holds nothing to import"}
	}
	if st.Bad > 0 && st.Imported+st.Unchanged+st.Conflicts+st.Notes+st.Summaries+restoredDocs == 0 {
		return nothingImported(text.Count(st.Bad, "line", "lines"))
	}
	err = a.indexImported(ctx, s, follow, st, *extract, func() {
		if st.Conflicts > 0 {
			fmt.Fprintf(a.stderr, "mneme: import: %s an id already imported with other content; kept the stored one\n", text.Count(st.Conflicts, "line had", "lines had"))
		}
		if st.Imported == 0 && st.Unchanged > 0 && st.Bad == 0 {
			fmt.Fprintf(a.stdout, "Nothing new: all %s were already there (%s).\n",
				text.Count(st.Unchanged, "message", "messages"), time.Since(start).Round(time.Millisecond))
		} else {
			fmt.Fprintf(a.stdout, "Imported %s into %s in %s (%s unchanged, %s skipped).\n",
				text.Count(st.Imported, "message", "messages"), text.Count(len(st.Conversations), "conversation", "conversations"),
				time.Since(start).Round(time.Millisecond), text.Thousands(st.Unchanged), text.Count(st.Bad, "bad line", "bad lines"))
		}
		if st.Backup {
			fmt.Fprintf(a.stdout, "Restored from the backup: %s, %s and %s not stored before.\n",
				text.Count(st.Notes, "note", "notes"), text.Count(st.Summaries, "summary", "summaries"), text.Count(restoredDocs, "document", "documents"))
		}
	})
	return err
}

// nothingImported is an import of which nothing went in: a script learns
// it from the exit code (each bad line's reason was said above).
func nothingImported(bad string) error {
	return exitError{code: 1, msg: "import: nothing imported: " + bad + " could not be read or stored"}
}

// indexBehind is what an interrupted import says of the keyword index.
const indexBehind = "the keyword index is behind them, and the next mneme command catches it up"

// importInterrupted says how far an interrupted import got and how to
// finish it. Messages are written in batches: the batch being written
// when the import stopped is not stored, and running the import again
// skips every message already there.
func importInterrupted(st memory.ImportStats, totalLines int) string {
	done := st.Imported + st.Unchanged
	var b strings.Builder
	b.WriteString("import interrupted: ")
	if totalLines >= 0 {
		fmt.Fprintf(&b, "%s of ~%s messages are stored", text.Thousands(done), text.Thousands(totalLines))
	} else {
		fmt.Fprintf(&b, "%s messages are stored (%s lines read)", text.Thousands(done), text.Thousands(st.Lines))
	}
	if st.Unchanged > 0 {
		fmt.Fprintf(&b, " (%s of them were already there)", text.Thousands(st.Unchanged))
	}
	if st.Imported > 0 { // the keyword index follows the import, a batch or more behind
		b.WriteString("; " + indexBehind)
	}
	b.WriteString("; run the same command again to resume: messages already imported are skipped")
	return b.String()
}
