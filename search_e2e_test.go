package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/realollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

const tripImport = `{"conversation":"c1","title":"Travel","role":"user","content":"We should plan the Lisbon trip for May","time":"2024-04-01T09:00:00Z","ref":"D1:1"}
{"conversation":"c1","role":"assistant","content":"Great, Lisbon is lovely in May. Trams and pastries!","time":"2024-04-01T09:00:05Z","ref":"D1:2"}
{"conversation":"c1","role":"user","content":"Book a table at a seafood restaurant","time":"2024-04-01T09:01:00Z","ref":"D1:3"}
this line is broken
{"conversation":"c1","role":"assistant","content":"Done: Cervejaria Ramiro at 8pm.","time":"2024-04-01T09:01:05Z","ref":"D1:4"}
{"conversation":"c2","title":"Garden","role":"user","content":"My tomato plants have yellow leaves","time":"2024-06-02T10:00:00Z","ref":"D2:1"}
{"conversation":"c2","role":"assistant","content":"Probably overwatering; let the soil dry out.","time":"2024-06-02T10:00:05Z","ref":"D2:2"}
`

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// closedPort is an Ollama address where nothing listens.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestImportAndSearchOffline(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	d := newDevice(t, closedPort(t))
	r := d.mustOK("", "import", writeFile(t, "chat.jsonl", tripImport))
	if !strings.Contains(r.stderr, "line 4") || !strings.Contains(r.stdout, "Imported 6 messages into 2 conversations") {
		t.Fatalf("import: stdout %q stderr %q", r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "keyword-only") {
		t.Fatalf("import does not say search is keyword-only: %q", r.stdout)
	}

	batch := `{"id":1,"query":"When is the Lisbon trip?"}
{"id":"two","query":"why are my tomato leaves yellow","limit":1}
not json
{"id":4,"query":"what restaurant did we book"}
`
	r = d.mustOK("", "search", "--batch", writeFile(t, "q.jsonl", batch))
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d answer lines for 4 query lines:\n%s", len(lines), r.stdout)
	}
	type answer struct {
		ID      json.RawMessage      `json:"id"`
		Results []index.SearchResult `json:"results"`
		Error   string               `json:"error"`
	}
	var answers []answer
	for _, l := range lines {
		var a answer
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("answer %q: %v", l, err)
		}
		answers = append(answers, a)
	}
	want := map[string]string{`1`: "D1:1", `"two"`: "D2:1", `4`: "D1:3"}
	for _, a := range answers {
		if a.Error != "" {
			if !strings.Contains(a.Error, "line 3") {
				t.Errorf("bad line answer: %+v", a)
			}
			continue
		}
		if len(a.Results) == 0 || len(a.Results[0].Refs) == 0 || a.Results[0].Refs[0] != want[string(a.ID)] {
			t.Errorf("query %s: results %+v, want first ref %s", a.ID, a.Results, want[string(a.ID)])
		}
		for _, res := range a.Results {
			if res.MatchedBy != index.MatchKeyword {
				t.Errorf("offline search matched by %s", res.MatchedBy)
			}
		}
	}
	if len(answers[1].Results) != 1 {
		t.Errorf("per-line limit ignored: %d results", len(answers[1].Results))
	}

	// The human listing shows the title, the question and how to open it.
	r = d.mustOK("", "search", "seafood", "restaurant")
	if !strings.Contains(r.stdout, "Travel") || !strings.Contains(r.stdout, "Book a table") || !strings.Contains(r.stdout, "--turn 2") {
		t.Fatalf("search output:\n%s", r.stdout)
	}
	// Another user sees none of it.
	d.extra = []string{"MNEME_USER=someone-else"}
	if r := d.mustOK("", "search", "--json", "Lisbon"); strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("another user's search: %s", r.stdout)
	}
}

func TestAskedTurnsAreFoundByVectorAndKeyword(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Say("Feed the starter daily."), fakeollama.Say("Patch the inner tube."), fakeollama.Say("Ferns and pothos."))
	d := newDevice(t, srv.Host())
	d.mustOK("", "ask", "tell me about sourdough bread baking")
	d.mustOK("", "ask", "how do I fix a flat bicycle tyre")
	d.mustOK("", "ask", "which houseplants like shade")
	if len(srv.EmbedRequests()) == 0 {
		t.Fatal("finished turns were not embedded")
	}
	// The fake's word-hash vectors rate the other turns 0 alike to
	// "sourdough bread": a person's search lists a turn found only by
	// meaning from recall_threshold on (0.5), no longer every turn.
	var res []index.SearchResult
	r := d.mustOK("", "search", "--json", "sourdough bread")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].MatchedBy != index.MatchBoth || !strings.Contains(res[0].Snippet, "sourdough") {
		t.Fatalf("results (the turns of other topics are no match) %+v", res)
	}
	if r := d.mustOK("", "search", "qqzx"); !strings.Contains(r.stdout, "Nothing found") {
		t.Fatalf("a query nothing matches lists:\n%s", r.stdout)
	}
	if res[0].Distance == nil {
		t.Fatal("a vector match has no distance")
	}
	r = d.mustOK("", "doctor")
	if !strings.Contains(r.stdout, "fake-embed") || !strings.Contains(r.stdout, "3 turns indexed by keyword; 0 waiting for embeddings") {
		t.Fatalf("doctor:\n%s", r.stdout)
	}
}

func TestExportImportRoundTripCLI(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	a := newDevice(t, closedPort(t))
	a.mustOK("", "import", writeFile(t, "chat.jsonl", tripImport))
	exported := a.mustOK("", "export").stdout
	if n := strings.Count(exported, "\n"); n != 6 {
		t.Fatalf("exported %d lines", n)
	}
	b := newDevice(t, closedPort(t))
	b.mustOK("", "import", writeFile(t, "export.jsonl", exported))
	again := b.mustOK("", "export").stdout
	strip := func(s string) []map[string]any {
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			var m map[string]any
			json.Unmarshal([]byte(l), &m)
			delete(m, "id")
			out = append(out, m)
		}
		return out
	}
	x, _ := json.Marshal(strip(exported))
	y, _ := json.Marshal(strip(again))
	if string(x) != string(y) {
		t.Fatalf("round trip differs:\n%s\n%s", x, y)
	}
	md := a.mustOK("", "export", "--format", "markdown").stdout
	if !strings.Contains(md, "# Travel") || !strings.Contains(md, "## You\n\nMy tomato plants") {
		t.Fatalf("markdown:\n%s", md)
	}
}

func TestKeywordIndexRepairsAfterDeletion(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	d := newDevice(t, closedPort(t))
	d.mustOK("", "import", writeFile(t, "chat.jsonl", tripImport))
	if err := os.RemoveAll(filepath.Join(d.home, "data", "keyword")); err != nil {
		t.Fatal(err)
	}
	if r := d.mustOK("", "search", "tomato"); !strings.Contains(r.stdout, "Garden") {
		t.Fatalf("after deleting the index:\n%s", r.stdout)
	}
	if r := d.mustOK("", "reindex"); !strings.Contains(r.stdout, "3 turns") {
		t.Fatalf("reindex: %s", r.stdout)
	}
}

// TestSearchWithRealOllamaEmbeddings embeds turns with a real Ollama server
// (the tiny model's vectors mean little, but the code path is the real one).
func TestSearchWithRealOllamaEmbeddings(t *testing.T) {
	srv := realollama.Start(t)
	srv.CreateChatModel(t, "stories", 256)
	d := newDevice(t, srv.Host)
	d.extra = []string{"MNEME_MODEL=stories", "MNEME_EMBED_MODEL=stories"}
	d.mustOK("", "ask", "Once upon a time there was a dragon")
	d.mustOK("", "ask", "Lily went to the park with her ball")
	var res []index.SearchResult
	r := d.mustOK("", "search", "--json", "dragon")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	kinds := map[index.MatchKind]bool{}
	for _, x := range res {
		kinds[x.MatchedBy] = true
	}
	// The tiny model's stories share most words, so every turn may match by
	// keyword too; what matters is that the real vectors took part.
	if len(res) != 2 || !strings.Contains(res[0].Snippet, "dragon") || !kinds[index.MatchBoth] || res[0].Distance == nil {
		t.Fatalf("results %+v", res)
	}
	if out := d.mustOK("", "doctor").stdout; !strings.Contains(out, "2 turns indexed by keyword; 0 waiting for embeddings") {
		t.Fatalf("doctor:\n%s", out)
	}
}

// TestSearchBesideAnImportDoesNotEmbedItsTurns: while another mneme
// imports (it holds the bulk marker and embeds what it stores once done),
// a search does not wait to embed the turns it stored (up to 3 s a search,
// competing with it): it searches what is indexed and says the rest comes
// later; an ask after its answer does not wait for them either.
func TestSearchBesideAnImportDoesNotEmbedItsTurns(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "import", writeFile(t, "trip.jsonl", tripImport)) // indexed, embedded
	ctx := context.Background()
	data := filepath.Join(d.home, "data")
	store, err := memory.Open(ctx, filepath.Join(data, memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	importer, err := index.OpenIndex(ctx, store, data, index.IndexOptions{}) // this process imports
	if err != nil {
		t.Fatal(err)
	}
	defer importer.Close()
	follow := importer.Follow(ctx)
	defer follow.Stop()
	c, err := store.CreateConversation(ctx, "tester", "Imported")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []memory.Message{{Role: memory.RoleUser, Content: "The quokka enclosure needs shade"}, {Role: memory.RoleAssistant, Content: "Plant eucalyptus."}} {
		m.ConversationID = c.ID
		if _, err := store.AppendMessage(ctx, "tester", m); err != nil {
			t.Fatal(err)
		}
	}
	// The import derived the turn (it waits to be embedded) but has not
	// indexed it yet.
	if _, _, err := store.SyncTurns(ctx, "tester", c.ID); err != nil {
		t.Fatal(err)
	}
	before := len(srv.EmbedRequests())
	r := d.mustOK("", "search", "Lisbon")
	if !strings.Contains(r.stdout, "Lisbon") || !strings.Contains(r.stderr, "another mneme is importing") {
		t.Fatalf("search beside an import: %+v", r)
	}
	// Nor does an ask wait to embed them after its answer.
	d.mustOK("", "ask", "what about the trams?")
	for _, req := range srv.EmbedRequests()[before:] {
		if strings.Contains(fmt.Sprint(req.Input), "quokka") {
			t.Fatalf("search or ask embedded the import's turn: %v", req.Input)
		}
	}
}
