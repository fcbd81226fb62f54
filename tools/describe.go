package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
)

// Activity is a tool call as a person sees it: what the model asked for
// and, once Done, what came of it. The agent reports calls as Activities;
// JSON gives what `mneme ask --json` prints of a call.
type Activity struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Args   string `json:"arguments"`        // the call's JSON arguments
	Result string `json:"result,omitempty"` // the tool's JSON result
	Error  string `json:"error,omitempty"`
	Done   bool   `json:"-"`
	// Notes are the notes the call changed (Result.Notes), Mark tells
	// their changes (Result.Mark).
	Notes []NoteRef `json:"-"`
	Mark  string    `json:"-"`
	// Citations are the passages the call gave (Result.Citations).
	Citations []Citation `json:"-"`
}

// WrittenNotes are the ids of the notes a successful call saved or
// updated (not deleted).
func (a Activity) WrittenNotes() []string { return a.notesDone(NoteSaved, NoteUpdated) }

// ChangedNotes are the ids of the notes a successful call saved, updated
// or deleted: what ctrl+z takes back.
func (a Activity) ChangedNotes() []string { return a.notesDone(NoteSaved, NoteUpdated, NoteDeleted) }

// notesDone are the ids of the notes a successful call changed so.
func (a Activity) notesDone(actions ...NoteAction) []string {
	if a.Error != "" {
		return nil
	}
	var ids []string
	for _, n := range a.Notes {
		if n.ID != "" && slices.Contains(actions, n.Action) {
			ids = append(ids, n.ID)
		}
	}
	return ids
}

// FailedLike reports whether a failed the same way as b, whatever tool
// each called: a screen shows such calls one after another as one line
// and a count (Alike), not one line each.
func (a Activity) FailedLike(b Activity) bool { return a.Error != "" && a.Error == b.Error }

// Alike is the line that counts n calls folded into the one before (FailedLike).
func Alike(n int) string {
	return fmt.Sprintf("… and %s that failed the same way", text.Count(n, "more call", "more calls"))
}

// quoteRunes bounds the text quoted in a summary.
const quoteRunes = 60

// Summary is the compact one-line wording of a tool call shared by the
// chat screen and `mneme ask`, e.g. `saved note: "…"` or
// `searched memory for "…" (3 hits)`; a tool that is not a memory tool
// shows as `name(args) → result` or `name(args) ✗ error`. Only the text
// it quotes, and each part of another tool's line, is sanitised (before
// it is cut: an escape sequence cut open, or left open by the model, would
// take the rest of the line with it); the whole is not cut to a width.
func (a Activity) Summary() string {
	if !known(a.Name) {
		// Another tool: its name and arguments, then what came back.
		call := fmt.Sprintf("%s(%s)", sanitize.Line(a.Name), sanitize.Line(a.Args))
		switch {
		case !a.Done:
			return call
		case a.Error != "":
			return call + " ✗ " + sanitize.Line(a.Error)
		}
		return call + " → " + sanitize.Line(a.Result)
	}
	if a.Done && a.Error != "" {
		return fmt.Sprintf("%s failed: %s", a.Name, text.OneLine(a.Error))
	}
	var args struct {
		Content string `json:"content"`
		Query   string `json:"query"`
		NoteID  string `json:"note_id"`
	}
	_ = json.Unmarshal([]byte(a.Args), &args) // a bad call already failed
	var res struct {
		NoteID  string            `json:"note_id"`
		Content string            `json:"content"`
		Status  NoteAction        `json:"status"`
		Results []json.RawMessage `json:"results"`
	}
	if a.Done {
		_ = json.Unmarshal([]byte(a.Result), &res)
	}
	n := len(res.Results)
	switch a.Name {
	case MemorySaveName:
		if !a.Done {
			return "saving note: " + quote(args.Content)
		}
		if res.Status == NoteKept {
			return "already noted: " + quote(res.Content)
		}
		return "saved note: " + quote(res.Content)
	case MemorySearchName:
		return searched(a.Done, "memory", args.Query, n, "hit")
	case SearchChatHistoryName:
		return searched(a.Done, "chat history", args.Query, n, "hit")
	case FileSearchName:
		return searched(a.Done, "documents", args.Query, n, "passage")
	case MemoryUpdateName:
		return changedNote(a.Done, "updating", "updated", args.NoteID, res.NoteID, res.Content)
	case MemoryDeleteName:
		return changedNote(a.Done, "deleting", "deleted", args.NoteID, res.NoteID, res.Content)
	}
	return ""
}

// searched tells a search of what for query: under way, or done with n
// results counted in unit.
func searched(done bool, what, query string, n int, unit string) string {
	if !done {
		return "searching " + what + " for " + quote(query)
	}
	return fmt.Sprintf("searched %s for %s (%d %s)", what, quote(query), n, plural(n, unit, unit+"s"))
}

// changedNote tells a change to a note: the id asked for while under way,
// then the note changed and its text.
func changedNote(done bool, doing, did, askedID, noteID, content string) string {
	if !done {
		return doing + " note " + shortID(askedID)
	}
	return did + " note " + shortID(noteID) + ": " + quote(content)
}

func known(name string) bool {
	switch name {
	case MemorySaveName, MemorySearchName, MemoryUpdateName, MemoryDeleteName, SearchChatHistoryName, FileSearchName:
		return true
	}
	return false
}

// quote is s in quotes on one line, cut: sanitised first, so that a cut
// cannot land inside an escape sequence and take the rest with it.
func quote(s string) string { return `"` + text.Cut(sanitize.Line(s), quoteRunes) + `"` }

// shortID is the first 13 characters of an id: a UUIDv7 to the
// millisecond, enough to tell notes apart (8 name the same 65 seconds).
func shortID(id string) string { return text.Prefix(strings.TrimSpace(id), 13) }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
