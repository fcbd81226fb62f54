// Package tui is mneme's full-screen chat: a scrollable transcript where
// answers stream in, a multi-line input, a status line and key help.
//
// One root Model routes messages to components kept in their own files:
// the transcript, the input, the status line. All I/O (the store, Ollama)
// happens in tea.Cmds (cmds.go); a run's agent events reach the model
// through a channel and a re-issued wait command (events.go).
package tui

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/confirm"
	"github.com/mneme-dev/mneme/tui/docs"
	"github.com/mneme-dev/mneme/tui/notes"
	"github.com/mneme-dev/mneme/tui/picker"
	"github.com/mneme-dev/mneme/tui/search"
	"github.com/mneme-dev/mneme/tui/sidebar"
	"github.com/mneme-dev/mneme/tui/statusline"
)

// Runner runs one prompt. *agent.Agent satisfies it.
type Runner interface {
	Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error)
}

// Store is the subset of *memory.Store the TUI needs.
type Store interface {
	CreateConversation(ctx context.Context, userID, title string) (memory.Conversation, error)
	Conversation(ctx context.Context, userID, idOrPrefix string) (memory.Conversation, error)
	Messages(ctx context.Context, userID, conversationID string) ([]memory.Message, error)
}

// Probe is what was found out about the Ollama server.
type Probe struct {
	Host      string
	Reachable bool
	Version   string
	Model     string // the chat model to use; "" when none is installed
	// EmbedModel is the embedding model search uses ("" when none is
	// installed: search is keyword-only).
	EmbedModel string
	// Err is a user-facing explanation of why chatting is not possible,
	// naming the URL and the command that fixes it, e.g. "cannot reach
	// Ollama at http://127.0.0.1:11434: is it running? Start it with
	// `ollama serve`".
	Err error
	// Offline, when a model is missing, is why none can be downloaded now
	// (Ollama's model library is unreachable); the chat then says so in one
	// line instead of offering a pull that cannot work.
	Offline error
}

// Ready reports whether prompts can be sent.
func (p Probe) Ready() bool { return p.Reachable && p.Model != "" && p.Err == nil }

// problem is the text shown while the probe is not ready.
func (p Probe) problem() string {
	switch {
	case p.Err != nil:
		return p.Err.Error()
	case !p.Reachable:
		return fmt.Sprintf("cannot reach Ollama at %s: is it running? Start it with `ollama serve`", p.Host)
	case p.Model == "":
		return fmt.Sprintf("no chat model in Ollama at %s: pull one with `ollama pull llama3.2`", p.Host)
	}
	return ""
}

// Config is everything the TUI needs from main.
type Config struct {
	Store  Store
	UserID string
	// ConversationID resumes a conversation (a full id or a unique prefix).
	// Empty starts a new one, created on the first send, so that opening
	// and quitting leaves nothing behind.
	ConversationID string
	// Turn, with ConversationID, opens the conversation scrolled to that
	// turn (as `mneme search` prints it) and highlights it briefly.
	Turn int
	// Probe checks Ollama. It runs in a command at start and again when the
	// user sends while Ollama was not ready.
	Probe func(ctx context.Context) Probe
	// Ping checks cheaply that Ollama still answers (a HEAD /), every
	// pingEvery while it is reachable, so that the status line does not
	// say ready for minutes after Ollama stopped. nil: no check.
	Ping func(ctx context.Context) error
	// NewRunner builds the runner once a model is known.
	NewRunner func(model string) Runner
	// Log receives diagnostics; nothing is ever printed to the terminal.
	Log *slog.Logger
	// Dark selects styles for a dark terminal background.
	Dark bool
	// SyncStatus says how sync is doing (synced, pending N, offline,
	// error) for the status line; nil when sync is off. It is called while
	// drawing, so it must be quick.
	SyncStatus func() string
	// Find ranks conversations by a description, for /switch (nil: /switch
	// is unavailable).
	Find FindFunc

	// Conversations lists, renames, archives and deletes conversations for
	// the sidebar, /rename and /archive (nil: no sidebar).
	Conversations sidebar.ConversationManager
	// Search runs hybrid search for the search panel (nil: unavailable).
	Search search.Searcher
	// Notes reads and writes notes for the memory browser (nil: unavailable).
	Notes notes.NoteStore
	// Docs lists, searches, reads and removes the user's documents for
	// the document browser, /docs (nil: unavailable).
	Docs docs.Library
	// Attach adds the document at a path (as typed: relative to the
	// working directory, or ~/…) for /attach. It runs in a command; its
	// error is shown as it is, so it should say what to do (nil: /attach
	// is unavailable).
	Attach func(ctx context.Context, path string) (AttachResult, error)
	// Models lists and pulls Ollama models for the model picker (nil:
	// unavailable).
	Models picker.ModelManager
	// SaveModels saves the models chosen in the picker to the config file
	// (only those keys) and makes the next probe use them; overridden says
	// what wins over them at the next start ("MNEME_MODEL=… in the
	// environment"; "": nothing). It runs in a command. Nil: the choice
	// lasts for this session only.
	SaveModels func(chat, embed string) (overridden string, err error)
	// MemoryStatus reports the state of search and the notes for the status
	// line; it is polled in a command (nil: the status line leaves it out).
	MemoryStatus func(ctx context.Context, userID string) (MemoryStatus, error)
	// Changes receives a value when the store changed, possibly by another
	// mneme process (a second chat, `mneme ask` in a script, a sync), and
	// search has caught up: the conversation list and the memory status
	// are read again (nil: they are read only after this screen's own
	// changes).
	Changes <-chan struct{}
	// Answering reports whether another mneme is answering in a
	// conversation now (its turn lock), read when one is opened and with
	// each reading of another's changes: its half-written answer is drawn
	// as being written, not as interrupted, until the lock is let go.
	// Nil: not known (a half-written answer that grows between readings
	// is taken as being written).
	Answering func(convID string) bool
	// Learnt receives what was learnt from a finished turn in the
	// background; the chat shows it under the answer (nil: nothing is).
	Learnt <-chan Learnt
	// Confirms receives the model's changes of notes that wait for the
	// user's y or n (model_changes = "confirm"; nil: none do).
	Confirms <-chan confirm.Request
	// FirstRun offers pulling an embedding model when none is installed (a
	// missing chat model is offered every time).
	FirstRun bool
	// Editor is the user's editor command line for Ctrl+E and the memory
	// browser ("": $VISUAL, then $EDITOR, then vi).
	Editor string
	// TempDir is where text goes while it is edited in the editor ("": the
	// system's).
	TempDir string
	// Incognito marks a chat whose store is thrown away at exit: nothing of
	// it is kept, learnt or synced. The status line and the first line of
	// every conversation say so (IncognitoNotice).
	Incognito bool
	// StartIncognito makes a throwaway store for /incognito, which switches
	// the chat to it until /new or opening a conversation (nil: /incognito
	// is unavailable). It runs in a command; Close is called on leaving.
	StartIncognito startIncognitoFunc
}

// IncognitoNotice is the first line of an incognito conversation.
const IncognitoNotice = "Incognito: nothing of this chat is kept, learnt or synced."

// Learnt is one change to the notes learnt from a turn of a conversation;
// Text is the one-line receipt ("✎ remembered: …"), already sanitised.
type Learnt struct {
	ConversationID, Text string
	// Turn is the turn learnt from: ctrl+z takes back what one turn taught
	// at once (a fact that replaced another: both).
	Turn int
	// NoteID is the note learnt, changed or forgotten: ctrl+z and /undo
	// take back the changes of this chat's notes only.
	NoteID string
	// Undone is the receipt once ctrl+z took the change back: Text said
	// "ctrl+z undo" still ("" : Text stays).
	Undone string
}

// MemoryStatus is the state of search and the notes (statusline).
type MemoryStatus = statusline.MemoryStatus
