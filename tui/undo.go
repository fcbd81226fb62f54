package tui

import (
	"errors"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
)

// undoneMsg is the result of /undo; skipped says its change had been
// undone already (in the memory browser, by mneme memory undo).
type undoneMsg struct {
	change  history.Change
	note    memory.Note
	err     error
	skipped bool
	group   string // of the change undone (touch.group)
}

// touch is a change this chat made to a note: learnt, made by the model,
// or made in the memory browser. ctrl+z takes back exactly that change,
// never an older one of the same note (the note's creation, from the
// command line, months ago), with the others of its group: what one turn
// taught ("forgot Lisbon", "remembered Porto") goes back whole.
type touch struct{ note, change, group string }

// touchedMsg says which change a write of this chat's made (touchNote).
type touchedMsg struct{ touch }

// touchNote finds the change this chat just made to note id: the newest
// of its history, read at once after the write. group ties it to the
// changes made with it ("": none).
func (m *Model) touchNote(id, group string) tea.Cmd {
	if m.cfg.Notes == nil || id == "" {
		return nil
	}
	notes, user, ctx := m.cfg.Notes, m.cfg.UserID, m.life.ctx
	return func() tea.Msg {
		hist, err := notes.NoteHistory(ctx, user, id)
		if err != nil || len(hist) == 0 {
			return nil // nothing recorded: nothing ctrl+z could take back
		}
		return touchedMsg{touch{note: id, change: hist[0].ID, group: group}}
	}
}

// slashUndo undoes the last change to a note this chat learnt or the model
// changed in it (its receipt says ctrl+z), newest first, through the
// store's history. It never reaches notes this chat did not touch: older
// changes are for `mneme memory undo` or the memory browser.
func (m *Model) slashUndo(string) tea.Cmd {
	m.input.Reset()
	return m.undoLast()
}

// undoLast is /undo and ctrl+z (which leaves the input as it is).
func (m *Model) undoLast() tea.Cmd {
	if m.cfg.Notes == nil {
		m.hint = "Notes are not available here."
		return nil
	}
	if len(m.touched) == 0 {
		m.hint = "Nothing learnt or changed in this chat to undo (older changes: the memory browser, or mneme memory undo)."
		return nil
	}
	t := m.touched[len(m.touched)-1]
	m.touched = m.touched[:len(m.touched)-1]
	notes, user, ctx := m.cfg.Notes, m.cfg.UserID, m.life.ctx
	return func() tea.Msg {
		c, n, err := notes.Undo(ctx, user, t.change, t.note)
		return undoneMsg{change: c, note: n, err: err, skipped: err != nil && c.UndoneBy != "", group: t.group}
	}
}

// groupGoesOn reports whether the newest change left belongs with the one
// just undone (group): it goes back too.
func (m *Model) groupGoesOn(group string) bool {
	return group != "" && len(m.touched) > 0 && m.touched[len(m.touched)-1].group == group
}

func (m *Model) handleUndone(msg undoneMsg) tea.Cmd {
	said := m.undoSaid
	m.undoSaid = ""
	switch {
	case msg.skipped && len(m.touched) > 0 && (said == "" || m.groupGoesOn(msg.group)):
		m.undoSaid = said
		return m.undoLast() // undone elsewhere: the chat's change before it
	case msg.skipped && said != "", errors.Is(msg.err, history.ErrNothingToUndo) && said != "":
		m.hint = said + "."
	case msg.skipped, errors.Is(msg.err, history.ErrNothingToUndo):
		m.hint = "Nothing to undo."
	case msg.err != nil:
		m.hint = "Undo failed: " + sanitize.Line(msg.err.Error())
	default:
		what := text.Cut(sanitize.Line(msg.note.Content), 60)
		verb := map[string]string{memory.ChangeCreate: "forgot", memory.ChangeRestore: "forgot"}[msg.change.Op]
		if verb == "" {
			verb = "restored"
		}
		done := fmt.Sprintf("%s “%s”", verb, what)
		if said == "" {
			said = fmt.Sprintf("Undid the %s by %s: %s", msg.change.Op, msg.change.By, done)
		} else {
			said += "; " + done
		}
		if m.groupGoesOn(msg.group) {
			m.undoSaid = said
			return m.undoLast()
		}
		m.hint = said + "."
	}
	return m.memoryStatusNow()
}
