package memory

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/memory/schema"
)

// fillForBackup gives alice two conversations (one typed, one imported
// from a file), a summary, notes of every kind (and a deleted one), and
// bob a conversation and a note. It returns alice's typed conversation.
func fillForBackup(t *testing.T, s *Store) Conversation {
	t.Helper()
	ctx := context.Background()
	c, err := s.CreateConversation(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{"I live in Porto", "Noted: Porto.", "and I cycle", "Cycling, noted."} {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		if _, err := s.AppendMessage(ctx, "alice", Message{ConversationID: c.ID, Role: role, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.SaveSummary(ctx, "alice", Summary{ConversationID: c.ID, FirstSeq: 1, LastSeq: 2, Text: "Alice lives in Porto.", Model: "m1"}); err != nil {
		t.Fatal(err)
	}
	importString(t, s, "alice", sampleImport) // "Lisbon trip", and bob's conversation
	trip, err := s.ListConversations(ctx, "alice", ListOptions{})
	if err != nil || len(trip) != 2 {
		t.Fatalf("conversations = %+v, %v", trip, err)
	}
	if err := s.SetArchived(ctx, "alice", c.ID, true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveNote(ctx, "alice", "lives in Porto", NoteSource{ConversationID: c.ID, TurnNumber: 1, By: SourceModel, Tags: []string{"home"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveNote(ctx, "alice", "likes trams", NoteSource{By: SourceExtracted, Confidence: 0.7, Tags: []string{"travel", "transport"}}); err != nil {
		t.Fatal(err)
	}
	put, err := s.SaveNote(ctx, "alice", "once liked opera", NoteSource{By: SourceExtracted, Confidence: 0.4})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetNoteStatus(ctx, "alice", put.ID, NoteArchived); err != nil {
		t.Fatal(err)
	}
	gone, err := s.SaveNote(ctx, "alice", "a note deleted later", NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteNote(ctx, "alice", gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveNote(ctx, "bob", "bob's note", NoteSource{}); err != nil {
		t.Fatal(err)
	}
	return c
}

// archivedNote is alice's archived note.
func archivedNote(t *testing.T, s *Store) Note {
	t.Helper()
	archived, err := s.ListArchivedNotes(context.Background(), "alice")
	if err != nil || len(archived) != 1 {
		t.Fatalf("archived notes = %+v, %v", archived, err)
	}
	return archived[0]
}

var exportedAt = regexp.MustCompile(`"exported_at":"[^"]*"`)

func backupOf(t *testing.T, s *Store, user string) string {
	t.Helper()
	var b bytes.Buffer
	if err := s.ExportAll(context.Background(), user, &b); err != nil {
		t.Fatal(err)
	}
	return exportedAt.ReplaceAllString(b.String(), `"exported_at":"T"`)
}

func TestBackupRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := openTest(t)
	c := fillForBackup(t, src)
	backup := backupOf(t, src, "alice")
	lines := strings.Split(strings.TrimSpace(backup), "\n")
	if !strings.HasPrefix(lines[0], `{"type":"mneme-backup","version":1,`) {
		t.Fatalf("first line = %s", lines[0])
	}
	for _, want := range []string{`"type":"note"`, `"type":"note_change"`, `"by":"model"`, `"type":"summary"`, `"source":"extracted","confidence":0.7,"tags":["travel","transport"]`, `"title":"Lisbon trip"`} {
		if !strings.Contains(backup, want) {
			t.Errorf("the backup lacks %s:\n%s", want, backup)
		}
	}
	for _, not := range []string{"deleted later", "bob"} {
		if strings.Contains(backup, not) {
			t.Errorf("the backup holds %q", not)
		}
	}

	dst := openTest(t)
	st, bad := importWith(t, dst, "alice", backup, false)
	if len(bad) != 0 || !st.Backup || st.Imported != 7 || st.Notes != 3 || st.Summaries != 1 {
		t.Fatalf("restore: %+v, bad %v", st, bad)
	}
	if again := backupOf(t, dst, "alice"); again != backup {
		t.Fatalf("the round trip changed the backup:\n%s\nwant\n%s", again, backup)
	}
	// The compacted conversation opens with its summary, archived as it was.
	sum, err := dst.LatestSummary(ctx, "alice", c.ID)
	if err != nil || sum.Text != "Alice lives in Porto." || sum.LastSeq != 2 {
		t.Fatalf("latest summary = %+v, %v", sum, err)
	}
	conv, err := dst.Conversation(ctx, "alice", c.ID)
	if err != nil || !conv.Archived || conv.MessageCount != 4 {
		t.Fatalf("conversation = %+v, %v", conv, err)
	}
	notes, err := dst.ListNotes(ctx, "alice")
	if err != nil || len(notes) != 2 {
		t.Fatalf("notes = %+v, %v", notes, err)
	}
	if archived, err := dst.ListArchivedNotes(ctx, "alice"); err != nil || len(archived) != 1 || archived[0].Content != "once liked opera" {
		t.Fatalf("archived notes = %+v, %v", archived, err)
	}
	// The history comes back with the notes: the archived note's creation
	// and archiving, newest first.
	type change struct{ op, by, after, status string }
	hist, err := queryRows(ctx, dst.db, func(r rowScanner) (change, error) {
		var c change
		return c, r.Scan(&c.op, &c.by, &c.after, &c.status)
	}, `SELECT op, changed_by, after_text, after_status FROM note_changes WHERE note_id = ? ORDER BY at DESC, id DESC`, archivedNote(t, dst).ID)
	if err != nil || len(hist) != 2 || hist[0] != (change{ChangeStatus, ByUser, "once liked opera", NoteArchived}) ||
		hist[1] != (change{ChangeCreate, ByExtracted, "once liked opera", NoteActive}) {
		t.Fatalf("history after restore = %+v, %v", hist, err)
	}
	for _, n := range notes {
		switch n.Content {
		case "likes trams":
			if n.Source != SourceExtracted || n.Confidence != 0.7 || !slices.Equal(n.Tags, []string{"travel", "transport"}) {
				t.Errorf("note = %+v", n)
			}
		case "lives in Porto":
			if n.ConversationID != c.ID || n.TurnNumber != 1 || n.Source != SourceModel {
				t.Errorf("note = %+v", n)
			}
		}
	}

	// Importing the same backup again adds nothing; so does importing it
	// into the store it came from.
	for _, s := range []*Store{dst, src} {
		st, bad = importWith(t, s, "alice", backup, false)
		if len(bad) != 0 || st.Imported != 0 || st.Notes != 0 || st.Summaries != 0 || st.Conflicts != 0 {
			t.Fatalf("re-import: %+v, bad %v", st, bad)
		}
		if again := backupOf(t, s, "alice"); again != backup {
			t.Fatalf("re-import changed the backup:\n%s", again)
		}
	}
	// A note edited since the backup keeps its text, and the restore says
	// one line was kept as stored.
	trams := notes[slices.IndexFunc(notes, func(n Note) bool { return n.Content == "likes trams" })]
	if _, err := dst.UpdateNote(ctx, "alice", trams.ID, "likes trams and funiculars"); err != nil {
		t.Fatal(err)
	}
	if st, bad = importWith(t, dst, "alice", backup, false); len(bad) != 0 || st.Notes != 0 || st.Conflicts != 1 {
		t.Fatalf("restore over an edited note: %+v, bad %v", st, bad)
	}
	if n, err := dst.Note(ctx, "alice", trams.ID); err != nil || n.Content != "likes trams and funiculars" {
		t.Fatalf("the edited note after restore: %+v, %v", n, err)
	}
}

func TestBackupCorruptLineIsReportedAndTheRestRestores(t *testing.T) {
	src := openTest(t)
	fillForBackup(t, src)
	backup := backupOf(t, src, "alice")
	lines := strings.Split(backup, "\n")
	lines = slices.Insert(lines, 3, `{"type":"note","id":`)
	dst := openTest(t)
	_, bad := importWith(t, dst, "alice", strings.Join(lines, "\n"), false)
	if len(bad) != 1 || bad[0].Line != 4 || !strings.Contains(bad[0].Error(), "line 4") {
		t.Fatalf("bad lines = %v", bad)
	}
	if again := backupOf(t, dst, "alice"); again != backup {
		t.Fatalf("the rest was not restored:\n%s", again)
	}
}

// A backup's ids are printed and matched by prefix: an id too short to
// name a row, or one carrying escapes, is refused with the line, and the
// rest restores.
func TestBackupLinesWithOddIdsAreSkipped(t *testing.T) {
	src := openTest(t)
	fillForBackup(t, src)
	backup := backupOf(t, src, "alice")
	odd := []string{
		`{"type":"conversation","id":"c2","title":"short id","created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`,
		`{"type":"conversation","id":"\u001b[2Jabcdefgh","title":"escape","created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`,
		`{"type":"note","id":"n1","content":"short id","created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`,
		`{"type":"note","id":"abcdefgh-note","conversation":"\u202eevil-conversation","content":"odd conversation","created":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`,
	}
	dst := openTest(t)
	_, bad := importWith(t, dst, "alice", backup+strings.Join(odd, "\n")+"\n", false)
	if len(bad) != len(odd) {
		t.Fatalf("bad lines = %v", bad)
	}
	for _, b := range bad {
		if !strings.Contains(b.Error(), "must be 8 to 64 letters, digits, - or _") || strings.ContainsAny(b.Error(), "\x1b\u202e") {
			t.Fatalf("bad line = %q", b.Error())
		}
	}
	if again := backupOf(t, dst, "alice"); again != backup {
		t.Fatalf("the rest was not restored as it was:\n%s", again)
	}
}

// A backup's message whose id mneme could not print or find by prefix is
// restored under a derived id, not stored as given nor dropped.
func TestBackupMessagesWithOddIdsGetDerivedOnes(t *testing.T) {
	ctx := context.Background()
	const conv = "01a20cee-66d3-7ca2-814d-4f4007cdb018"
	backup := strings.Join([]string{
		`{"type":"mneme-backup","version":1,"exported_at":"2026-11-24T10:11:59Z","user":"alice"}`,
		`{"type":"conversation","id":"` + conv + `","user":"alice","title":"odd","title_source":"auto","created":"2026-11-24T09:41:20Z","updated":"2026-11-24T09:41:20Z"}`,
		`{"id":"m2","user":"alice","conversation":"` + conv + `","role":"user","content":"short id"}`,
		`{"id":"\u001b]0;pwned\u0007xxxxxxxx","user":"alice","conversation":"` + conv + `","role":"assistant","content":"escape in the id"}`,
	}, "\n") + "\n"
	dst := openTest(t)
	if _, bad := importWith(t, dst, "alice", backup, false); len(bad) != 0 {
		t.Fatalf("bad lines = %v", bad)
	}
	msgs, err := dst.Messages(ctx, "alice", conv)
	if err != nil || len(msgs) != 2 || msgs[0].Content != "short id" || msgs[1].Content != "escape in the id" {
		t.Fatalf("restored %+v, %v", msgs, err)
	}
	for _, m := range msgs {
		if schema.CheckID("id", m.ID) != nil {
			t.Fatalf("a message kept the id %q", m.ID)
		}
	}
}

func TestBackupLinesOfAnotherUserAreSkipped(t *testing.T) {
	ctx := context.Background()
	src := openTest(t)
	fillForBackup(t, src)
	mixed := backupOf(t, src, "alice") + backupOf(t, src, "bob")
	dst := openTest(t)
	_, bad := importWith(t, dst, "alice", mixed, false)
	if len(bad) == 0 {
		t.Fatal("bob's lines were not reported")
	}
	for _, b := range bad {
		if !errors.Is(b, ErrOtherUser) {
			t.Fatalf("bad line = %v", b)
		}
	}
	if notes, _ := dst.ListNotes(ctx, "bob"); len(notes) != 0 {
		t.Fatalf("bob's notes were restored: %+v", notes)
	}
	if convs, _ := dst.ListConversations(ctx, "bob", ListOptions{}); len(convs) != 0 {
		t.Fatalf("bob's conversations were restored: %+v", convs)
	}
	// With AllUsers both are restored.
	all := openTest(t)
	if _, bad := importWith(t, all, "alice", mixed, true); len(bad) != 0 {
		t.Fatalf("bad lines = %v", bad)
	}
	if got, want := backupOf(t, all, "bob"), backupOf(t, src, "bob"); got != want {
		t.Fatalf("bob's backup = %s, want %s", got, want)
	}
}

// Rows are read a page at a time; the pages join up into the same backup.
func TestBackupReadsInPages(t *testing.T) {
	s := openTest(t)
	fillForBackup(t, s)
	whole := backupOf(t, s, "alice")
	defer func(n int) { exportPage = n }(exportPage)
	exportPage = 1
	if paged := backupOf(t, s, "alice"); paged != whole {
		t.Fatalf("read a row at a time:\n%s\nwant\n%s", paged, whole)
	}
}

// A message whose text grows when escaped (code full of "<", C1 controls)
// still makes a backup line that restore takes: exports write "<" as it
// is, and an import takes lines six times as long as the longest message
// it takes.
func TestBackupOfMessagesThatGrowWhenEscapedRestores(t *testing.T) {
	ctx := context.Background()
	src := openTest(t)
	c, err := src.CreateConversation(ctx, "alice", "Big")
	if err != nil {
		t.Fatal(err)
	}
	content := strings.Repeat("<a & b>", 3<<20/7) + strings.Repeat("\u0085\u202e", 1<<20)
	if _, err := src.AppendMessage(ctx, "alice", Message{ConversationID: c.ID, Role: RoleUser, Content: content}); err != nil {
		t.Fatal(err)
	}
	backup := backupOf(t, src, "alice")
	if !strings.Contains(backup, "<a & b>") {
		t.Fatal(`the backup escapes "<" and "&"`)
	}
	dst := openTest(t)
	if st, bad := importWith(t, dst, "alice", backup, false); len(bad) != 0 || st.Imported != 1 {
		t.Fatalf("restore: %+v, bad %v", st, bad)
	}
	msgs, err := dst.Messages(ctx, "alice", c.ID)
	if err != nil || len(msgs) != 1 || msgs[0].Content != content {
		t.Fatalf("restored %d messages, %v", len(msgs), err)
	}
	// A message longer than an export of it could be taken back is
	// refused on import, named.
	long := `{"conversation":"c","role":"user","content":"` + strings.Repeat("a", maxRecordText+1) + `"}` + "\n"
	if _, bad := importString(t, openTest(t), "alice", long); len(bad) != 1 || !strings.Contains(bad[0].Error(), "a message longer than 16 MiB") {
		t.Fatalf("a message over the limit: %v", bad)
	}
}

// TestApprovingANoteThatReplacesAnother: approving a pending note that
// replaces a kept one deletes that one (recorded in its history), and the
// relation survives a backup and its restore.
func TestApprovingANoteThatReplacesAnother(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	berlin, err := s.SaveNote(ctx, "alice", "lives in Berlin", NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	lisbon, err := s.SaveNote(ctx, "alice", "lives in Lisbon", NoteSource{By: SourceExtracted, Confidence: 0.9, Pending: true, Replaces: berlin.ID})
	if err != nil {
		t.Fatal(err)
	}
	backup := backupOf(t, s, "alice")
	if !strings.Contains(backup, `"replaces":"`+berlin.ID+`"`) {
		t.Fatalf("the backup lacks what the pending note replaces:\n%s", backup)
	}
	restored := openTest(t)
	if _, bad := importWith(t, restored, "alice", backup, false); len(bad) != 0 {
		t.Fatalf("restore: %v", bad)
	}
	for _, st := range []*Store{s, restored} {
		n, err := st.SetNoteStatus(ctx, "alice", lisbon.ID, NoteActive)
		if err != nil || n.Status != NoteActive || n.Replaces != berlin.ID {
			t.Fatalf("approved = %+v, %v", n, err)
		}
		if _, err := st.Note(ctx, "alice", berlin.ID); !errors.Is(err, ErrNoteNotFound) {
			t.Fatalf("the replaced note after the approval: %v", err)
		}
		var op string
		if err := st.db.QueryRowContext(ctx, `SELECT op FROM note_changes WHERE note_id = ? ORDER BY at DESC, id DESC LIMIT 1`, berlin.ID).Scan(&op); err != nil || op != ChangeDelete {
			t.Fatalf("the replaced note's last change = %q, %v", op, err)
		}
	}

	// A note that is itself waiting for review (an older proposal the
	// approved one merges) goes too.
	first, err := s.SaveNote(ctx, "alice", "works at a bakery", NoteSource{Pending: true})
	if err != nil {
		t.Fatal(err)
	}
	second, err := s.SaveNote(ctx, "alice", "works at a cafe", NoteSource{Pending: true, Replaces: first.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetNoteStatus(ctx, "alice", second.ID, NoteActive); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Note(ctx, "alice", first.ID); !errors.Is(err, ErrNoteNotFound) {
		t.Fatalf("the pending note it named: %v", err)
	}
}
