// Package undo is the chat's ctrl+z: the changes this chat made to notes
// (learnt from its turns, made by the model, made in its memory browser),
// newest last, each taken back exactly, through the notes' history.
//
// A change is known by its id, read right after the write, never by its
// note: ctrl+z never reaches an older change of the same note (its
// creation, from the command line, months ago). Changes of one group go
// back together: what one turn taught ("forgot Lisbon", "remembered
// Porto") is undone whole. A change undone meanwhile elsewhere (the memory
// browser, `mneme memory undo`) is passed over.
package undo

import (
	"context"
	"errors"
	"fmt"
	"slices"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
)

// Notes reads a note's history and undoes a change; *index.Index has it.
type Notes interface {
	NoteHistory(ctx context.Context, userID, id string) ([]history.Change, error)
	Undo(ctx context.Context, userID, ref, noteID string) (history.Change, memory.Note, error)
}

// Change is a change this chat made: its note, its id, and its group
// ("": alone).
type Change struct{ Note, ID, Group string }

// RecordedMsg says which changes writes of the chat's made (Record).
type RecordedMsg struct{ Changes []Change }

// Record finds the changes the chat's writes just made to notes ids, in a
// command; group ties them together ("": none). A note's change is its
// newest older than mark (a change id made just after the write, as
// tools.Result.Mark), or, when mark is "", its newest (read at once after
// the write). Nil without notes or ids.
func Record(ctx context.Context, notes Notes, userID, group, mark string, ids ...string) tea.Cmd {
	if notes == nil || len(ids) == 0 {
		return nil
	}
	return func() tea.Msg {
		var out []Change
		for _, id := range ids {
			hist, err := notes.NoteHistory(ctx, userID, id)
			if err != nil {
				continue // nothing recorded: nothing ctrl+z could take back
			}
			if i := slices.IndexFunc(hist, func(c history.Change) bool { return mark == "" || c.ID < mark }); i >= 0 {
				out = append(out, Change{Note: id, ID: hist[i].ID, Group: group})
			}
		}
		return RecordedMsg{out}
	}
}

// DoneMsg is the result of one undo.
type DoneMsg struct {
	change  history.Change
	note    memory.Note
	err     error
	skipped bool // undone already, elsewhere
	group   string
}

// Learnt is the note whose learnt change msg took back ("" when it took
// none back, or the change was not learning's).
func (msg DoneMsg) Learnt() string {
	if msg.err != nil || msg.skipped || msg.change.By != memory.ByExtracted {
		return ""
	}
	return msg.change.NoteID
}

// Stack is the chat's changes, newest last.
type Stack struct {
	changes []Change
	said    string // what an undo of a group said so far
}

// Push adds changes the chat made. The stack keeps them in the order they
// were made (change ids sort by time), whatever order their records come
// back in, and each once.
func (s *Stack) Push(cs ...Change) {
	for _, c := range cs {
		if slices.ContainsFunc(s.changes, func(o Change) bool { return o.ID == c.ID }) {
			continue
		}
		i := len(s.changes)
		for i > 0 && s.changes[i-1].ID > c.ID {
			i--
		}
		s.changes = slices.Insert(s.changes, i, c)
	}
}

// Len is how many changes are left to undo.
func (s *Stack) Len() int { return len(s.changes) }

// Next takes the newest change off and undoes it in a command.
func (s *Stack) Next(ctx context.Context, notes Notes, userID string) tea.Cmd {
	if len(s.changes) == 0 {
		return nil
	}
	c := s.changes[len(s.changes)-1]
	s.changes = s.changes[:len(s.changes)-1]
	return func() tea.Msg {
		ch, n, err := notes.Undo(ctx, userID, c.ID, c.Note)
		return DoneMsg{change: ch, note: n, err: err, skipped: err != nil && ch.UndoneBy != "", group: c.Group}
	}
}

// goesOn reports whether the newest change left belongs with group.
func (s *Stack) goesOn(group string) bool {
	return group != "" && len(s.changes) > 0 && s.changes[len(s.changes)-1].Group == group
}

// Done takes an undo's result: the next undo when it goes on (the rest of
// a group, or the change before one undone elsewhere), else the line to
// show ("Undid learning's new note: forgot “…”; restored “…”.").
func (s *Stack) Done(ctx context.Context, notes Notes, userID string, msg DoneMsg) (hint string, next tea.Cmd) {
	said := s.said
	s.said = ""
	switch {
	case msg.skipped && len(s.changes) > 0 && (said == "" || s.goesOn(msg.group)):
		s.said = said
		return "", s.Next(ctx, notes, userID)
	case (msg.skipped || errors.Is(msg.err, history.ErrNothingToUndo)) && said != "":
		return said + ".", nil
	case msg.skipped, errors.Is(msg.err, history.ErrNothingToUndo):
		return "Nothing to undo.", nil
	case msg.err != nil:
		return "Undo failed: " + sanitize.Line(msg.err.Error()), nil
	}
	verb := map[string]string{memory.ChangeCreate: "forgot", memory.ChangeRestore: "forgot"}[msg.change.Op]
	if verb == "" {
		verb = "restored"
	}
	done := fmt.Sprintf("%s “%s”", verb, text.Cut(sanitize.Line(msg.note.Content), 60))
	if said == "" {
		said = fmt.Sprintf("Undid %s: %s", sanitize.Line(msg.change.Named()), done)
	} else {
		said += "; " + done
	}
	if s.goesOn(msg.group) {
		s.said = said
		return "", s.Next(ctx, notes, userID)
	}
	return said + ".", nil
}
