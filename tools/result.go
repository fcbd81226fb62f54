package tools

// Result is what one tool call gives back: the content sent to the model
// (and stored), and what it did, typed, so that a screen can show it
// without reading the content.
type Result struct {
	// Content is the tool's answer to the model, as JSON.
	Content string
	// Notes are the notes the call saved, updated or deleted.
	Notes []NoteRef
	// Citations are the document passages the call gave (file_search).
	Citations []Citation
	// Mark is an id made just after the call's writes (memory.NewID: ids
	// made later in this process sort after it): each note's change made by
	// the call is that note's newest change older than Mark. ctrl+z reads
	// it so; a later call's change of the same note is never taken for it.
	Mark string
}

// NoteAction says what a tool call did to a note.
type NoteAction string

// Note actions; memory_save, memory_update and memory_delete report them
// as their result's status.
const (
	NoteSaved   NoteAction = "saved"
	NoteKept    NoteAction = "already_saved" // memory_save of a kept note's text: nothing written
	NoteUpdated NoteAction = "updated"
	NoteDeleted NoteAction = "deleted"
)

// NoteRef names a note a tool call changed, and how.
type NoteRef struct {
	ID     string
	Action NoteAction
}

// noteChanger is a tool's output that changed notes: New puts them in
// the Result beside the JSON.
type noteChanger interface {
	changedNotes() []NoteRef
}
