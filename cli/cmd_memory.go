package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/flagtext"
	"github.com/mneme-dev/mneme/internal/printer"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/stdin"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

func memoryCommand() command {
	return command{names: []string{"memory"}, run: (*App).runMemory,
		help: "  mneme memory COMMAND [--json]      notes mneme keeps about you: list, add, edit, rm, search, history, undo, …\n"}
}

// memoryCommands are the commands of `mneme memory`, as its help lists them.
func memoryCommands() []command {
	return []command{
		{names: []string{"list", "ls"}, help: "  list                 list your notes, newest first, with who made them and where; --tag TAG filters\n", run: (*App).memoryList},
		{names: []string{"add"}, help: "  add TEXT...          save a note; --tag TAG (may repeat) tags it\n", run: (*App).memoryAdd},
		{names: []string{"edit"}, help: "  edit ID TEXT...      replace a note's text (an id, or a prefix of 8+ characters that is unique)\n", run: (*App).memoryEdit},
		{names: []string{"rm", "delete"}, help: "  rm ID                delete a note (an id, or a prefix of 8+ characters that is unique)\n", run: (*App).memoryRemove},
		{names: []string{"search"}, help: "  search QUERY...      search your notes by meaning and by words\n", run: (*App).memorySearch},
		{names: []string{"archive"}, help: "  archive ID           put a note away: kept, listed with list --archived, never recalled\n",
			run: func(a *App, ctx context.Context, args []string) error { return a.memoryArchive(ctx, args, true) }},
		{names: []string{"unarchive"}, help: "  unarchive ID         bring an archived note back into use\n",
			run: func(a *App, ctx context.Context, args []string) error { return a.memoryArchive(ctx, args, false) }},
		{names: []string{"pending"}, help: "  pending              learnt notes waiting for your review (memory_review = \"inbox\")\n", run: (*App).memoryPending},
		{names: []string{"approve"}, help: "  approve ID...|--all  keep pending notes: they become active and are recalled\n",
			run: func(a *App, ctx context.Context, args []string) error { return a.memoryReview(ctx, args, true) }},
		{names: []string{"reject"}, help: "  reject ID...|--all   delete pending notes\n",
			run: func(a *App, ctx context.Context, args []string) error { return a.memoryReview(ctx, args, false) }},
		{names: []string{"history"}, help: "  history ID           a note's changes, newest first: who made each, when, the text before and after\n", run: (*App).memoryHistory},
		{names: []string{"undo"}, help: "  undo [CHANGE]        revert the last change of your notes not undone yet, or the change named\n", run: (*App).memoryUndo},
	}
}

// memoryUsage is the help of `mneme memory`.
func memoryUsage() string {
	var b strings.Builder
	b.WriteString(`Usage: mneme memory COMMAND [--json] ...

Notes are facts mneme remembers about you: learnt from your conversations
(memory_review), saved by the model with its memory tools, or added by you.
The ones relevant to a prompt are recalled into it.

Commands:
`)
	for _, c := range memoryCommands() {
		b.WriteString(c.help)
	}
	b.WriteString("\nEvery command takes --json, and the common flags (--user, --data-dir, ...).\n")
	return b.String()
}

func (a *App) runMemory(ctx context.Context, args []string) error {
	return a.dispatch(ctx, "memory", memoryCommands(), memoryUsage(), args)
}

// dispatch runs the subcommand of group (memory, docs) that args name,
// or its help.
func (a *App) dispatch(ctx context.Context, group string, cmds []command, usage string, args []string) error {
	sub := ""
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		sub, args = args[0], args[1:]
	}
	for _, c := range cmds {
		if slices.Contains(c.names, sub) {
			return c.run(a, ctx, args)
		}
	}
	if sub == "" && len(args) > 0 && flagtext.HelpAsked(args[:1]) {
		sub = "help"
	}
	switch sub {
	case "help":
		// `mneme memory help add` is add's own help, as `mneme help memory add` is.
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			return a.dispatch(ctx, group, cmds, usage, []string{args[0], "--help"})
		}
		fmt.Fprint(a.stdout, usage)
		return nil
	case "":
		names := make([]string, len(cmds))
		for i, c := range cmds {
			names[i] = c.names[0]
		}
		fmt.Fprint(a.stderr, usage)
		return exitError{code: 2, msg: fmt.Sprintf("%s: give a command: %s or %s", group, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])}
	default:
		fmt.Fprint(a.stderr, usage)
		return exitError{code: 2, msg: fmt.Sprintf("%s: unknown command %q", group, sub)}
	}
}

// memoryFlags parses a memory command's flags and returns its arguments.
// extra registers the command's own flags.
func (a *App) memoryFlags(name, usage string, args []string, extra ...func(*flag.FlagSet)) (config.Flags, bool, []string, error) {
	return a.groupFlags("memory", name, usage, args, extra...)
}

// docsFlags is memoryFlags for `mneme docs NAME`.
func (a *App) docsFlags(name, usage string, args []string, extra ...func(*flag.FlagSet)) (config.Flags, bool, []string, error) {
	return a.groupFlags("docs", name, usage, args, extra...)
}

// groupFlags parses the flags of `mneme GROUP NAME`: the common ones and
// --json, then extra.
func (a *App) groupFlags(group, name, usage string, args []string, extra ...func(*flag.FlagSet)) (config.Flags, bool, []string, error) {
	var common config.Flags
	fs := a.newFlagSet(group+" "+name, "mneme "+group+" "+usage, &common)
	asJSON := fs.Bool("json", false, "print JSON")
	for _, r := range extra {
		r(fs)
	}
	rest, err := a.parseArgs(fs, args)
	return common, *asJSON, rest, err
}

// noteError turns a store error into the command's exit: bad text or a
// too short id prefix is a usage error (2), anything else a failure (1).
func noteError(cmd string, err error) error {
	if errors.Is(err, memory.ErrInvalid) || errors.Is(err, memory.ErrShortPrefix) {
		return exitError{code: 2, msg: fmt.Sprintf("memory %s: %v", cmd, err)}
	}
	return fmt.Errorf("memory %s: %w", cmd, err)
}

// tagFlags collects a repeatable --tag.
type tagFlags []string

func (t *tagFlags) String() string     { return strings.Join(*t, ",") }
func (t *tagFlags) Set(v string) error { *t = append(*t, v); return nil }

func (t *tagFlags) register(usage string) func(*flag.FlagSet) {
	return func(fs *flag.FlagSet) { fs.Var(t, "tag", usage) }
}

func (a *App) memoryList(ctx context.Context, args []string) error {
	var tags tagFlags
	var archived bool
	common, asJSON, rest, err := a.memoryFlags("list", "list [--json] [--archived] [--tag TAG]...", args,
		tags.register("only notes with this `TAG` (may repeat: notes with all of them)"),
		func(fs *flag.FlagSet) {
			fs.BoolVar(&archived, "archived", false, "also list archived notes (never recalled)")
		})
	if err != nil {
		return err
	}
	if err := noArgs("memory list", rest); err != nil {
		return err
	}
	notes, err := a.userNotes(ctx, common, archived)
	if err != nil {
		return err
	}
	notes = slices.DeleteFunc(notes, func(n memory.Note) bool {
		return slices.ContainsFunc(tags, func(t string) bool { return !n.HasTag(t) })
	})
	if asJSON {
		return writeJSON(a.stdout, notes)
	}
	if len(notes) == 0 {
		if len(tags) > 0 {
			fmt.Fprintf(a.stdout, "No note is tagged %s.\n", sanitize.Line(strings.Join(tags, " and ")))
			return nil
		}
		fmt.Fprintln(a.stdout, "No notes yet. mneme learns them from your conversations, the model saves them when you ask it to remember something, or run `mneme memory add TEXT`.")
		return nil
	}
	return printer.Notes(a.stdout, notes, time.Now())
}

// userNotes are the user's notes; with archived, the archived ones too.
func (a *App) userNotes(ctx context.Context, flags config.Flags, archived bool) ([]memory.Note, error) {
	s, err := a.open(ctx, flags)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	notes, err := s.store.ListNotes(ctx, s.cfg.User)
	if err != nil || !archived {
		return notes, err
	}
	old, err := s.store.ListArchivedNotes(ctx, s.cfg.User)
	return append(notes, old...), err
}

// memoryArchive is `memory archive ID` and `memory unarchive ID`: an
// archived note is kept and listed with --archived, never recalled.
func (a *App) memoryArchive(ctx context.Context, args []string, archive bool) error {
	cmd, status, verb := "unarchive", memory.NoteActive, "Unarchived"
	if archive {
		cmd, status, verb = "archive", memory.NoteArchived, "Archived"
	}
	common, asJSON, rest, err := a.memoryFlags(cmd, cmd+" [--json] ID", args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return exitError{code: 2, msg: fmt.Sprintf("memory %s: give one note id", cmd)}
	}
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	if cur, err := s.store.Note(ctx, s.cfg.User, rest[0]); err == nil && cur.Status == memory.NotePending {
		return exitError{code: 2, msg: fmt.Sprintf("memory %s: note %s waits for your review: mneme memory approve or reject it", cmd, sanitize.Line(cur.ID))}
	}
	start := time.Now().Truncate(time.Millisecond)
	n, err := s.store.SetNoteStatus(ctx, s.cfg.User, rest[0], status)
	if err != nil {
		return noteError(cmd, err)
	}
	if n.Updated.Before(start) { // it was so already: nothing written
		verb = "Already " + status + ":"
	}
	return a.printNote(n, verb, asJSON)
}

func (a *App) memoryAdd(ctx context.Context, args []string) error {
	var tags tagFlags
	common, asJSON, rest, err := a.memoryFlags("add", "add [--json] [--tag TAG]... TEXT...", args,
		tags.register("tag the note with `TAG` (may repeat)"))
	if err != nil {
		return err
	}
	text := strings.Join(rest, " ")
	if len(rest) == 0 && stdin.Piped(a.stdin) { // echo TEXT | mneme memory add
		if text, err = stdin.Read(ctx, a.stdin, 4*memory.MaxNoteRunes, func() {}); err != nil {
			return noteError("add", err)
		}
	}
	if strings.TrimSpace(text) == "" {
		return exitError{code: 2, msg: "memory add: nothing to save: give the note's text, or pipe it"}
	}
	if _, err := memory.CheckTags(tags); err != nil {
		return noteError("add", err)
	}
	return a.changeNote(ctx, common, "add", "Saved", asJSON, true, func(ix *index.Index, user string) (memory.Note, error) {
		// The same text again (a repeated add, two scripts) is the note
		// kept; the text of a note waiting for review approves it.
		if n, ok, err := ix.KeptNote(ctx, user, text); err != nil || ok {
			return n, err
		}
		if n, ok, err := ix.ApprovePending(ctx, user, text); err != nil || ok {
			return n, err
		}
		return ix.SaveNote(ctx, user, text, memory.NoteSource{By: memory.SourceUser, Tags: tags})
	})
}

func (a *App) memoryEdit(ctx context.Context, args []string) error {
	common, asJSON, rest, err := a.memoryFlags("edit", "edit [--json] ID TEXT...", args)
	if err != nil {
		return err
	}
	if len(rest) < 2 || strings.TrimSpace(strings.Join(rest[1:], " ")) == "" {
		return exitError{code: 2, msg: "memory edit: give the note's id and its new text"}
	}
	return a.changeNote(ctx, common, "edit", "Updated", asJSON, true, func(ix *index.Index, user string) (memory.Note, error) {
		return ix.UpdateNote(ctx, user, rest[0], strings.Join(rest[1:], " "))
	})
}

func (a *App) memoryRemove(ctx context.Context, args []string) error {
	common, asJSON, rest, err := a.memoryFlags("rm", "rm [--json] ID", args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return exitError{code: 2, msg: "memory rm: give one note id"}
	}
	return a.changeNote(ctx, common, "rm", "Deleted", asJSON, false, func(ix *index.Index, user string) (memory.Note, error) {
		return ix.DeleteNote(ctx, user, rest[0])
	})
}

// changeNote opens the session and the index, applies change, prints the
// note, and sends the change to the sync server when sync is set up.
func (a *App) changeNote(ctx context.Context, common config.Flags, cmd, verb string, asJSON, embed bool,
	change func(ix *index.Index, user string) (memory.Note, error)) error {
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	// The change comes first, then the embedding: an Ollama that does not
	// answer held the change back for seconds, and Ctrl+C meanwhile lost it.
	ix, err := a.noteIndex(ctx, s, false)
	if err != nil {
		return err
	}
	defer ix.Close()
	start := time.Now().Truncate(time.Millisecond)
	n, err := change(ix, s.cfg.User)
	if err != nil {
		return noteError(cmd, err)
	}
	switch {
	case verb == "Updated" && n.Updated.Before(start):
		verb = "Unchanged (the same text):" // nothing written
	case verb == "Saved" && n.Created.Before(start) && !n.Updated.Before(start):
		verb = "Approved (it waited for your review):" // the text of a pending note
	case verb == "Saved" && n.Created.Before(start):
		verb = "Already noted:" // the same text, kept before
	}
	if err := a.printNote(n, verb, asJSON); err != nil {
		return err
	}
	if embed && !n.Updated.Before(start) { // before the sync, which sends the vector with the note
		a.embedNote(ctx, s, ix, n)
	}
	s.syncAfterChange(ctx, ix)
	return nil
}

// embedNote embeds a note just written, once the command has said so;
// Ctrl+C or a silent Ollama leaves it to the next run with the model.
func (a *App) embedNote(ctx context.Context, s *session, ix *index.Index, n memory.Note) {
	if a.useEmbedding(ctx, s, ix) {
		ix.EmbedNote(ctx, n)
	}
}

// useEmbedding gives ix the embedding model, asked of Ollama after a
// command's writes (an Ollama that does not answer held them back, and
// Ctrl+C meanwhile lost them); one that does not answer is said.
func (a *App) useEmbedding(ctx context.Context, s *session, ix *index.Index) bool {
	st := a.probeEmbedding(ctx, s)
	if st.Embed.Name == "" || ctx.Err() != nil {
		return false
	}
	ix.SetEmbedding(s.client, index.EmbedModel{Name: st.Embed.Name, ContextLength: st.Embed.ContextLength})
	return true
}

func (a *App) memorySearch(ctx context.Context, args []string) error {
	var common config.Flags
	fs := a.newFlagSet("memory search", "mneme memory search [--json] [--limit N] QUERY...", &common)
	asJSON := fs.Bool("json", false, "print JSON")
	limit := fs.Int("limit", index.DefaultSearchLimit, fmt.Sprintf("results to show (1-%d)", index.MaxSearchLimit))
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(rest, " "))
	if query == "" {
		return exitError{code: 2, msg: "memory search: nothing to search for: give a query"}
	}
	if *limit < 1 || *limit > index.MaxSearchLimit {
		return exitError{code: 2, msg: fmt.Sprintf("memory search: --limit must be 1-%d", index.MaxSearchLimit)}
	}
	return a.withIndex(ctx, common, func(s *session, ix *index.Index) error {
		results, err := ix.SearchNotes(ctx, index.NoteQuery{UserID: s.cfg.User, Text: query, Limit: *limit,
			MinSimilarity: s.cfg.RecallQuery().MinSimilarity})
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(a.stdout, results)
		}
		if len(results) == 0 {
			fmt.Fprintf(a.stdout, "No note matches %q.\n", query)
			return nil
		}
		for i, r := range results {
			id := sanitize.Line(r.ID) // an imported backup's id is text like any other
			switch r.Status {
			case memory.NotePending: // never recalled until approved
				id += " (pending review: `mneme memory approve " + id + "`)"
			case memory.NoteActive, "":
			default:
				id += " (" + r.Status + ")"
			}
			if r.MatchedBy == index.MatchRelated {
				id += " (related: it shares no word with the query)"
			}
			fmt.Fprintf(a.stdout, "%2d. %.2f  %s\n    %s\n", i+1, r.Score, text.Cut(text.OneLine(sanitize.Text(r.Content)), 100), id)
		}
		return nil
	})
}

func (a *App) printNote(n memory.Note, verb string, asJSON bool) error {
	if asJSON {
		return writeJSON(a.stdout, n)
	}
	fmt.Fprintf(a.stdout, "%s note %s: %s\n", verb, n.ID, text.Cut(text.OneLine(sanitize.Text(n.Content)), 100))
	return nil
}
