package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/google/uuid"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// Names of the memory tools.
const (
	MemorySaveName        = "memory_save"
	MemorySearchName      = "memory_search"
	MemoryUpdateName      = "memory_update"
	MemoryDeleteName      = "memory_delete"
	SearchChatHistoryName = "search_chat_history"
)

// Timeouts of the memory tools.
const (
	SearchTimeout = 15 * time.Second
	WriteTimeout  = 10 * time.Second
)

// Limits of the memory tools' arguments.
const (
	DefaultTopK     = 5
	MaxTopK         = 20
	MaxQueryRunes   = 500
	maxNoteIDLength = 64
)

var (
	//go:embed memory_save.md
	memorySaveDoc string
	//go:embed memory_search.md
	memorySearchDoc string
	//go:embed memory_update.md
	memoryUpdateDoc string
	//go:embed memory_delete.md
	memoryDeleteDoc string
	//go:embed search_chat_history.md
	searchChatHistoryDoc string
)

// NoteSaver stores a note; *index.Index has it.
type NoteSaver interface {
	SaveNote(ctx context.Context, userID, content string, src memory.NoteSource) (memory.Note, error)
	// KeptNote is the user's active note with this text, if any.
	KeptNote(ctx context.Context, userID, content string) (memory.Note, bool, error)
}

// NoteUpdater replaces a note's text; *index.Index has it.
type NoteUpdater interface {
	UpdateNote(ctx context.Context, userID, id, content string) (memory.Note, error)
}

// NoteDeleter deletes a note; *index.Index has it.
type NoteDeleter interface {
	DeleteNote(ctx context.Context, userID, id string) (memory.Note, error)
}

// NoteSearcher searches notes; *index.Index has it.
type NoteSearcher interface {
	SearchNotes(ctx context.Context, q index.NoteQuery) ([]index.NoteResult, error)
}

// TurnSearcher searches past chat turns; *index.Index has it.
type TurnSearcher interface {
	Search(ctx context.Context, q index.SearchQuery) ([]index.SearchResult, error)
}

// MemoryIndex is everything the memory tools use.
type MemoryIndex interface {
	NoteSaver
	NoteUpdater
	NoteDeleter
	NoteSearcher
	TurnSearcher
	DocSearcher
}

// MemoryTools returns the five memory tools and file_search over ix.
func MemoryTools(ix MemoryIndex) []Tool {
	return []Tool{MemorySave(ix), MemorySearch(ix, ix), MemoryUpdate(ix), MemoryDelete(ix), SearchChatHistory(ix), FileSearch(ix)}
}

// Source says where a memory_search result comes from.
type Source string

// Result sources.
const (
	SourceUserMemory   Source = "user_memory"
	SourceConversation Source = "conversation"
)

// NoteOut is what memory_save, memory_update and memory_delete return.
type NoteOut struct {
	NoteID         string     `json:"note_id"`
	Status         NoteAction `json:"status"`
	Content        string     `json:"content"`
	ConversationID string     `json:"conversation_id,omitempty"`
	TurnNumber     int        `json:"turn_number,omitempty"`
}

func noteOut(n memory.Note, status NoteAction) NoteOut {
	return NoteOut{NoteID: n.ID, Status: status, Content: n.Content, ConversationID: n.ConversationID, TurnNumber: n.TurnNumber}
}

func (o NoteOut) changedNotes() []NoteRef { return []NoteRef{{ID: o.NoteID, Action: o.Status}} }

type saveArgs struct {
	Content string `json:"content"`
}

func (a saveArgs) Validate() error { return checkText("content", a.Content, 1, memory.MaxNoteRunes) }

// MemorySave is memory_save(content): it stores a note with the session's
// conversation and turn as its provenance.
func MemorySave(ix NoteSaver) Tool {
	spec := Spec{
		Name: MemorySaveName, Description: memorySaveDoc, Tier: SideEffecting, Timeout: WriteTimeout,
		Params: []Param{{Name: "content", Type: String, Required: true,
			Description: fmt.Sprintf("The fact to remember, as one self-contained sentence (1-%d characters).", memory.MaxNoteRunes)}},
	}
	return New(spec, func(ctx context.Context, s Session, a saveArgs) (any, error) {
		if s.UserID == "" {
			return nil, ErrNoUser
		}
		// The same text again is the note kept, said so: a copy would
		// take recall's slots, and undoing the "save" would undo that note.
		if n, ok, err := ix.KeptNote(ctx, s.UserID, a.Content); err != nil || ok {
			return noteOut(n, NoteKept), err
		}
		n, err := ix.SaveNote(ctx, s.UserID, a.Content, memory.NoteSource{ConversationID: s.ConversationID, TurnNumber: s.TurnNumber, By: memory.SourceModel})
		if err != nil {
			return nil, err
		}
		return noteOut(n, NoteSaved), nil
	})
}

type updateArgs struct {
	NoteID  string `json:"note_id"`
	Content string `json:"content"`
}

func (a updateArgs) Validate() error {
	if err := checkNoteID(a.NoteID); err != nil {
		return err
	}
	return checkText("content", a.Content, 1, memory.MaxNoteRunes)
}

// MemoryUpdate is memory_update(note_id, content).
func MemoryUpdate(ix NoteUpdater) Tool {
	spec := Spec{
		Name: MemoryUpdateName, Description: memoryUpdateDoc, Tier: Changing, Timeout: WriteTimeout,
		Params: []Param{
			{Name: "note_id", Type: String, Required: true, Description: "The id of the note to change."},
			{Name: "content", Type: String, Required: true,
				Description: fmt.Sprintf("The note's new text, replacing the old (1-%d characters).", memory.MaxNoteRunes)},
		},
	}
	return New(spec, func(ctx context.Context, s Session, a updateArgs) (any, error) {
		if s.UserID == "" {
			return nil, ErrNoUser
		}
		n, err := ix.UpdateNote(memory.ChangedBy(ctx, memory.ByModel), s.UserID, a.NoteID, a.Content)
		if err != nil {
			return nil, err
		}
		return noteOut(n, NoteUpdated), nil
	})
}

type deleteArgs struct {
	NoteID string `json:"note_id"`
}

func (a deleteArgs) Validate() error { return checkNoteID(a.NoteID) }

// checkNoteID accepts only a note's full id: a prefix of a UUIDv7 is its
// timestamp, so a model guessing "01a2" would pick whatever note was saved
// then.
func checkNoteID(id string) error {
	if err := checkText("note_id", id, 1, maxNoteIDLength); err != nil {
		return err
	}
	if u, err := uuid.Parse(id); err != nil || u.String() != id {
		return fmt.Errorf(`"note_id" must be a note's full id as memory_search returns it (like %s), not %q`, exampleNoteID, id)
	}
	return nil
}

const exampleNoteID = "0192f1a4-7c3e-7b1a-9d2f-5e6a7b8c9d0e"

// MemoryDelete is memory_delete(note_id).
func MemoryDelete(ix NoteDeleter) Tool {
	spec := Spec{
		Name: MemoryDeleteName, Description: memoryDeleteDoc, Tier: Changing, Timeout: WriteTimeout,
		Params: []Param{{Name: "note_id", Type: String, Required: true, Description: "The id of the note to delete."}},
	}
	return New(spec, func(ctx context.Context, s Session, a deleteArgs) (any, error) {
		if s.UserID == "" {
			return nil, ErrNoUser
		}
		n, err := ix.DeleteNote(memory.ChangedBy(ctx, memory.ByModel), s.UserID, a.NoteID)
		if err != nil {
			return nil, err
		}
		return noteOut(n, NoteDeleted), nil
	})
}

type searchArgs struct {
	Query               string `json:"query"`
	TopK                *int   `json:"top_k"`
	IncludeConversation bool   `json:"include_conversation"`
}

func (a searchArgs) Validate() error {
	return checkQuery(a.Query, "top_k", a.TopK)
}

// MemoryHit is one memory_search result.
type MemoryHit struct {
	NoteID         string  `json:"note_id,omitempty"`
	Text           string  `json:"text"`
	Score          float64 `json:"score"`
	Source         Source  `json:"source"`
	ConversationID string  `json:"conversation_id,omitempty"`
	TurnNumber     int     `json:"turn_number,omitempty"`
}

// MemorySearchOut is what memory_search returns.
type MemorySearchOut struct {
	Results []MemoryHit `json:"results"`
	Query   string      `json:"query"`
}

// MemorySearch is memory_search(query, top_k, include_conversation): a
// hybrid search of the user's notes, merged by score with a search of
// their past turns when include_conversation is set.
func MemorySearch(notes NoteSearcher, turns TurnSearcher) Tool {
	spec := searchSpec(MemorySearchName, memorySearchDoc, countParam("top_k", "results"),
		Param{Name: "include_conversation", Type: Boolean, Description: "Also search past conversations (default false)."})
	return New(spec, func(ctx context.Context, s Session, a searchArgs) (any, error) {
		if s.UserID == "" {
			return nil, ErrNoUser
		}
		k := orDefault(a.TopK, DefaultTopK)
		out := MemorySearchOut{Results: []MemoryHit{}, Query: a.Query}
		found, err := notes.SearchNotes(ctx, index.NoteQuery{UserID: s.UserID, Text: a.Query, Limit: k, Touch: true,
			Statuses: index.InUse, MinSimilarity: index.DefaultRecallSimilarity})
		if err != nil {
			return nil, err
		}
		for _, r := range found {
			out.Results = append(out.Results, MemoryHit{NoteID: r.ID, Text: r.Content, Score: round(r.Score), Source: SourceUserMemory})
		}
		if a.IncludeConversation {
			past, err := turns.Search(ctx, index.SearchQuery{UserID: s.UserID, Text: a.Query, Limit: k})
			if err != nil {
				return nil, err
			}
			for _, r := range past {
				out.Results = append(out.Results, MemoryHit{Text: r.Snippet, Score: round(r.Score), Source: SourceConversation,
					ConversationID: r.ConversationID, TurnNumber: r.Turn})
			}
			sort.SliceStable(out.Results, func(i, j int) bool { return out.Results[i].Score > out.Results[j].Score })
			out.Results = out.Results[:min(len(out.Results), k)]
		}
		return out, nil
	})
}

type historyArgs struct {
	Query string `json:"query"`
	Limit *int   `json:"limit"`
}

func (a historyArgs) Validate() error {
	return checkQuery(a.Query, "limit", a.Limit)
}

// ChatHit is one search_chat_history result.
type ChatHit struct {
	ConversationID string  `json:"conversationId"`
	TurnNumber     int     `json:"turnNumber"`
	Snippet        string  `json:"snippet"`
	Score          float64 `json:"score"`
}

// ChatHistoryOut is what search_chat_history returns.
type ChatHistoryOut struct {
	Results    []ChatHit `json:"results"`
	TotalFound int       `json:"totalFound"`
	Query      string    `json:"query"`
	Note       string    `json:"note,omitempty"`
}

// Notes search_chat_history gives instead of failing.
const (
	NoteNoHistory    = "no chat history found"
	NoteNeedIdentity = "user identity required"
)

// SearchChatHistory is search_chat_history(query, limit). Once its
// arguments are valid it never fails: an empty answer carries a note.
// A result's score is lower-is-better: the cosine distance when the turn
// matched by meaning, else 1 minus its normalised fused keyword score.
// totalFound counts matches up to index.MaxSearchLimit.
func SearchChatHistory(turns TurnSearcher) Tool {
	spec := searchSpec(SearchChatHistoryName, searchChatHistoryDoc, countParam("limit", "results"))
	return New(spec, func(ctx context.Context, s Session, a historyArgs) (any, error) {
		out := ChatHistoryOut{Results: []ChatHit{}, Query: a.Query}
		if s.UserID == "" {
			out.Note = NoteNeedIdentity
			return out, nil
		}
		found, err := turns.Search(ctx, index.SearchQuery{UserID: s.UserID, Text: a.Query, Limit: index.MaxSearchLimit})
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err() // the registry reports the timeout
			}
			out.Note = "chat history search failed: " + err.Error()
			return out, nil
		}
		out.TotalFound = len(found)
		for _, r := range found[:min(len(found), orDefault(a.Limit, DefaultTopK))] {
			score := 1 - r.Score
			if r.Distance != nil {
				score = *r.Distance
			}
			out.Results = append(out.Results, ChatHit{ConversationID: r.ConversationID, TurnNumber: r.Turn, Snippet: r.Snippet, Score: round(score)})
		}
		if len(out.Results) == 0 {
			out.Note = NoteNoHistory
		}
		return out, nil
	})
}

// round keeps four decimals: enough to rank, short for the model.
func round(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// ChangeArgs reads what a memory_update or memory_delete call asks for:
// the note and, for an update, its new text (for a gate asking the user).
func ChangeArgs(c Call) (noteID, content string) {
	var a updateArgs
	_ = json.Unmarshal(c.Args, &a)
	return a.NoteID, a.Content
}

// ErrNeedsConfirm is a Changing call refused because the user must confirm
// the model's changes and could not be asked, or said no.
var ErrNeedsConfirm = errors.New("the user must confirm changes to saved notes")

// RefuseChanges is the gate where the user must confirm the model's
// changes but cannot be asked: the call is not run, and its result tells
// the model why (so that it can tell the user).
func RefuseChanges(why string) Gate {
	return func(_ context.Context, _ Session, c Call) error {
		id, _ := ChangeArgs(c)
		return fmt.Errorf("%w (%s) and cannot be asked here, so %s was not run and note %s is unchanged; "+
			"tell the user what you wanted to change so that they can do it (mneme memory edit or mneme memory delete)",
			ErrNeedsConfirm, why, c.Name, id)
	}
}
