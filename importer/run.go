package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
)

// Store is what an import needs of the store.
type Store interface {
	ImportMessages(ctx context.Context, user string, next func() (memory.ImportedMessage, error),
		opts memory.MessageImportOptions) (memory.ImportStats, error)
}

// Options are a Run's callbacks; any may be nil.
type Options struct {
	// OnBad is told about each conversation or message left out because
	// it could not be read or stored; the import goes on.
	OnBad func(error)
	// Progress is told after each conversation read: how many, and the
	// fraction of the export read (-1: unknown).
	Progress func(conversations int, fraction float64)
	// OnBatch is told the conversations each batch the store commits
	// added messages to (memory.ImportOptions.OnBatch).
	OnBatch func([]memory.ConversationRef)
}

// Summary is what a Run did.
type Summary struct {
	Format        Format
	Conversations int // read from the export, with a message to keep
	Messages      int // read from the export (on the current branches)
	Bad           int // conversations and messages left out as unreadable
	Skipped       Skipped
	Stats         memory.ImportStats // what the store did: imported, unchanged, conflicts
	// Accounts is how many accounts the export's conversations say they
	// are of (Claude's; 0 when none says): all go to the one user.
	Accounts int
}

// Run imports every conversation of r as user's. Conversations keep their
// export's ids (prefixed by the format) and messages theirs, so that a
// second run of the same export stores nothing and a newer export stores
// only what is new. An error that ends the export early (ErrBroken) is
// returned after what came before it is stored.
func Run(ctx context.Context, st Store, user string, r *Reader, opts Options) (Summary, error) {
	sum := Summary{Format: r.Format()}
	bad := func(err error) {
		sum.Bad++
		if opts.OnBad != nil {
			opts.OnBad(err)
		}
	}
	var cur Conversation
	var at int
	accounts := map[string]bool{}
	next := func() (memory.ImportedMessage, error) {
		for at >= len(cur.Messages) {
			c, err := r.Next()
			var ce ConversationError
			if errors.As(err, &ce) {
				bad(ce)
				continue
			}
			if err != nil {
				return memory.ImportedMessage{}, err
			}
			if len(c.Messages) > 0 { // one with none to keep is no conversation here
				sum.Conversations++
				if c.Account != "" && !accounts[c.Account] {
					accounts[c.Account] = true
					sum.Accounts++
				}
			}
			sum.Messages += len(c.Messages)
			if opts.Progress != nil {
				opts.Progress(sum.Conversations, r.Fraction())
			}
			cur, at = c, 0
		}
		m := cur.Messages[at]
		at++
		rec := memory.Record{Conversation: string(r.Format()) + ":" + cur.ID, Title: cur.Title, Role: m.Role,
			Content: m.Text, ToolName: m.ToolName, Model: m.Model}
		if !m.Time.IsZero() {
			rec.Time = m.Time.UTC().Format(time.RFC3339Nano)
		}
		return memory.ImportedMessage{Record: rec, SourceID: m.ID, Archived: cur.Archived}, nil
	}
	stats, err := st.ImportMessages(ctx, user, next, memory.MessageImportOptions{
		OnBad: func(m memory.ImportedMessage, err error) {
			bad(fmt.Errorf("conversation %q, message %q: %w", m.Conversation, m.SourceID, err))
		},
		OnBatch: opts.OnBatch,
	})
	sum.Stats = stats
	sum.Skipped = r.Skipped
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return sum, err
}

// Report says what an import did, for a person: on out what was imported
// and skipped, on errw the messages kept as stored against the export.
func (sum Summary) Report(out, errw io.Writer, took time.Duration) {
	st := sum.Stats
	convs := text.Count(sum.Conversations, sum.Format.Name()+" conversation", sum.Format.Name()+" conversations")
	if st.Imported == 0 && st.Unchanged > 0 {
		fmt.Fprintf(out, "Nothing new in %s: all %s were already there (%s).\n", convs,
			text.Count(st.Unchanged, "message", "messages"), took.Round(time.Millisecond))
	} else {
		fmt.Fprintf(out, "Imported %s from %s in %s (%s already there).\n",
			text.Count(st.Imported, "new message", "new messages"), convs, took.Round(time.Millisecond), text.Thousands(st.Unchanged))
	}
	if sk := sum.Skipped; sk.Total() > 0 {
		var why []string
		add := func(n int, what string) {
			if n > 0 {
				why = append(why, text.Thousands(n)+" "+what)
			}
		}
		add(sk.Branch, "on regenerated or edited-away branches")
		add(sk.Hidden, "hidden in the conversation")
		add(sk.Empty, "empty")
		add(sk.Other, "with a role mneme does not keep")
		add(sk.Unreadable, "with a field of the wrong type")
		fmt.Fprintf(out, "Skipped %s: %s.\n", text.Count(sk.Total(), "message", "messages"), strings.Join(why, ", "))
	}
	if sum.Accounts > 1 { // a merged or someone else's export: said, not refused
		fmt.Fprintf(errw, "mneme: import: the export holds conversations of %d %s accounts; all were imported as yours\n", sum.Accounts, sum.Format.Name())
	}
	if st.Conflicts > 0 {
		fmt.Fprintf(errw, "mneme: import: %s an id already imported with other content; kept the stored one\n", text.Count(st.Conflicts, "message had", "messages had"))
	}
}
