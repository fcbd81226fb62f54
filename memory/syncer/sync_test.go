package syncer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/memory/index/indextest"
)

// syncDevice is one device in-process: a data dir with a store, a search
// index (with the scripted topic embedder) and a Syncer.
type syncDevice struct {
	t     *testing.T
	name  string
	dir   string
	store *memory.Store
	ix    *index.Index
	sy    *Syncer
	emb   *indextest.TopicEmbedder
	logs  *bytes.Buffer
}

func newSyncDevice(t *testing.T, name string, srv *syncserver.Server, token string) *syncDevice {
	t.Helper()
	d := &syncDevice{t: t, name: name, dir: t.TempDir(), emb: &indextest.TopicEmbedder{}, logs: &bytes.Buffer{}}
	d.open(srv.URL, token)
	return d
}

func (d *syncDevice) open(url, token string) {
	d.t.Helper()
	ctx := context.Background()
	var err error
	d.store, err = memory.Open(ctx, filepath.Join(d.dir, memory.DBFileName))
	if err != nil {
		d.t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(d.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	d.ix, err = index.OpenIndex(ctx, d.store, d.dir, index.IndexOptions{Embed: d.emb, Model: index.EmbedModel{Name: "topic", ContextLength: 512}, Log: log})
	if err != nil {
		d.t.Fatal(err)
	}
	d.sy, err = NewSyncer(d.store, SyncConfig{URL: url, Token: token, Log: log})
	if err != nil {
		d.t.Fatal(err)
	}
	if err := d.sy.AttachIndex(ctx, d.ix); err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(d.close)
}

func (d *syncDevice) close() {
	if d.ix != nil {
		d.ix.Close()
		d.ix = nil
	}
	if d.store != nil {
		d.store.Close()
		d.store = nil
	}
}

// sync runs a round and fails the test on error.
func (d *syncDevice) sync() SyncReport {
	d.t.Helper()
	rep, err := d.sy.SyncNow(context.Background())
	if err != nil {
		d.t.Fatalf("%s: sync: %v\nlog:\n%s", d.name, err, d.logs.String())
	}
	d.t.Logf("%s: sync: %s (%s)", d.name, rep, rep.Duration.Round(time.Millisecond))
	return rep
}

// drain finishes the index work (turns, keywords, embeddings).
func (d *syncDevice) drain() {
	d.t.Helper()
	if err := d.ix.Drain(context.Background()); err != nil {
		d.t.Fatal(err)
	}
}

func (d *syncDevice) titles() []string {
	d.t.Helper()
	list, err := d.store.ListConversations(context.Background(), "alice", memory.ListOptions{})
	if err != nil {
		d.t.Fatal(err)
	}
	var out []string
	for _, c := range list {
		out = append(out, c.Title)
	}
	sort.Strings(out)
	return out
}

func (d *syncDevice) notes() []string {
	d.t.Helper()
	list, err := d.store.ListNotes(context.Background(), "alice")
	if err != nil {
		d.t.Fatal(err)
	}
	var out []string
	for _, n := range list {
		out = append(out, n.Content)
	}
	sort.Strings(out)
	return out
}

func (d *syncDevice) searchTurns(text string) []index.SearchResult {
	d.t.Helper()
	res, err := d.ix.Search(context.Background(), index.SearchQuery{UserID: "alice", Text: text})
	if err != nil {
		d.t.Fatal(err)
	}
	return res
}

func (d *syncDevice) searchNotes(text string) []index.NoteResult {
	d.t.Helper()
	res, err := d.ix.SearchNotes(context.Background(), index.NoteQuery{UserID: "alice", Text: text})
	if err != nil {
		d.t.Fatal(err)
	}
	return res
}

// foundByWords reports whether a note containing text was found by the
// keyword index (alone or with vectors).
func foundByWords(res []index.NoteResult, text string) bool {
	for _, r := range res {
		if strings.Contains(r.Content, text) && r.MatchedBy != index.MatchVector {
			return true
		}
	}
	return false
}

func hasTitle(res []index.SearchResult, title string) bool {
	for _, r := range res {
		if r.Title == title {
			return true
		}
	}
	return false
}

// TestSyncTwoDevicesShareMemory: a conversation held on A is listed and
// found by keyword and by vector on B after both sync, with A's vectors
// used as they arrived; notes edited on B reach A, notes deleted on A
// disappear from B.
func TestSyncTwoDevicesShareMemory(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	b := newSyncDevice(t, "B", srv, "")

	chat(t, a.store, "alice", "Pets", "My kitten keeps scratching the sofa", "Try a scratching post.")
	a.drain()
	if rep := a.sync(); !rep.Merged || !a.store.IsReplica() {
		t.Fatalf("A's first sync did not make a replica: %+v", rep)
	}
	rep := b.sync()
	if !b.store.IsReplica() || rep.Received.Conversations != 1 || rep.Received.Messages != 2 {
		t.Fatalf("B's first sync: %+v", rep)
	}
	if got := b.titles(); len(got) != 1 || got[0] != "Pets" {
		t.Fatalf("B lists %q", got)
	}
	if res := b.searchTurns("scratching"); len(res) == 0 || res[0].Title != "Pets" {
		t.Fatalf("B keyword search: %+v", res)
	}
	before := b.emb.Count()
	res := b.searchTurns("feline") // no shared word: only the vector can find it
	if len(res) == 0 || res[0].Title != "Pets" || res[0].MatchedBy != index.MatchVector {
		t.Fatalf("B vector search: %+v", res)
	}
	if n := b.emb.Count() - before; n != 1 {
		t.Fatalf("B embedded %d texts for one query: A's vectors were not reused", n)
	}
	for _, in := range b.emb.Inputs {
		if strings.Contains(in, "kitten") {
			t.Fatalf("B re-embedded A's turn: %q", in)
		}
	}

	// A note written on A, edited on B, shows edited on A.
	n, err := a.ix.SaveNote(ctx, "alice", "Alice's cat is called Tom", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := a.ix.SaveNote(ctx, "alice", "Alice parks her car in the garage", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	a.sync()
	if rep := b.sync(); rep.Received.Notes != 2 {
		t.Fatalf("B received %+v", rep.Received)
	}
	if _, err := b.ix.UpdateNote(ctx, "alice", n.ID, "Alice's cat is called Tom; he is a tabby"); err != nil {
		t.Fatal(err)
	}
	b.sync()
	if rep := a.sync(); rep.Received.Notes != 1 {
		t.Fatalf("A received %+v", rep.Received)
	}
	if !foundByWords(a.searchNotes("tabby"), "tabby") {
		t.Fatalf("A does not find B's edit by keyword")
	}
	// Deleted on A: gone on B, from the list and from search.
	if _, err := a.ix.DeleteNote(ctx, "alice", gone.ID); err != nil {
		t.Fatal(err)
	}
	a.sync()
	if rep := b.sync(); rep.Received.NotesDeleted != 1 {
		t.Fatalf("B received %+v", rep.Received)
	}
	if got := b.notes(); len(got) != 1 || !strings.Contains(got[0], "tabby") {
		t.Fatalf("B notes after A's delete: %q", got)
	}
	for _, r := range b.searchNotes("garage") {
		if r.ID == gone.ID {
			t.Fatalf("B still finds the deleted note: %+v", r)
		}
	}
	if st := b.sy.Status(ctx); st.State != SyncSynced || st.Pending != 0 {
		t.Fatalf("B status %+v", st)
	}
	if srv.Conflicts() != 0 {
		t.Fatalf("%d conflicts in turn-taking sync", srv.Conflicts())
	}
}

// TestSyncConflictKeepsBothSides: both devices write while the server is
// down (new conversations, the same conversation, notes edited and
// deleted); after syncing A, B, A both hold the union.
func TestSyncConflictKeepsBothSides(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	b := newSyncDevice(t, "B", srv, "")
	shared := chat(t, a.store, "alice", "Shared", "Let us plan the Lisbon trip", "Start in Alfama.")
	keep, _ := a.ix.SaveNote(ctx, "alice", "Alice likes sourdough bread", memory.NoteSource{})
	drop, _ := a.ix.SaveNote(ctx, "alice", "Alice's car needs new tyres", memory.NoteSource{})
	a.drain()
	a.sync()
	b.sync()

	srv.Down()
	// A, offline.
	chat(t, a.store, "alice", "Only on A", "My kitten chases the tram", "Cats love moving things.")
	for _, m := range []string{"What about the tram 28?", "Take it early."} {
		role := memory.RoleUser
		if strings.HasPrefix(m, "Take") {
			role = memory.RoleAssistant
		}
		if _, err := a.store.AppendMessage(ctx, "alice", memory.Message{ConversationID: shared.ID, Role: role, Content: m}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.ix.UpdateNote(ctx, "alice", keep.ID, "Alice likes sourdough bread with flour on top"); err != nil {
		t.Fatal(err)
	}
	a.ix.SaveNote(ctx, "alice", "Alice was in Portugal in May", memory.NoteSource{})
	a.drain()
	if _, err := a.sy.SyncNow(ctx); !errors.Is(err, ErrSyncOffline) {
		t.Fatalf("A sync while down: %v", err)
	}
	if st := a.sy.Status(ctx); st.State != SyncOffline || st.Pending == 0 {
		t.Fatalf("A status while down: %+v", st)
	}
	// B, offline.
	chat(t, b.store, "alice", "Only on B", "The engine of my car rattles", "Check the heat shield.")
	for _, m := range []string{"Is Belem worth it?", "Yes, for the pastries."} {
		role := memory.RoleUser
		if strings.HasPrefix(m, "Yes") {
			role = memory.RoleAssistant
		}
		if _, err := b.store.AppendMessage(ctx, "alice", memory.Message{ConversationID: shared.ID, Role: role, Content: m}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.ix.DeleteNote(ctx, "alice", drop.ID); err != nil {
		t.Fatal(err)
	}
	luna, err := b.ix.SaveNote(ctx, "alice", "Alice's kitten is called Luna", memory.NoteSource{
		ConversationID: shared.ID, TurnNumber: 2, By: memory.SourceExtracted, Confidence: 0.7, Tags: []string{"pets"}})
	if err != nil {
		t.Fatal(err)
	}
	b.drain()
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}

	a.sync()
	rep := b.sync()
	if !rep.Conflict || rep.Reapplied == 0 {
		t.Fatalf("B's sync after both wrote: %+v", rep)
	}
	if st := b.sy.Status(ctx); st.Message == "" || st.LastConflict == nil {
		t.Fatalf("B's status does not tell about the conflict: %+v", st)
	}
	a.sync()
	a.drain()
	b.drain()
	wantTitles := []string{"Only on A", "Only on B", "Shared"}
	wantNotes := []string{"Alice likes sourdough bread with flour on top", "Alice was in Portugal in May", "Alice's kitten is called Luna"}
	for _, d := range []*syncDevice{a, b} {
		if got := d.titles(); strings.Join(got, "|") != strings.Join(wantTitles, "|") {
			t.Errorf("%s conversations %q", d.name, got)
		}
		if got := d.notes(); strings.Join(got, "|") != strings.Join(wantNotes, "|") {
			t.Errorf("%s notes %q", d.name, got)
		}
		// The merge carries every column of a note, the learnt ones' too.
		if n, err := d.store.Note(ctx, "alice", luna.ID); err != nil || n.Source != memory.SourceExtracted ||
			n.Confidence != 0.7 || strings.Join(n.Tags, ",") != "pets" || n.ConversationID != shared.ID || n.TurnNumber != 2 {
			t.Errorf("%s learnt note %+v, %v", d.name, n, err)
		}
		msgs, err := d.store.Messages(ctx, "alice", shared.ID)
		if err != nil {
			t.Fatal(err)
		}
		var texts []string
		for i, m := range msgs {
			if m.Seq != i+1 {
				t.Errorf("%s: message %d has seq %d", d.name, i, m.Seq)
			}
			texts = append(texts, m.Content)
		}
		all := strings.Join(texts, "|")
		for _, want := range []string{"Let us plan", "tram 28", "Take it early", "Belem", "pastries"} {
			if !strings.Contains(all, want) {
				t.Errorf("%s: shared conversation lacks %q: %q", d.name, want, texts)
			}
		}
		if !hasTitle(d.searchTurns("rattles"), "Only on B") || !hasTitle(d.searchTurns("chases"), "Only on A") {
			t.Errorf("%s does not find both sides' turns", d.name)
		}
		for _, r := range d.searchNotes("tyres") {
			if r.ID == drop.ID {
				t.Errorf("%s finds the note deleted on B: %+v", d.name, r)
			}
		}
		if !foundByWords(d.searchNotes("Luna"), "Luna") {
			t.Errorf("%s does not find B's note by keyword", d.name)
		}
		// The notes' history merges too: A's edit and B's delete, on both.
		for _, want := range []struct {
			id  string
			ops string
		}{{keep.ID, "update,create"}, {drop.ID, "delete,create"}} {
			hist, err := history.Of(ctx, d.store, "alice", want.id)
			var ops []string
			for _, c := range hist {
				ops = append(ops, c.Op)
			}
			if err != nil || strings.Join(ops, ",") != want.ops {
				t.Errorf("%s history of %s: %v %v, want %s", d.name, want.id, ops, err, want.ops)
			}
		}
	}
	// No error loop: the next rounds are quiet.
	conflicts := srv.Conflicts()
	if rep := b.sync(); rep.Conflict {
		t.Fatalf("second conflict: %+v", rep)
	}
	if rep := a.sync(); rep.Conflict || srv.Conflicts() != conflicts {
		t.Fatalf("A conflicts again: %+v (%d conflicts)", rep, srv.Conflicts())
	}
	if _, err := os.Stat(filepath.Join(b.dir, memory.BackupDirName, memory.DBFileName)); err != nil {
		t.Errorf("no backup of B's pre-merge database: %v", err)
	}
}

// TestSyncOfflineAtStart: a device that never reached the server works
// locally, says offline, and joins once the server is back.
func TestSyncOfflineAtStart(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	srv.Down()
	a := newSyncDevice(t, "A", srv, "")
	t0 := time.Now()
	_, err := a.sy.SyncNow(ctx)
	if !errors.Is(err, ErrSyncOffline) {
		t.Fatalf("sync with the server down: %v", err)
	}
	t.Logf("offline round took %s", time.Since(t0))
	chat(t, a.store, "alice", "Offline", "Written while offline", "Kept locally.")
	st := a.sy.Status(ctx)
	if st.State != SyncOffline || st.Pending == 0 || st.Label() != "offline" {
		t.Fatalf("status %+v label %q", st, st.Label())
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	a.sync()
	b := newSyncDevice(t, "B", srv, "")
	b.sync()
	if got := b.titles(); len(got) != 1 || got[0] != "Offline" {
		t.Fatalf("B lists %q", got)
	}
}

// TestSyncTokenNeverShown: a wrong token is an auth error; the token is in
// no log line, status or state file.
func TestSyncTokenNeverShown(t *testing.T) {
	ctx := context.Background()
	const token = "tok-SECRET-0123456789"
	srv := syncserver.New(t)
	srv.Token = token
	a := newSyncDevice(t, "A", srv, token)
	chat(t, a.store, "alice", "Secret", "hello", "hi")
	a.sync()
	bad := newSyncDevice(t, "B", srv, "wrong-token-9876543210")
	if _, err := bad.sy.SyncNow(ctx); !errors.Is(err, ErrSyncAuth) || strings.Contains(err.Error(), "wrong-token") {
		t.Fatalf("wrong token: %v", err)
	}
	st := a.sy.Status(ctx)
	data, _ := json.Marshal(st)
	state, _ := os.ReadFile(filepath.Join(a.dir, SyncStateFileName))
	for what, s := range map[string]string{"log": a.logs.String(), "status": string(data), "state file": string(state),
		"B log": bad.logs.String(), "B status": bad.sy.Status(ctx).LastError} {
		if strings.Contains(s, token) || strings.Contains(s, "wrong-token") {
			t.Errorf("%s shows the token: %s", what, s)
		}
	}
	if st.LastSuccess == nil || st.URL != srv.URL {
		t.Fatalf("status %+v", st)
	}
}

// TestSyncNewerSchemaStopsWrites: a device whose mneme is older than the
// schema that arrives refuses to write, saying to upgrade.
func TestSyncNewerSchemaStopsWrites(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	b := newSyncDevice(t, "B", srv, "")
	c := chat(t, a.store, "alice", "Before", "hello", "hi")
	a.sync()
	b.sync()
	// A "newer mneme" on A records a migration this build does not know.
	if err := a.store.Write(ctx, func(tx memory.Execer) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, applied_at) VALUES (99, 0)`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	a.sync()
	b.sync()
	_, err := b.store.AppendMessage(ctx, "alice", memory.Message{ConversationID: c.ID, Role: memory.RoleUser, Content: "more"})
	if !errors.Is(err, memory.ErrSchemaTooNew) || !strings.Contains(err.Error(), "upgrade mneme") {
		t.Fatalf("write after a newer schema arrived: %v", err)
	}
	if st := b.sy.Status(ctx); st.State != SyncError || !strings.Contains(st.LastError, "upgrade mneme") {
		t.Fatalf("status %+v", st)
	}
	// Reading still works.
	if got := b.titles(); len(got) != 1 {
		t.Fatalf("B lists %q", got)
	}
	// And an older mneme opening it refuses with the same advice.
	b.close()
	if _, err := memory.Open(ctx, filepath.Join(b.dir, memory.DBFileName)); !errors.Is(err, memory.ErrSchemaTooNew) {
		t.Fatalf("reopen: %v", err)
	}
}

// TestEncryptionAtRest: with a key the file holds no plain text; a wrong or
// missing key is refused with advice that never quotes the key; sync and
// encryption together are refused.
func TestEncryptionAtRest(t *testing.T) {
	ctx := context.Background()
	const key = "correct horse battery staple"
	path := filepath.Join(t.TempDir(), memory.DBFileName)
	s, err := memory.Open(ctx, path, memory.WithEncryptionKey(key))
	if err != nil {
		t.Fatal(err)
	}
	chat(t, s, "alice", "Diary", "PLAINTEXT-MARKER in my diary", "Noted.")
	s.Close()
	for _, suf := range []string{"", "-wal"} {
		data, _ := os.ReadFile(path + suf)
		if bytes.Contains(data, []byte("PLAINTEXT-MARKER")) || bytes.HasPrefix(data, []byte("SQLite format")) {
			t.Fatalf("%s%s holds plain text", memory.DBFileName, suf)
		}
	}
	// A wrong key right after a close must not harm the file (a wrong-key
	// connection that checkpointed the WAL on close once destroyed it).
	for i := 0; i < 10; i++ {
		for _, k := range []string{"zebra-7731", ""} {
			_, err := memory.Open(ctx, path, memory.WithEncryptionKey(k))
			if !errors.Is(err, memory.ErrBadKey) || strings.Contains(err.Error(), key) || (k != "" && strings.Contains(err.Error(), k)) {
				t.Fatalf("open with key %q: %v", k, err)
			}
		}
		s, err = memory.Open(ctx, path, memory.WithEncryptionKey(key))
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if i < 9 {
			chat(t, s, "alice", "More", "another entry", "ok")
			s.Close()
		}
	}
	defer s.Close()
	if list, err := s.ListConversations(ctx, "alice", memory.ListOptions{}); err != nil || len(list) != 10 {
		t.Fatalf("reopen with the key: %v %v", list, err)
	}
	srv := syncserver.New(t)
	sy, err := NewSyncer(s, SyncConfig{URL: srv.URL, EncryptionKey: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sy.SyncNow(ctx); !errors.Is(err, memory.ErrEncryptedReplica) {
		t.Fatalf("sync of an encrypted store: %v", err)
	}
}

// TestSyncSwapCrashRollsBack: a crash while the merged replica's files
// move in leaves a marker; the next open puts the old files back.
func TestSyncSwapCrashRollsBack(t *testing.T) {
	ctx := context.Background()
	for _, phase := range []string{"1", "2"} {
		t.Run("phase"+phase, func(t *testing.T) {
			srv := syncserver.New(t)
			a := newSyncDevice(t, "A", srv, "")
			chat(t, a.store, "alice", "Keep me", "hello", "hi")
			a.sync()
			a.close()
			path := filepath.Join(a.dir, memory.DBFileName)
			backupDir := filepath.Join(a.dir, memory.BackupDirName)
			os.MkdirAll(backupDir, 0o700)
			backup := filepath.Join(backupDir, memory.DBFileName)
			if phase == "1" {
				// Crashed after moving the database, before its WAL.
				os.Rename(path, backup)
			} else {
				// Crashed after every old file moved and a new one came in.
				for _, suf := range []string{"", "-wal", "-shm", "-info"} { // a replica's files
					os.Rename(path+suf, backup+suf)
				}
				os.WriteFile(path, []byte("half a merge"), 0o600)
				os.WriteFile(path+"-info", []byte("{}"), 0o600)
			}
			// The marker memory/swap.go leaves while a swap moves files.
			os.WriteFile(filepath.Join(backupDir, "SWAPPING"), []byte(phase), 0o600)
			s, err := memory.Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			list, err := s.ListConversations(ctx, "alice", memory.ListOptions{})
			if err != nil || len(list) != 1 || list[0].Title != "Keep me" || !s.IsReplica() {
				t.Fatalf("after recovery: %v %v replica=%v", list, err, s.IsReplica())
			}
			if _, err := os.Stat(filepath.Join(backupDir, "SWAPPING")); err == nil {
				t.Fatal("marker left behind")
			}
		})
	}
}

// TestSyncConversationDeletes: a conversation deleted on one device goes
// on the other, from the list and from search, after a plain sync and
// after a conflict merge.
func TestSyncConversationDeletes(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	b := newSyncDevice(t, "B", srv, "")
	x := chat(t, a.store, "alice", "Doomed", "a kitten named Pixel", "cute")
	y := chat(t, a.store, "alice", "Also doomed", "the engine of my car", "noisy")
	a.drain()
	a.sync()
	b.sync()
	if !hasTitle(b.searchTurns("Pixel"), "Doomed") {
		t.Fatal("B does not find the conversation before the delete")
	}
	if err := a.ix.DeleteConversation(ctx, "alice", x.ID); err != nil {
		t.Fatal(err)
	}
	a.sync()
	b.sync()
	if got := b.titles(); len(got) != 1 || got[0] != "Also doomed" {
		t.Fatalf("B lists %q", got)
	}
	if hasTitle(b.searchTurns("Pixel"), "Doomed") {
		t.Fatal("B still finds the deleted conversation")
	}

	// Deleted on A while B writes elsewhere: the merge on A keeps the delete,
	// and the vectors made of the deleted words go with it.
	note, err := a.ix.SaveNote(ctx, "alice", "My car is a red Fiat.", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	a.drain()
	a.sync()
	b.sync()
	srv.Down()
	if err := a.ix.DeleteConversation(ctx, "alice", y.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ix.DeleteNote(ctx, "alice", note.ID); err != nil {
		t.Fatal(err)
	}
	chat(t, b.store, "alice", "New on B", "sourdough bread", "bake it")
	b.drain()
	srv.Up()
	b.sync()
	if rep := a.sync(); !rep.Conflict {
		t.Fatalf("A: %+v", rep)
	}
	b.sync()
	for _, d := range []*syncDevice{a, b} {
		if got := d.titles(); len(got) != 1 || got[0] != "New on B" {
			t.Errorf("%s lists %q", d.name, got)
		}
		if hasTitle(d.searchTurns("engine"), "Also doomed") {
			t.Errorf("%s still finds the conversation deleted on A", d.name)
		}
		var vectors int
		if err := d.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings
			WHERE text LIKE '%engine of my car%' OR text LIKE '%red Fiat%'`).Scan(&vectors); err != nil || vectors > 0 {
			t.Errorf("%s keeps the words deleted on A in %d vectors (%v)", d.name, vectors, err)
		}
	}
}
