package notes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/panel"
)

// load lists the notes, or searches them when the search box has text.
func (b *MemoryBrowser) load() tea.Cmd {
	b.loading = true
	store, convs, userID, ctx := b.notes, b.convs, b.userID, b.clock.Context()
	id, seq, query := b.id, b.seq, strings.TrimSpace(b.filter.Value())
	known := make(map[string]bool, len(b.titles))
	for k := range b.titles {
		known[k] = true
	}
	return func() tea.Msg {
		msg := notesLoadedMsg{To: panel.To{ID: id}, seq: seq, query: query, all: query == ""}
		if store == nil {
			msg.err = fmt.Errorf("notes are not available")
			return msg
		}
		if query == "" {
			msg.notes, msg.err = store.ListNotes(ctx, userID)
		} else {
			var res []index.NoteResult
			res, msg.err = store.SearchNotes(ctx, index.NoteQuery{UserID: userID, Text: query, Limit: index.MaxSearchLimit,
				Statuses: index.NotAside, MinSimilarity: index.DefaultRecallSimilarity}) // as listed: archived notes aside
			for _, r := range res {
				msg.notes = append(msg.notes, r.Note)
			}
		}
		if msg.err != nil || convs == nil {
			return msg
		}
		msg.titles = map[string]string{}
		for _, n := range msg.notes {
			if n.ConversationID == "" || known[n.ConversationID] {
				continue
			}
			known[n.ConversationID] = true
			if c, err := convs.Conversation(ctx, userID, n.ConversationID); err == nil {
				msg.titles[n.ConversationID] = c.Title
			}
		}
		return msg
	}
}

// errNothingToUndo says a note has no change u can undo.
var errNothingToUndo = errors.New("Nothing to undo.")

// write runs one change of a note in a command.
func (b *MemoryBrowser) write(op noteOp, n memory.Note) tea.Cmd {
	b.busy = true
	store, userID, ctx, id := b.notes, b.userID, b.clock.Context(), b.id
	return func() tea.Msg {
		msg := noteWrittenMsg{To: panel.To{ID: id}, op: op, note: n}
		if store == nil {
			msg.err = fmt.Errorf("notes are not available")
			return msg
		}
		var got memory.Note
		var err error
		switch op {
		case opUpdate:
			got, err = store.UpdateNote(ctx, userID, n.ID, n.Content)
		case opSaveNew:
			got, err = store.SaveNote(ctx, userID, n.Content, memory.NoteSource{By: memory.SourceUser})
		case opDelete, opReject:
			got, err = store.DeleteNote(ctx, userID, n.ID)
		case opApprove:
			got, err = store.SetNoteStatus(ctx, userID, n.ID, memory.NoteActive)
		case opUndo:
			msg.change, got, err = undoLast(ctx, store, userID, n.ID)
		}
		if err == nil {
			msg.note = got
		}
		msg.err = err
		return msg
	}
}

// undoLast undoes the newest change of the note that is not undone yet,
// unless that is its creation: u never deletes a note (d does).
func undoLast(ctx context.Context, store NoteStore, userID, noteID string) (history.Change, memory.Note, error) {
	hist, err := store.NoteHistory(ctx, userID, noteID)
	if err != nil {
		return history.Change{}, memory.Note{}, err
	}
	for _, c := range hist {
		if c.Undoes != "" || c.UndoneBy != "" {
			continue
		}
		if c.Op == memory.ChangeCreate {
			break
		}
		return store.Undo(ctx, userID, c.ID, "")
	}
	return history.Change{}, memory.Note{}, errNothingToUndo
}

// loadHistory reads a note's changes.
func (b *MemoryBrowser) loadHistory(noteID string) tea.Cmd {
	store, userID, ctx, id := b.notes, b.userID, b.clock.Context(), b.id
	return func() tea.Msg {
		msg := historyLoadedMsg{To: panel.To{ID: id}, noteID: noteID}
		if store == nil {
			msg.err = fmt.Errorf("notes are not available")
			return msg
		}
		msg.changes, msg.err = store.NoteHistory(ctx, userID, noteID)
		return msg
	}
}

// writeEditFileCmd writes the note to a temporary file and asks the root
// to run the editor on it.
func writeEditFileCmd(id int64, owner, dir string, n memory.Note) tea.Cmd {
	return func() tea.Msg {
		path, err := panel.WriteEditFile(dir, "mneme-note-*.md", n.Content+"\n")
		if err != nil {
			return noteEditedMsg{To: panel.To{ID: id}, noteID: n.ID, err: err}
		}
		return panel.ExternalEditMsg{Owner: owner, Key: n.ID, Path: path}
	}
}

func readEditedCmd(id int64, noteID, path string) tea.Cmd {
	return func() tea.Msg {
		text, err := panel.ReadEditedFile(path)
		return noteEditedMsg{To: panel.To{ID: id}, noteID: noteID, text: text, err: err}
	}
}

func removeFileCmd(path string) tea.Cmd {
	return func() tea.Msg {
		_, _ = panel.ReadEditedFile(path) // reads and removes
		return nil
	}
}
