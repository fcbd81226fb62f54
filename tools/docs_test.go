package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/memory/docstore"
)

func (e *env) addDoc(user, path string, texts ...string) docstore.Document {
	e.t.Helper()
	n := docstore.New{UserID: user, Path: path, Title: "Boiler manual", Type: "pdf", Size: 100, Hash: docstore.HashBytes([]byte(strings.Join(texts, "|")))}
	for i, s := range texts {
		n.Pieces = append(n.Pieces, docstore.Piece{Page: i + 1, Text: s})
	}
	d, _, err := e.ix.AddDocument(context.Background(), n)
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

func TestFileSearchCitesThePassageAndItsFile(t *testing.T) {
	e := newEnv(t, false)
	d := e.addDoc("alice", "/home/alice/boiler.pdf", "Reset the boiler by holding the red button for ten seconds.", "Service it every year.")
	s := Session{UserID: "alice", ConversationID: "c", TurnNumber: 1}
	res, err := e.reg.Execute(context.Background(), s, Call{ID: "1", Name: FileSearchName, Args: json.RawMessage(`{"query": "how do I reset the boiler"}`)})
	if err != nil {
		t.Fatal(err)
	}
	var out FileSearchOut
	if err := json.Unmarshal([]byte(res.Content), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) == 0 {
		t.Fatalf("no results: %s", res.Content)
	}
	top := out.Results[0]
	if top.N != 1 || top.DocumentID != d.ID || top.Path != "/home/alice/boiler.pdf" || top.Page != 1 || !strings.Contains(top.Passage, "red button") {
		t.Fatalf("top = %+v", top)
	}
	if len(res.Citations) != len(out.Results) || res.Citations[0] != top.Citation {
		t.Fatalf("citations %+v, results %+v", res.Citations, out.Results)
	}
	// The stored result gives the same citations back (a reloaded chat
	// lists its sources so); another tool's result, or an error, none.
	if got := StoredCitations(FileSearchName, res.Content); len(got) != len(res.Citations) || got[0] != res.Citations[0] {
		t.Fatalf("stored citations %+v, want %+v", got, res.Citations)
	}
	if StoredCitations(MemorySearchName, res.Content) != nil || StoredCitations(FileSearchName, `{"error":"x"}`) != nil {
		t.Fatal("citations from another tool or an error")
	}
	// A second call in the same turn numbers on, so [n] names one passage.
	res2, err := e.reg.Execute(context.Background(), s, Call{ID: "2", Name: FileSearchName, Args: json.RawMessage(`{"query": "service interval", "max_results": 1}`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res2.Citations) != 1 || res2.Citations[0].N != len(out.Results)+1 {
		t.Fatalf("second call citations = %+v", res2.Citations)
	}
	// Another user finds nothing, and is told why.
	var bob FileSearchOut
	e.mustCall(Session{UserID: "bob"}, FileSearchName, `{"query": "reset the boiler"}`, &bob)
	if len(bob.Results) != 0 || bob.Note != NoteNoDocuments {
		t.Fatalf("bob = %+v", bob)
	}
}

func TestFileSearchRefusesBadArguments(t *testing.T) {
	e := newEnv(t, false)
	for _, args := range []string{`{}`, `{"query": ""}`, `{"query": "x", "max_results": 21}`, `{"query": "x", "max_results": 0}`,
		`{"query": "x", "collection": "` + strings.Repeat("c", 101) + `"}`, `{"query": "x", "extra": 1}`} {
		if _, err := e.call(Session{UserID: "alice"}, FileSearchName, args); !errors.Is(err, ErrInvalidArgs) {
			t.Errorf("%s: err = %v, want ErrInvalidArgs", args, err)
		}
	}
}
