package learn

import (
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
)

// Learnt is one change learning made to the notes, as a person is told of
// it (and `mneme ask --json` lists it).
type Learnt struct {
	Event  Event  `json:"event"`
	NoteID string `json:"note_id"`
	Text   string `json:"text"`
	// Pending: the note waits for the user's review (memory_review = "inbox").
	Pending bool `json:"pending,omitempty"`
}

// Learnts are the changes a person is told of, in order: a fact that
// replaced another is that one forgotten and this one remembered; a
// decision to change nothing is not told. pending: new notes wait for
// review.
func Learnts(changes []Change, pending bool) []Learnt {
	var out []Learnt
	for _, c := range changes {
		switch c.Event {
		case EventAdd:
			out = append(out, Learnt{Event: c.Event, NoteID: c.NoteID, Text: c.After, Pending: pending})
		case EventUpdate:
			out = append(out, Learnt{Event: c.Event, NoteID: c.NoteID, Text: c.After})
		case EventDelete:
			out = append(out, Learnt{Event: c.Event, NoteID: c.NoteID, Text: c.Before})
			if c.Added != "" {
				out = append(out, Learnt{Event: EventAdd, NoteID: c.Added, Text: c.After})
			}
		}
	}
	return out
}

// Receipt is the line that tells the user about it, sanitised.
func (l Learnt) Receipt() string {
	verb := map[Event]string{EventAdd: "remembered", EventUpdate: "updated", EventDelete: "forgot"}[l.Event]
	if l.Pending {
		verb = "to review (mneme memory pending)"
	}
	return "✎ " + verb + ": " + text.Cut(sanitize.Line(l.Text), 120)
}

// ChatReceipt is the receipt under an answer in the chat, which says how
// to take it back.
func (l Learnt) ChatReceipt() string {
	if l.Pending {
		return l.Receipt()
	}
	return l.Receipt() + " · ctrl+z undo"
}

// UndoneReceipt is ChatReceipt once ctrl+z took the change back.
func (l Learnt) UndoneReceipt() string { return l.Receipt() + " · undone" }
