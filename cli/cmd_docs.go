package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/mneme-dev/mneme/docs"
	"github.com/mneme-dev/mneme/docs/ingest"
	"github.com/mneme-dev/mneme/internal/printer"
	"github.com/mneme-dev/mneme/internal/progress"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
)

func docsCommand() command {
	return command{names: []string{"docs"}, run: (*App).runDocs,
		help: "  mneme docs COMMAND [--json]        your documents: add, list, search, show, rm\n"}
}

// docsCommands are the commands of `mneme docs`, as its help lists them.
func docsCommands() []command {
	return []command{
		{names: []string{"add"}, help: "  add PATH...          add files, directories (honouring .gitignore) and globs; --collection NAME\n", run: (*App).docsAdd},
		{names: []string{"list", "ls"}, help: "  list                 list your documents; --collection NAME filters\n", run: (*App).docsList},
		{names: []string{"search"}, help: "  search QUERY...      search your documents by meaning and by words\n", run: (*App).docsSearch},
		{names: []string{"show"}, help: "  show ID              a document's text; --chunk N shows one passage\n", run: (*App).docsShow},
		{names: []string{"rm", "delete"}, help: "  rm ID|PATH...        remove documents, or those added from a folder (on every device once synced)\n", run: (*App).docsRemove},
	}
}

func docsUsage() string {
	var b strings.Builder
	b.WriteString(`Usage: mneme docs COMMAND [--json] ...

Documents are files you add: notes, manuals, papers, web pages (Markdown,
text, HTML, PDF, DOCX, CSV). They are cut into passages, indexed by words
at once and by meaning in the background, and the model searches them
with file_search and cites what it uses.

Commands:
`)
	for _, c := range docsCommands() {
		b.WriteString(c.help)
	}
	b.WriteString("\nEvery command takes --json, and the common flags (--user, --data-dir, ...).\n")
	return b.String()
}

func (a *App) runDocs(ctx context.Context, args []string) error {
	return a.dispatch(ctx, "docs", docsCommands(), docsUsage(), args)
}

// docsIndexEvery is how many files `docs add` stores between two writes
// of the keyword index.
const docsIndexEvery = 100

func (a *App) docsAdd(ctx context.Context, args []string) error {
	var collection string
	common, asJSON, rest, err := a.docsFlags("add", "add [--json] [--collection NAME] PATH...", args, func(fs *flag.FlagSet) {
		fs.StringVar(&collection, "collection", "", "put the documents in the collection `NAME`")
	})
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return exitError{code: 2, msg: "docs add: give files, directories or globs to add"}
	}
	collection = strings.TrimSpace(collection)
	if strings.IndexFunc(collection, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
		return exitError{code: 2, msg: fmt.Sprintf("docs add: --collection %q: a collection's name has no control or formatting characters", collection)}
	}
	// The files first, then the embedding model: an Ollama that does not
	// answer held the adds back, and Ctrl+C meanwhile lost them.
	return a.withNoteIndex(ctx, common, false, func(s *session, ix *index.Index) error {
		found := docs.Expand(rest)
		bar := progress.NewBar(a.stderr, len(found), "files")
		adder := s.docAdder(ix, collection)
		results := make([]ingest.Added, 0, len(found))
		counts := map[string]int{}
		for i, c := range found {
			if ctx.Err() != nil {
				break
			}
			r := ingest.Added{Path: c.Path, Skipped: c.Skip}
			var err error
			if c.Skip == "" {
				r, err = adder.Add(ctx, c.Path, false)
			}
			if ctx.Err() != nil && (r.Skipped != "" || err != nil) {
				break // stopped while adding it: not stored, not skipped
			}
			if err != nil { // the store failed: so would every file after it
				bar.Clear()
				return fmt.Errorf("docs add %s: %w (%d of %s stored before it)", sanitize.Line(c.Path), err, i, text.Count(len(found), "file", "files"))
			}
			results = append(results, r)
			if (i+1)%docsIndexEvery == 0 {
				if err := ix.IndexDocuments(ctx); err != nil {
					return err
				}
			}
			if r.Skipped != "" {
				counts["skipped"]++
			} else {
				counts[string(r.Outcome)]++
			}
			if !asJSON {
				bar.Clear()
				fmt.Fprintln(a.stdout, r)
			}
			bar.Show(i + 1)
		}
		bar.Clear()
		if ctx.Err() == nil {
			gone, err := a.dropGone(ctx, s, ix, rest, !asJSON)
			if err != nil {
				return err
			}
			results = append(results, gone...)
			counts[string(docstore.Removed)] = len(gone)
		}
		// Said before the last keyword write: after Ctrl+C, that write may
		// outlast the grace a stopped command has (what it leaves, the
		// next command indexes).
		if asJSON {
			if err := writeJSON(a.stdout, results); err != nil {
				return err
			}
		} else {
			removed := ""
			if n := counts[string(docstore.Removed)]; n > 0 {
				removed = fmt.Sprintf(", %d removed", n)
			}
			fmt.Fprintf(a.stdout, "%d added, %d updated, %d unchanged, %d skipped%s\n",
				counts[string(docstore.Added)], counts[string(docstore.Updated)], counts[string(docstore.Unchanged)]+counts[string(docstore.Moved)], counts["skipped"], removed)
		}
		switch {
		case ctx.Err() != nil && len(results) < len(found):
			fmt.Fprintf(a.stderr, "mneme: docs add: stopped after %s of %s; the same command again adds the rest\n", text.Thousands(len(results)), text.Count(len(found), "file", "files"))
		case ctx.Err() != nil:
			fmt.Fprintln(a.stderr, "mneme: docs add: stopped: every file is stored, and found by its words; search by meaning catches up when mneme next runs")
		}
		if err := ix.IndexDocuments(context.WithoutCancel(ctx)); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if a.useEmbedding(ctx, s, ix) {
			if err := a.embedPassages(ctx, ix, s.cfg.User, !asJSON); err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if counts["skipped"] == len(results) {
			return exitError{code: 1, msg: "docs add: nothing was added"}
		}
		return nil
	})
}

// dropGone removes the documents whose files are gone from the folders
// added again (ingest.Gone), saying so when say.
func (a *App) dropGone(ctx context.Context, s *session, ix *index.Index, paths []string, say bool) ([]ingest.Added, error) {
	gone, err := ingest.Gone(ctx, ix.Docs(), s.cfg.User, paths)
	if err != nil || len(gone) == 0 {
		return nil, err
	}
	if s.cfg.Sync.URL != "" || s.store.IsReplica() {
		// Synced, a document may be another device's, added from the same
		// path there: said, not removed.
		for _, d := range gone {
			fmt.Fprintf(a.stderr, "mneme: docs add: %s is no longer in the folder here; another device may still have it (mneme docs rm PATH removes it)\n", sanitize.Line(d.Path))
		}
		return nil, nil
	}
	ids := make([]string, len(gone))
	out := make([]ingest.Added, len(gone))
	for i, d := range gone {
		ids[i], out[i] = d.ID, ingest.Added{Path: d.Path, Outcome: docstore.Removed, Doc: d}
	}
	if err := ix.RemoveDocuments(ctx, s.cfg.User, ids); err != nil {
		return nil, err
	}
	if say {
		for _, r := range out {
			fmt.Fprintln(a.stdout, r)
		}
	}
	return out, nil
}

// embedPassages embeds the user's passages still waiting for it (what
// docs add stored, and what an earlier one stopped by Ctrl+C left) while
// the command waits, when an embedding model answers: Ctrl+C leaves the
// rest to the background (the next chat or command that embeds).
func (a *App) embedPassages(ctx context.Context, ix *index.Index, user string, say bool) error {
	model := ix.EmbedModelName()
	if model == "" {
		return nil
	}
	pending, err := ix.Docs().PendingEmbedding(ctx, user, model)
	if err != nil || len(pending) == 0 {
		return err
	}
	if ix.QueriesOnly() {
		if say {
			fmt.Fprintln(a.stdout, "Words are searchable; the passages are embedded later, with the embedding model you keep (--embed-model is for this command's queries).")
		}
		return nil
	}
	if say {
		fmt.Fprintf(a.stdout, "Words are searchable; embedding the passages with %s for search by meaning (Ctrl+C leaves the rest for later)…\n", sanitize.Line(model))
	}
	err = ix.EmbedDocuments(ctx)
	switch {
	case ctx.Err() != nil:
		return exitError{code: ExitInterrupted, msg: "docs add: embedding stopped; the documents are added, and the rest of their passages are embedded later"}
	case err != nil:
		// Search by words works; the background work tries again.
		s := "Embedding paused (" + sanitize.Line(err.Error()) + "); the passages are embedded later."
		if say {
			fmt.Fprintln(a.stdout, s)
		}
	case say:
		fmt.Fprintln(a.stdout, "Search by meaning is ready.")
	}
	return nil
}

func (a *App) docsList(ctx context.Context, args []string) error {
	var collection string
	common, asJSON, rest, err := a.docsFlags("list", "list [--json] [--collection NAME]", args, func(fs *flag.FlagSet) {
		fs.StringVar(&collection, "collection", "", "only the collection `NAME`")
	})
	if err != nil {
		return err
	}
	if err := noArgs("docs list", rest); err != nil {
		return err
	}
	return a.withNoteIndex(ctx, common, true, func(s *session, ix *index.Index) error {
		list, err := ix.Docs().List(ctx, s.cfg.User, collection)
		if err != nil {
			return err
		}
		pending := map[string]int{}
		model := ix.EmbedModelName()
		if model != "" {
			if pending, err = ix.Docs().PendingEmbedding(ctx, s.cfg.User, model); err != nil {
				return err
			}
		}
		rows := make([]printer.DocRow, len(list))
		for i, d := range list {
			rows[i] = printer.DocRow{Document: d, State: "indexed", Pending: pending[d.ID]}
			switch n := pending[d.ID]; {
			case model == "":
				rows[i].State = "indexed by words" // no embedding model to say more
			case n > 0:
				rows[i].State = fmt.Sprintf("embedding %d pending", n)
			}
		}
		if asJSON {
			return writeJSON(a.stdout, rows)
		}
		if len(rows) == 0 && collection != "" {
			fmt.Fprintf(a.stdout, "No documents in collection %q.\n", sanitize.Line(collection))
			return nil
		}
		if len(rows) == 0 {
			fmt.Fprintln(a.stdout, "No documents yet: add some with `mneme docs add PATH...`.")
			return nil
		}
		return printer.Documents(a.stdout, rows, time.Now())
	})
}

func (a *App) docsSearch(ctx context.Context, args []string) error {
	var collection string
	var limit int
	common, asJSON, rest, err := a.docsFlags("search", "search [--json] [--limit N] [--collection NAME] QUERY...", args, func(fs *flag.FlagSet) {
		fs.StringVar(&collection, "collection", "", "only the collection `NAME`")
		fs.IntVar(&limit, "limit", index.DefaultDocLimit, fmt.Sprintf("passages to show (1-%d)", index.MaxDocLimit))
	})
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(rest, " "))
	if query == "" {
		return exitError{code: 2, msg: "docs search: nothing to search for: give a query"}
	}
	if limit < 1 || limit > index.MaxDocLimit {
		return exitError{code: 2, msg: fmt.Sprintf("docs search: --limit must be 1-%d", index.MaxDocLimit)}
	}
	// The passages' vectors are made when they are added (and in the
	// background): a search uses what is there without waiting.
	return a.withNoteIndex(ctx, common, true, func(s *session, ix *index.Index) error {
		if err := ix.IndexDocuments(ctx); err != nil {
			return err
		}
		hits, err := ix.SearchDocs(ctx, index.DocQuery{UserID: s.cfg.User, Text: query, Limit: limit, Collection: collection})
		if err != nil {
			return err
		}
		if asJSON {
			return writeJSON(a.stdout, hits)
		}
		if len(hits) == 0 && collection != "" {
			fmt.Fprintf(a.stdout, "No passage matches %q in collection %q.\n", sanitize.Line(query), sanitize.Line(collection))
			return nil
		}
		if len(hits) == 0 {
			fmt.Fprintf(a.stdout, "No passage matches %q.\n", sanitize.Line(query))
			return nil
		}
		printer.DocHits(a.stdout, hits)
		return nil
	})
}

func (a *App) docsShow(ctx context.Context, args []string) error {
	chunk := -1 // the whole document
	common, asJSON, rest, err := a.docsFlags("show", "show [--json] [--chunk N] ID|PATH", args, func(fs *flag.FlagSet) {
		fs.Func("chunk", "show only passage `N` (its number from docs search)", func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return errors.New("want a passage number from 0")
			}
			chunk = n
			return nil
		})
	})
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return exitError{code: 2, msg: "docs show: give one document id or path"}
	}
	return a.withNoteIndex(ctx, common, false, func(s *session, ix *index.Index) error {
		named, err := ingest.Named(ctx, ix.Docs(), s.cfg.User, rest[0]) // as docs rm names them
		// To read, a shorter prefix does when it is unique.
		if errors.Is(err, memory.ErrShortPrefix) {
			d, gerr := ix.Docs().Get(ctx, s.cfg.User, rest[0])
			named, err = []docstore.Document{d}, gerr
		}
		if err == nil && len(named) != 1 {
			err = fmt.Errorf("%s names %d documents: give one", sanitize.Line(rest[0]), len(named))
		}
		if err != nil {
			return fmt.Errorf("docs show: %w", err)
		}
		d := named[0]
		chunks, err := ix.Docs().Chunks(ctx, s.cfg.User, d.ID)
		if err != nil {
			return err
		}
		if chunk >= 0 {
			if chunk >= len(chunks) {
				return exitError{code: 1, msg: fmt.Sprintf("docs show: %s has passages 0-%d", sanitize.Line(text.Prefix(d.ID, 8)), len(chunks)-1)}
			}
			chunks = chunks[chunk : chunk+1]
		}
		if asJSON {
			return writeJSON(a.stdout, struct {
				docstore.Document
				Passages []docstore.Chunk `json:"passages"`
			}{d, chunks})
		}
		fmt.Fprintf(a.stdout, "%s\n%s · %s · %s\n", sanitize.Title(cmp.Or(d.Title, filepath.Base(d.Path))), sanitize.Line(d.Path), d.Type, text.Bytes(d.Size))
		for _, c := range chunks {
			head := strings.Join(append([]string{fmt.Sprintf("passage %d", c.Number)}, printer.Place(c.Page, c.Heading)...), " · ")
			fmt.Fprintf(a.stdout, "\n── %s\n%s\n", head, sanitize.Text(c.Text))
		}
		return nil
	})
}

func (a *App) docsRemove(ctx context.Context, args []string) error {
	common, asJSON, rest, err := a.docsFlags("rm", "rm [--json] ID|PATH...", args)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return exitError{code: 2, msg: "docs rm: give the ids of the documents to remove"}
	}
	return a.withNoteIndex(ctx, common, false, func(s *session, ix *index.Index) error {
		removed := []docstore.Document{} // --json: [] when none
		var failed []string
		code := 1
		for _, id := range rest {
			docs, err := ingest.Named(ctx, ix.Docs(), s.cfg.User, id)
			if err != nil {
				failed = append(failed, err.Error())
				if errors.Is(err, memory.ErrShortPrefix) {
					code = 2 // a usage error, as in conversations rm and memory rm
				}
				continue
			}
			ids := make([]string, len(docs))
			for i, d := range docs {
				ids[i] = d.ID
			}
			if err := ix.RemoveDocuments(ctx, s.cfg.User, ids); err != nil {
				return err
			}
			removed = append(removed, docs...)
		}
		if asJSON {
			if err := writeJSON(a.stdout, removed); err != nil {
				return err
			}
		} else {
			for _, d := range removed {
				fmt.Fprintf(a.stdout, "removed %s (%s)\n", cmp.Or(sanitize.Title(d.Title), "untitled"), sanitize.Line(d.Path))
			}
		}
		if len(failed) > 0 {
			return exitError{code: code, msg: "docs rm: " + strings.Join(failed, "; ")}
		}
		return nil
	})
}
