package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
)

func conversationsCommand() command {
	return command{names: []string{"conversations", "convs"}, run: (*App).runConversations,
		help: "  mneme conversations [--json]       list conversations\n" +
			"  mneme conversations rm ID          delete one; --forget-notes: and the notes learnt from it\n"}
}

func (a *App) runConversations(ctx context.Context, args []string) error {
	if len(args) > 0 && (args[0] == "rm" || args[0] == "delete") {
		return a.conversationsRemove(ctx, args[1:])
	}
	var common config.Flags
	fs := a.newFlagSet("conversations", "mneme conversations [--json] [--archived] [--find DESCRIPTION]\n       mneme conversations rm [--forget-notes] [--json] ID", &common)
	asJSON := fs.Bool("json", false, "print JSON")
	archived := fs.Bool("archived", false, "include archived conversations")
	find := fs.String("find", "", "find the conversation a `DESCRIPTION` is about, by its summaries, turns and title")
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	finding := false
	fs.Visit(func(f *flag.Flag) { finding = finding || f.Name == "find" })
	if finding { // even empty (a script's unset variable): it listed them all
		// The description may also run on after the flag, unquoted.
		return a.runFind(ctx, common, strings.Join(append([]string{*find}, rest...), " "), *archived, *asJSON)
	}
	if err := noArgs("conversations", rest); err != nil {
		return err
	}
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	list, err := s.store.ListConversations(ctx, s.cfg.User, memory.ListOptions{IncludeArchived: *archived})
	if err != nil {
		return err
	}
	if *asJSON {
		if list == nil {
			list = []memory.Conversation{}
		}
		return writeJSON(a.stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(a.stdout, "No conversations yet. Start one with `mneme` or `mneme ask`.")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tMESSAGES\tTITLE")
	now := time.Now()
	for _, c := range list {
		title := cmp.Or(sanitize.Title(c.Title), "(untitled)")
		if c.Archived {
			title += "  (archived)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", sanitize.Line(c.ID), text.RelativeDate(now, c.Updated), c.MessageCount, title)
	}
	return tw.Flush()
}
