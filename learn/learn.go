// Package learn is memory that builds itself: after a turn, a model
// extracts the durable facts the user stated about themselves (Extract),
// and each candidate is consolidated with the notes already kept, the way
// mem0 does it: add a new note, update one, delete one the new fact
// contradicts, or do nothing (Consolidate).
//
// Both steps ask the model for structured output (a JSON schema in the
// request's format), with the instructions in the system message and the
// text to work on in the user message. What comes back is validated; a
// malformed reply is dropped with a log line, never stored.
package learn

import (
	"context"

	"github.com/ollama/ollama/api"
)

// ChatClient is the Ollama call learn needs; *api.Client has it.
type ChatClient interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
}

// Kind is what a memory is about.
type Kind string

// The kinds of memory.
const (
	KindFact       Kind = "fact"
	KindPreference Kind = "preference"
	KindPlan       Kind = "plan"
	KindPerson     Kind = "person"
	KindOther      Kind = "other"
)

var kinds = []Kind{KindFact, KindPreference, KindPlan, KindPerson, KindOther}

// Candidate is a memory the model extracted from a turn.
type Candidate struct {
	Text       string   `json:"text"`
	Confidence float64  `json:"confidence"`
	Tags       []string `json:"tags"`
	Kind       Kind     `json:"kind"`
}

// Limits on what an extraction may return.
const (
	// MaxCandidates bounds the memories taken from one turn.
	MaxCandidates = 10
	// MaxTags bounds a memory's tags, and MaxTagRunes each tag.
	MaxTags     = 8
	MaxTagRunes = 32
	// MaxTextRunes bounds a memory's text (as memory.MaxNoteRunes).
	MaxTextRunes = 2000
)
