package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// TestConversationsRmForgetNotes: `conversations rm ID` keeps the notes
// learnt from the conversation and says so; with --forget-notes they go
// with it, from the notes and from search, and the others stay.
func TestConversationsRmForgetNotes(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isExtraction(req) {
			turn := req.Messages[1].Content
			switch {
			case strings.Contains(turn, "cat"):
				return fakeollama.Reply{Content: []string{`{"memories":[{"text":"Has a cat called Tom.","confidence":0.9,"tags":["pets"],"kind":"fact"},` +
					`{"text":"Buys cat food at the market.","confidence":0.8,"tags":["pets"],"kind":"fact"}]}`}}
			case strings.Contains(turn, "Volvo"):
				return fakeollama.Reply{Content: []string{`{"memories":[{"text":"Drives an old Volvo.","confidence":0.9,"tags":["car"],"kind":"fact"}]}`}}
			}
			return fakeollama.Reply{Content: []string{`{"memories":[]}`}}
		}
		if isDecision(req) {
			return fakeollama.Reply{Content: []string{`{"event":"ADD","id":0,"text":""}`}}
		}
		return extractReply(`[]`)(req)
	})
	d := newDevice(t, srv.Host()).learnOn()
	cats, _ := d.askJSON("I have a cat called Tom and buy cat food at the market")
	cars, _ := d.askJSON("I drive an old Volvo")
	d.mustOK("", "memory", "add", "Likes green tea.")
	if n := len(d.notes()); n != 4 {
		t.Fatalf("%d notes before, want 4", n)
	}

	if r := d.mneme("", "conversations", "rm"); r.code != 2 || !strings.Contains(r.stderr, "give one conversation id") {
		t.Fatalf("rm without id: %+v", r)
	}
	if r := d.mneme("", "conversations", "rm", "zzzzzzzz"); r.code != 1 || !strings.Contains(r.stderr, "not found") {
		t.Fatalf("rm of an unknown id: %+v", r)
	}

	// A prefix shorter than 8 names a moment, not a conversation.
	if r := d.mneme("", "conversations", "rm", cars.ConversationID[:4]); r.code != 2 || !strings.Contains(r.stderr, "at least 8 characters") {
		t.Fatalf("rm of a 4-character prefix: %+v", r)
	}

	// Without the flag: deleted, its note kept, and the user told how to forget it.
	r := d.mustOK("", "conversations", "rm", cars.ConversationID)
	if !strings.Contains(r.stdout, "Deleted conversation "+cars.ConversationID) ||
		!strings.Contains(r.stdout, "Kept 1 note that came from it; to forget: mneme conversations rm "+cars.ConversationID+" --forget-notes") {
		t.Fatalf("rm:\n%s", r.stdout)
	}
	if n := len(d.notes()); n != 4 {
		t.Fatalf("%d notes after rm without --forget-notes, want 4", n)
	}

	// With it, by a prefix, as JSON.
	r = d.mustOK("", "conversations", "rm", "--forget-notes", "--json", cats.ConversationID[:len(cats.ConversationID)-2])
	var out struct {
		ID             string `json:"id"`
		Deleted        bool   `json:"deleted"`
		Notes          int    `json:"notes"`
		NotesForgotten bool   `json:"notes_forgotten"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("rm --json: %v\n%s", err, r.stdout)
	}
	if out.ID != cats.ConversationID || !out.Deleted || out.Notes != 2 || !out.NotesForgotten {
		t.Fatalf("rm --forget-notes --json: %+v", out)
	}
	for _, c := range d.conversations() {
		if c.ID == cats.ConversationID || c.ID == cars.ConversationID {
			t.Fatalf("conversation %s still listed", c.ID)
		}
	}
	var left []string
	for _, n := range d.notes() {
		left = append(left, n.Content)
	}
	if strings.Join(left, "|") != "Likes green tea.|Drives an old Volvo." && strings.Join(left, "|") != "Drives an old Volvo.|Likes green tea." {
		t.Fatalf("notes left %q", left)
	}
	for _, q := range []string{"cat Tom", "cat food market"} {
		if r := d.mustOK("", "memory", "search", "--json", q); strings.Contains(r.stdout, "cat") {
			t.Fatalf("search %q still finds a forgotten note:\n%s", q, r.stdout)
		}
	}

	// The notes a conversation deleted earlier left can be forgotten later, by its full id.
	r = d.mustOK("", "conversations", "rm", cars.ConversationID, "--forget-notes")
	if !strings.Contains(r.stdout, "already deleted") || !strings.Contains(r.stdout, "Forgot 1 note") {
		t.Fatalf("forgetting the notes of a deleted conversation:\n%s", r.stdout)
	}
	if notes := d.notes(); len(notes) != 1 || notes[0].Content != "Likes green tea." {
		t.Fatalf("notes at the end %+v", notes)
	}
}
