package memory

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestNoteTextIsChecked(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	for _, bad := range []string{"", "   \n", strings.Repeat("é", MaxNoteRunes+1)} {
		if _, err := s.SaveNote(ctx, "alice", bad, NoteSource{}); !errors.Is(err, ErrInvalid) {
			t.Fatalf("SaveNote(%d runes): %v", len([]rune(bad)), err)
		}
	}
	if _, err := s.SaveNote(ctx, "", "x", NoteSource{}); !errors.Is(err, ErrNoUser) {
		t.Fatalf("no user: %v", err)
	}
	n, err := s.SaveNote(ctx, "alice", strings.Repeat("é", MaxNoteRunes), NoteSource{})
	if err != nil || len([]rune(n.Content)) != MaxNoteRunes {
		t.Fatalf("2000 runes: %v", err)
	}
	n, err = s.SaveNote(ctx, "alice", "bad \xff byte and \x00 nul", NoteSource{TurnNumber: 3})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Note(ctx, "alice", n.ID)
	if err != nil || got.Content != "bad \uFFFD byte and \uFFFD nul" || got.TurnNumber != 0 {
		t.Fatalf("stored %+v %v", got, err)
	}
	// Plain text: what a terminal would act on goes, saved or edited; an
	// only-escapes note is empty.
	n, err = s.SaveNote(ctx, "alice", "\x1b[31mred\x1b[0m \u202eevil\x1b]52;c;aGk=\a here\U000E0049\U000E0047", NoteSource{})
	if err != nil || n.Content != "red evil here" {
		t.Fatalf("saved %q: %v", n.Content, err)
	}
	if n, err = s.UpdateNote(ctx, "alice", n.ID, "blue\x1b[2J \u2066still\u2069"); err != nil || n.Content != "blue still" {
		t.Fatalf("updated %q: %v", n.Content, err)
	}
	if _, err := s.SaveNote(ctx, "alice", "\x1b[2J\x1b[H", NoteSource{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("an only-escapes note: %v", err)
	}
}

func TestNoteIDPrefix(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	a, _ := s.SaveNote(ctx, "alice", "first", NoteSource{})
	b, _ := s.SaveNote(ctx, "alice", "second", NoteSource{})
	if got, err := s.Note(ctx, "alice", a.ID[:len(a.ID)-1]); err != nil || got.ID != a.ID {
		t.Fatalf("prefix: %+v %v", got, err)
	}
	// UUIDv7 ids made in the same millisecond share their first characters.
	common := 0
	for common < len(a.ID) && a.ID[common] == b.ID[common] {
		common++
	}
	if common >= 4 {
		if _, err := s.Note(ctx, "alice", a.ID[:common]); !errors.Is(err, ErrAmbiguous) {
			t.Fatalf("ambiguous prefix: %v", err)
		}
	}
	if _, err := s.Note(ctx, "alice", a.ID[:3]); !errors.Is(err, ErrNoteNotFound) {
		t.Fatalf("3-character prefix: %v", err)
	}
	list, err := s.ListNotes(ctx, "alice")
	if err != nil || len(list) != 2 {
		t.Fatalf("list %+v %v", list, err)
	}
}

func TestChangingANoteNeedsAnEightCharacterPrefix(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	n, err := s.SaveNote(ctx, "alice", "My only note", NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	// A UUIDv7's first characters are its timestamp: "01a2" names a time,
	// not a note, and must not pick the user's only note.
	for _, p := range []string{n.ID[:4], n.ID[:7]} {
		if _, err := s.DeleteNote(ctx, "alice", p); !errors.Is(err, ErrShortPrefix) || !strings.Contains(err.Error(), "at least 8 characters") {
			t.Fatalf("delete %q: %v", p, err)
		}
		if _, err := s.UpdateNote(ctx, "alice", p, "changed"); !errors.Is(err, ErrShortPrefix) {
			t.Fatalf("update %q: %v", p, err)
		}
	}
	if got, err := s.Note(ctx, "alice", n.ID); err != nil || got.Content != "My only note" {
		t.Fatalf("the note after short prefixes: %+v %v", got, err)
	}
	// Reading still takes 4, changing takes 8.
	if _, err := s.Note(ctx, "alice", n.ID[:4]); err != nil {
		t.Fatalf("read by a 4-character prefix: %v", err)
	}
	if d, err := s.DeleteNote(ctx, "alice", n.ID[:8]); err != nil || d.ID != n.ID {
		t.Fatalf("delete by an 8-character prefix: %+v %v", d, err)
	}
}
