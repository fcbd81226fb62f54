package memory

import (
	"context"
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/memory/keyword"
)

// Derived state follows the database: after a pull, conversations, turns
// and notes that arrived from other devices are put in this device's
// keyword index and the in-memory vectors are reloaded (the vectors
// themselves arrive with the rows, in the embeddings table; under the same
// model they are used as they are).
//
// The keyword index's bookkeeping (turns.keyword_hash, notes.keyword_hash,
// meta keyword_index_id) lives in replicated tables, so after a pull it
// describes the other device's index. The Syncer therefore does not rely on
// it: it compares cheap fingerprints of each conversation and note taken
// before and after the pull, writes what changed straight to the keyword
// index (without writing to the database, which would make this device
// "ahead"), and adopts the store's index id into the keyword index.

// kwMetaSyncMark is the keyword index's record of the replica position
// (generation/frame) it was last brought up to date with.
const kwMetaSyncMark = "sync_mark"

// convPrint is a fingerprint of one conversation's rows.
type convPrint struct {
	user, title        string
	archived           int64
	messages, maxSeq   int64
	turns, sumTurnSeqs int64
	maxTurnSeq         int64
}

// notePrint is a fingerprint of one note.
type notePrint struct {
	user    string
	updated int64
	hash    string
	deleted bool
}

// fingerprints describe the searchable rows of a store.
type fingerprints struct {
	convs     map[string]convPrint
	notes     map[string]notePrint
	summaries map[string]summaryPrint
}

// summaryPrint is a fingerprint of one summary.
type summaryPrint struct{ conv, hash string }

func takeFingerprints(ctx context.Context, s *Store) (*fingerprints, error) {
	fp := &fingerprints{convs: map[string]convPrint{}, notes: map[string]notePrint{}, summaries: map[string]summaryPrint{}}
	rows, err := s.db.QueryContext(ctx, `SELECT c.id, c.user_id, c.title, c.archived,
		(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id),
		(SELECT COALESCE(MAX(seq), 0) FROM messages m WHERE m.conversation_id = c.id),
		(SELECT COUNT(*) FROM turns t WHERE t.conversation_id = c.id),
		(SELECT COALESCE(SUM(last_seq), 0) FROM turns t WHERE t.conversation_id = c.id),
		(SELECT COALESCE(MAX(last_seq), 0) FROM turns t WHERE t.conversation_id = c.id)
		FROM conversations c`)
	if err != nil {
		return nil, fmt.Errorf("sync fingerprints: %w", err)
	}
	for rows.Next() {
		var id string
		var p convPrint
		if err := rows.Scan(&id, &p.user, &p.title, &p.archived, &p.messages, &p.maxSeq, &p.turns, &p.sumTurnSeqs, &p.maxTurnSeq); err != nil {
			rows.Close()
			return nil, fmt.Errorf("sync fingerprints: %w", err)
		}
		fp.convs[id] = p
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sync fingerprints: %w", err)
	}
	if ok, err := tableExists(ctx, s, "notes"); err != nil {
		return nil, err
	} else if ok {
		rows, err := s.db.QueryContext(ctx, `SELECT id, user_id, updated_at, hash, deleted_at IS NOT NULL FROM notes`)
		if err != nil {
			return nil, fmt.Errorf("sync fingerprints: %w", err)
		}
		for rows.Next() {
			var id string
			var p notePrint
			if err := rows.Scan(&id, &p.user, &p.updated, &p.hash, &p.deleted); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sync fingerprints: %w", err)
			}
			fp.notes[id] = p
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	if ok, err := tableExists(ctx, s, "summaries"); err != nil {
		return nil, err
	} else if ok {
		rows, err := s.db.QueryContext(ctx, `SELECT id, conversation_id, hash FROM summaries`)
		if err != nil {
			return nil, fmt.Errorf("sync fingerprints: %w", err)
		}
		for rows.Next() {
			var id string
			var p summaryPrint
			if err := rows.Scan(&id, &p.conv, &p.hash); err != nil {
				rows.Close()
				return nil, err
			}
			fp.summaries[id] = p
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return fp, nil
}

func tableExists(ctx context.Context, s *Store, name string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	return n > 0, err
}

// Changes counts what arrived from other devices.
type Changes struct {
	Conversations int `json:"conversations"`
	Messages      int `json:"messages"`
	Notes         int `json:"notes"`
	NotesDeleted  int `json:"notes_deleted"`
	Summaries     int `json:"summaries"`
}

// Empty reports whether nothing arrived.
func (c Changes) Empty() bool { return c == Changes{} }

func (c Changes) String() string {
	var parts []string
	plural := func(n int, one, many string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	if c.Messages > 0 {
		parts = append(parts, plural(c.Messages, "message", "messages")+" in "+plural(c.Conversations, "conversation", "conversations"))
	} else if c.Conversations > 0 {
		parts = append(parts, plural(c.Conversations, "changed conversation", "changed conversations"))
	}
	if c.Notes > 0 {
		parts = append(parts, plural(c.Notes, "note", "notes"))
	}
	if c.NotesDeleted > 0 {
		parts = append(parts, plural(c.NotesDeleted, "note deletion", "note deletions"))
	}
	if c.Summaries > 0 {
		parts = append(parts, plural(c.Summaries, "summary", "summaries"))
	}
	return strings.Join(parts, ", ")
}

// diffFingerprints counts what differs in post from pre, as seen by people
// (messages, titles, notes), leaving derived rows aside.
func diffFingerprints(pre, post *fingerprints) Changes {
	var c Changes
	for id, p := range post.convs {
		q, ok := pre.convs[id]
		if ok && q.messages == p.messages && q.maxSeq == p.maxSeq && q.title == p.title && q.archived == p.archived {
			continue
		}
		c.Conversations++
		if d := p.messages - q.messages; d > 0 {
			c.Messages += int(d)
		}
	}
	for id, p := range post.notes {
		q, ok := pre.notes[id]
		if ok && q == p {
			continue
		}
		if p.deleted {
			if ok && !q.deleted {
				c.NotesDeleted++
			}
			continue
		}
		c.Notes++
	}
	for id, p := range post.summaries {
		if pre.summaries[id] != p {
			c.Summaries++
		}
	}
	return c
}

// differ reports whether anything searchable differs, derived rows included.
func (fp *fingerprints) differ(other *fingerprints) bool {
	if len(fp.convs) != len(other.convs) || len(fp.notes) != len(other.notes) || len(fp.summaries) != len(other.summaries) {
		return true
	}
	for id, p := range fp.convs {
		if other.convs[id] != p {
			return true
		}
	}
	for id, p := range fp.notes {
		if other.notes[id] != p {
			return true
		}
	}
	for id, p := range fp.summaries {
		if other.summaries[id] != p {
			return true
		}
	}
	return false
}

// noteKnown records that the attached index reflects fp at replica position info.
func (sy *Syncer) noteKnown(ctx context.Context, fp *fingerprints, info replicaInfo) {
	sy.mu.Lock()
	sy.known, sy.knownInfo = fp, info
	sy.mu.Unlock()
	if ix := sy.ix.Load(); ix != nil && sy.store.IsReplica() {
		if err := ix.kw.SetMeta(kwMetaSyncMark, info.String()); err != nil {
			sy.log.Warn("sync: keyword index mark", "err", err)
		}
	}
}

// afterPull brings derived state up to date with rows that arrived, and
// stops writes if they came from a newer mneme.
func (sy *Syncer) afterPull(ctx context.Context, pre, post *fingerprints, info replicaInfo) {
	sy.checkSchema(ctx)
	ix := sy.ix.Load()
	if ix == nil {
		return // the next process to attach an index catches up (AttachIndex)
	}
	if pre.differ(post) {
		if err := sy.refreshIndex(ctx, ix, pre, post); err != nil {
			sy.log.Warn("sync: keyword index not brought up to date; it will be rebuilt at the next start", "err", err)
			return
		}
	}
	sy.noteKnown(ctx, post, info)
}

// checkSchema stops writes when the database now holds a migration this
// mneme does not know (a newer mneme on another device wrote it).
func (sy *Syncer) checkSchema(ctx context.Context) {
	applied, err := sy.store.appliedMigrations(ctx)
	if err != nil {
		return
	}
	if err := checkKnownMigrations(applied); err != nil {
		if sy.store.ReadOnlyReason() == nil {
			sy.log.Warn("sync: the synced database comes from a newer mneme; writes are off until mneme is upgraded", "err", err)
		}
		sy.store.setReadOnly(fmt.Errorf("another device upgraded the synced database: %w", err))
	}
}

// catchUpIndex notices pulls made by another process (the replica moved
// while this one did not sync) and updates the attached index.
func (sy *Syncer) catchUpIndex(ctx context.Context) error {
	ix := sy.ix.Load()
	if ix == nil || !sy.store.IsReplica() {
		return nil
	}
	info, ok := readReplicaInfo(sy.store.path)
	sy.mu.Lock()
	known, knownInfo := sy.known, sy.knownInfo
	sy.mu.Unlock()
	if !ok || info == knownInfo || known == nil {
		return nil
	}
	post, err := takeFingerprints(ctx, sy.store)
	if err != nil {
		return err
	}
	if err := sy.refreshIndex(ctx, ix, known, post); err != nil {
		return err
	}
	sy.noteKnown(ctx, post, info)
	return nil
}

// refreshIndex writes to the keyword index every conversation and note
// that differs between pre and post, drops what disappeared, reloads
// vectors, and wakes the index worker (for turns still to derive and
// vectors under another model).
func (sy *Syncer) refreshIndex(ctx context.Context, ix *Index, pre, post *fingerprints) error {
	var refs []ConversationRef
	var gone []string
	for id, p := range post.convs {
		q, ok := pre.convs[id]
		if ok && q == p {
			continue
		}
		refs = append(refs, ConversationRef{UserID: p.user, ConversationID: id})
		for n := p.turns + 1; n <= q.turns; n++ {
			gone = append(gone, TurnID(id, int(n)))
		}
	}
	for id, q := range pre.convs {
		if _, ok := post.convs[id]; !ok {
			for n := int64(1); n <= q.turns; n++ {
				gone = append(gone, TurnID(id, int(n)))
			}
		}
	}
	for _, r := range refs {
		turns, err := sy.store.queryTurns(ctx, `SELECT `+turnColumns+` FROM turns t WHERE t.conversation_id = ? ORDER BY t.number`, r.ConversationID)
		if err != nil {
			return err
		}
		if err := ix.kw.Upsert(turnDocs(turns, post.convs[r.ConversationID].title)...); err != nil {
			return fmt.Errorf("keyword index: %w", err)
		}
	}
	var live []string
	for id, p := range post.notes {
		if q, ok := pre.notes[id]; ok && q == p {
			continue
		}
		if p.deleted {
			gone = append(gone, id)
		} else {
			live = append(live, id)
		}
	}
	for id := range pre.notes {
		if _, ok := post.notes[id]; !ok {
			gone = append(gone, id)
		}
	}
	if len(live) > 0 {
		if err := sy.upsertNoteDocs(ctx, ix, live); err != nil {
			return err
		}
	}
	changedConv := map[string]bool{}
	for _, r := range refs {
		changedConv[r.ConversationID] = true
	}
	var sums []string
	for id, p := range post.summaries {
		if q, ok := pre.summaries[id]; !ok || q != p || changedConv[p.conv] {
			sums = append(sums, id)
		}
	}
	for id := range pre.summaries {
		if _, ok := post.summaries[id]; !ok {
			gone = append(gone, id)
		}
	}
	if err := sy.upsertSummaryDocs(ctx, ix, sums); err != nil {
		return err
	}
	if len(gone) > 0 {
		if err := ix.kw.Delete(gone...); err != nil {
			return fmt.Errorf("keyword index: %w", err)
		}
	}
	sy.adoptIndexID(ctx, ix)
	ix.mu.Lock()
	clear(ix.vecs) // reloaded from the embeddings table on the next search
	ix.mu.Unlock()
	ix.Notify(refs...)
	return nil
}

// turnDocs are the keyword documents of a conversation's turns (as the
// index worker writes them).
func turnDocs(turns []Turn, title string) []keyword.Doc {
	docs := make([]keyword.Doc, len(turns))
	for i, t := range turns {
		docs[i] = keyword.Doc{
			ID: t.ID, Kind: keyword.KindTurn, UserID: t.UserID, ConversationID: t.ConversationID,
			Title: title, Number: t.Number, Text: t.Text, UserText: t.UserText, Time: t.Time,
		}
	}
	return docs
}

// upsertNoteDocs writes live notes to the keyword index (as the notes
// index code does, without marking them in the database).
func (sy *Syncer) upsertNoteDocs(ctx context.Context, ix *Index, ids []string) error {
	for start := 0; start < len(ids); start += maxParams {
		part := ids[start:min(start+maxParams, len(ids))]
		notes, err := sy.store.queryNotes(ctx, `SELECT `+noteColumns+` FROM notes n
			WHERE n.deleted_at IS NULL AND n.id IN (`+placeholders(len(part))+`)`, toAny(part)...)
		if err != nil {
			return err
		}
		docs := make([]keyword.Doc, len(notes))
		for i, n := range notes {
			docs[i] = keyword.Doc{ID: n.ID, Kind: keyword.KindNote, UserID: n.UserID, Text: n.Content, UserText: n.Content, Time: n.Updated}
		}
		if err := ix.kw.Upsert(docs...); err != nil {
			return fmt.Errorf("keyword index: %w", err)
		}
	}
	return nil
}

// upsertSummaryDocs writes summaries to the keyword index (as the summary
// index code does, without marking them in the database).
func (sy *Syncer) upsertSummaryDocs(ctx context.Context, ix *Index, ids []string) error {
	for start := 0; start < len(ids); start += maxParams {
		part := ids[start:min(start+maxParams, len(ids))]
		list, err := sy.store.querySummaries(ctx, `SELECT `+summaryColumns+` FROM summaries s WHERE s.id IN (`+placeholders(len(part))+`)`, toAny(part)...)
		if err != nil {
			return err
		}
		titles, err := sy.store.conversationTitles(ctx, summaryConversations(list))
		if err != nil {
			return err
		}
		docs := make([]keyword.Doc, len(list))
		for i, sum := range list {
			docs[i] = keyword.Doc{
				ID: sum.ID, Kind: keyword.KindSummary, UserID: sum.UserID, ConversationID: sum.ConversationID,
				Title: titles[sum.ConversationID], Text: sum.Text, UserText: sum.Text, Time: sum.Created,
			}
		}
		if err := ix.kw.Upsert(docs...); err != nil {
			return fmt.Errorf("keyword index: %w", err)
		}
	}
	return nil
}

// adoptIndexID makes the keyword index carry the index id the store names,
// which a pull may have replaced with another device's: this index is now
// up to date with the store, and opening it must not rebuild it.
func (sy *Syncer) adoptIndexID(ctx context.Context, ix *Index) {
	want, err := sy.store.Meta(ctx, metaKeywordID)
	if err != nil || want == "" {
		return
	}
	if have, _ := ix.kw.Meta(kwMetaID); have != want {
		if err := ix.kw.SetMeta(kwMetaID, want); err != nil {
			sy.log.Warn("sync: keyword index id", "err", err)
		}
	}
}

// reconcileAll writes every turn and live note to the keyword index and
// removes deleted notes: the fallback when the replica moved and nobody
// knows what changed (a process pulled without this index and exited).
func (sy *Syncer) reconcileAll(ctx context.Context, ix *Index, info replicaInfo) error {
	titles := map[string]string{}
	rows, err := sy.store.db.QueryContext(ctx, `SELECT id, title FROM conversations`)
	if err != nil {
		return err
	}
	for rows.Next() {
		var id, title string
		if err := rows.Scan(&id, &title); err != nil {
			rows.Close()
			return err
		}
		titles[id] = title
	}
	rows.Close()
	err = sy.store.AllTurns(ctx, keywordBatch, func(turns []Turn) error {
		docs := make([]keyword.Doc, 0, len(turns))
		for _, t := range turns {
			docs = append(docs, turnDocs([]Turn{t}, titles[t.ConversationID])...)
		}
		return ix.kw.Upsert(docs...)
	})
	if err != nil {
		return err
	}
	fp, err := takeFingerprints(ctx, sy.store)
	if err != nil {
		return err
	}
	var live, gone []string
	for id, p := range fp.notes {
		if p.deleted {
			gone = append(gone, id)
		} else {
			live = append(live, id)
		}
	}
	if err := sy.upsertNoteDocs(ctx, ix, live); err != nil {
		return err
	}
	var sums []string
	for id := range fp.summaries {
		sums = append(sums, id)
	}
	if err := sy.upsertSummaryDocs(ctx, ix, sums); err != nil {
		return err
	}
	if len(gone) > 0 {
		if err := ix.kw.Delete(gone...); err != nil {
			return err
		}
	}
	sy.adoptIndexID(ctx, ix)
	ix.mu.Lock()
	clear(ix.vecs)
	ix.mu.Unlock()
	ix.Notify()
	sy.noteKnown(ctx, fp, info)
	return nil
}

// countTrackedRows counts the rows of the tables sync merges.
func countTrackedRows(ctx context.Context, s *Store) (int, error) {
	tables, err := trackedTables(ctx, s.db)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, t := range tables {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+quoteIdent(t.name)).Scan(&n); err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
