package syncer

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// Derived state follows the database: after a pull, conversations, turns
// and notes that arrived from other devices are put in this device's
// keyword index and the in-memory vectors are reloaded (the vectors
// themselves arrive with the rows, in the embeddings table; under the same
// model they are used as they are).
//
// The keyword index's bookkeeping (which text it holds) is local state,
// never synced (memory/local.go), so rows that arrive are simply not marked
// yet. To bring search up to date at once, the Syncer compares cheap
// fingerprints of each conversation and note taken before and after the
// pull and has the index write and mark what changed (Index.Refresh),
// without writing to the synced database, which would make this device
// "ahead".

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
	// docs sums up the document chunks: any chunk added, changed or
	// removed changes it (Index.Refresh then brings them up to date).
	docs string
	// documents are the documents' hashes by id, to count what arrived.
	documents map[string]string
}

// summaryPrint is a fingerprint of one summary.
type summaryPrint struct{ conv, hash string }

func takeFingerprints(ctx context.Context, s Store) (*fingerprints, error) {
	fp := &fingerprints{convs: map[string]convPrint{}, notes: map[string]notePrint{}, summaries: map[string]summaryPrint{}}
	rows, err := s.DB().QueryContext(ctx, `SELECT c.id, c.user_id, c.title, c.archived,
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
		rows, err := s.DB().QueryContext(ctx, `SELECT id, user_id, updated_at, hash, deleted_at IS NOT NULL FROM notes`)
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
		rows, err := s.DB().QueryContext(ctx, `SELECT id, conversation_id, hash FROM summaries`)
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
	if ok, err := tableExists(ctx, s, "doc_chunks"); err != nil {
		return nil, err
	} else if ok {
		if fp.docs, err = chunksDigest(ctx, s); err != nil {
			return nil, err
		}
		if fp.documents, err = documentHashes(ctx, s); err != nil {
			return nil, err
		}
	}
	return fp, nil
}

// chunksDigest is a digest of every document chunk's id and hash.
func chunksDigest(ctx context.Context, s storeFiles) (string, error) {
	rows, err := s.DB().QueryContext(ctx, `SELECT id, hash FROM doc_chunks ORDER BY id`)
	if err != nil {
		return "", fmt.Errorf("sync fingerprints: %w", err)
	}
	defer rows.Close()
	h := sha256.New()
	for rows.Next() {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return "", fmt.Errorf("sync fingerprints: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%s\x00", id, hash)
	}
	return hex.EncodeToString(h.Sum(nil)), rows.Err()
}

// documentHashes are the documents' content hashes by id.
func documentHashes(ctx context.Context, s storeFiles) (map[string]string, error) {
	rows, err := s.DB().QueryContext(ctx, `SELECT id, hash FROM documents`)
	if err != nil {
		return nil, fmt.Errorf("sync fingerprints: %w", err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, hash string
		if err := rows.Scan(&id, &hash); err != nil {
			return nil, fmt.Errorf("sync fingerprints: %w", err)
		}
		out[id] = hash
	}
	return out, rows.Err()
}

func tableExists(ctx context.Context, s storeFiles, name string) (bool, error) {
	var n int
	err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, name).Scan(&n)
	return n > 0, err
}

// Changes counts what arrived from other devices.
type Changes struct {
	Conversations int `json:"conversations"`
	Messages      int `json:"messages"`
	Notes         int `json:"notes"`
	NotesDeleted  int `json:"notes_deleted"`
	Summaries     int `json:"summaries"`
	// Documents counts documents added, changed or removed.
	Documents int `json:"documents"`
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
	if c.Documents > 0 {
		parts = append(parts, plural(c.Documents, "changed document", "changed documents"))
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
	for id, h := range post.documents {
		if pre.documents[id] != h {
			c.Documents++
		}
	}
	for id := range pre.documents {
		if _, ok := post.documents[id]; !ok {
			c.Documents++
		}
	}
	return c
}

// differ reports whether anything searchable differs, derived rows included.
func (fp *fingerprints) differ(other *fingerprints) bool {
	if len(fp.convs) != len(other.convs) || len(fp.notes) != len(other.notes) || len(fp.summaries) != len(other.summaries) || fp.docs != other.docs {
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
	if ix := sy.index(); ix != nil && sy.store.IsReplica() {
		if err := ix.SetReplicaMark(info.String()); err != nil {
			sy.log.Warn("sync: keyword index mark", "err", err)
		}
	}
}

// afterPull brings derived state up to date with rows that arrived, and
// stops writes if they came from a newer mneme.
func (sy *Syncer) afterPull(ctx context.Context, pre, post *fingerprints, info replicaInfo) {
	sy.checkSchema(ctx)
	ix := sy.index()
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
	if err := sy.store.CheckSchema(ctx); err != nil {
		if sy.store.ReadOnlyReason() == nil {
			sy.log.Warn("sync: the synced database comes from a newer mneme; writes are off until mneme is upgraded", "err", err)
		}
		sy.store.SetReadOnly(fmt.Errorf("another device upgraded the synced database: %w", err))
	}
}

// catchUpIndex notices pulls made by another process (the replica moved
// while this one did not sync) and updates the attached index.
func (sy *Syncer) catchUpIndex(ctx context.Context) error {
	ix := sy.index()
	if ix == nil || !sy.store.IsReplica() {
		return nil
	}
	info, ok := readReplicaInfo(sy.store.Path())
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

// refreshIndex writes to the keyword index every conversation, note and
// summary that differs between pre and post, and drops what disappeared
// (Index.Refresh, which also reloads vectors and wakes the index worker).
func (sy *Syncer) refreshIndex(ctx context.Context, ix Index, pre, post *fingerprints) error {
	var refs []memory.ConversationRef
	var gone []string
	for id, p := range post.convs {
		q, ok := pre.convs[id]
		if ok && q == p {
			continue
		}
		refs = append(refs, memory.ConversationRef{UserID: p.user, ConversationID: id})
		for n := p.turns + 1; n <= q.turns; n++ {
			gone = append(gone, memory.TurnID(id, int(n)))
		}
	}
	for id, q := range pre.convs {
		if _, ok := post.convs[id]; !ok {
			for n := int64(1); n <= q.turns; n++ {
				gone = append(gone, memory.TurnID(id, int(n)))
			}
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
	return ix.Refresh(ctx, refs, live, sums, gone)
}

// reconcileAll writes every turn, live note and summary to the keyword
// index and removes deleted notes: the fallback when the replica moved and
// nobody knows what changed (a process pulled without this index and
// exited).
func (sy *Syncer) reconcileAll(ctx context.Context, ix Index, info replicaInfo) error {
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
	var sums []string
	for id := range fp.summaries {
		sums = append(sums, id)
	}
	if err := ix.RefreshAll(ctx, live, sums, gone); err != nil {
		return err
	}
	sy.noteKnown(ctx, fp, info)
	return nil
}

// countTrackedRows counts the rows of the tables sync merges.
func countTrackedRows(ctx context.Context, s Store) (int, error) {
	tables, err := s.TrackedTables(ctx)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, t := range tables {
		var n int
		if err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM `+sqlq.Ident(t.Name)).Scan(&n); err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}
