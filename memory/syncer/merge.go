package syncer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// Merging: when this device and another both wrote while apart, or when a
// plain database syncs for the first time, the Syncer builds a new replica
// from the server's database, copies this device's rows into it by id,
// pushes it and swaps it in for the old files (kept in sync-backup/).
//
// What is copied after a conflict: the rows named by sync log entries of
// the old replica that the server's log lacks (rows written here and never
// pushed), in their current local state. For a plain database: every row.
// Rows are applied idempotently:
//   - a row missing on the server is inserted;
//   - a row both sides have is replaced by the local one, except that a
//     table with updated_at keeps whichever is newer (notes: last edit or
//     delete wins);
//   - messages never change once written, except an answer saved while it
//     streamed: one the server has is skipped unless the server's copy is
//     still interrupted and the local one is complete or longer (the rest
//     of that answer), and one whose place (conversation, seq) the other device took is
//     appended after the server's messages of that conversation;
//   - a row deleted here is deleted there.
//
// Turns and embeddings of the copied rows are copied too when the server
// has none, so that nothing is embedded twice; the index worker re-derives
// whatever no longer matches.

// mergeDirName is beside the database, with memory.BackupDirName.
const mergeDirName = "sync-merge"

// rebuild merges this device's rows into a fresh copy of the server's
// database and swaps it in. adopt copies every row (a plain database's
// first sync); otherwise only rows not pushed yet (a conflict).
func (sy *Syncer) rebuild(ctx context.Context, adopt bool) (rep SyncReport, err error) {
	rep.Merged, rep.Conflict = true, !adopt
	defer func() { rep.NotMerged = sy.notMerged }()
	store := sy.store
	// The swap at the end needs the files to itself: with another mneme
	// open, fail now rather than after a download.
	if !store.TryExclusive() {
		return rep, errOthersOpen
	}
	store.EndExclusive()
	dir := filepath.Dir(store.Path())
	work := filepath.Join(dir, mergeDirName)
	defer os.RemoveAll(work)
	pre, err := takeFingerprints(ctx, store)
	if err != nil {
		return rep, err
	}
	for attempt := 1; ; attempt++ {
		if sy.cfg.OnMerge != nil {
			sy.cfg.OnMerge(attempt, mergeAttempts)
		}
		n, err := sy.rebuildOnce(ctx, adopt, work, filepath.Join(dir, memory.BackupDirName))
		if err == nil {
			rep.Reapplied = n
			break
		}
		if !isConflict(err) || attempt == mergeAttempts {
			if isConflict(err) || strings.Contains(err.Error(), "sync error") {
				return rep, fmt.Errorf("sync: merge: %s", sy.cleanError(err))
			}
			return rep, fmt.Errorf("sync: merge: %w", err)
		}
		sy.log.Info("sync: the server moved during the merge; starting over", "attempt", attempt)
	}
	post, err := takeFingerprints(ctx, store)
	if err != nil {
		return rep, err
	}
	rep.Received = diffFingerprints(pre, post)
	maxSeq, err := store.MaxLogSeq(ctx)
	if err != nil {
		return rep, err
	}
	// Rows applied here are logged in the new replica. If the push went
	// through they are on the server: count from the newest entry.
	info, _ := readReplicaInfo(store.Path())
	if n, err := store.CountChangedRows(ctx, maxSeq); err == nil && n == 0 {
		sy.mu.Lock()
		sy.state.Watermark = maxSeq
		sy.mu.Unlock()
	}
	sy.log.Info("sync: merged", "adopt", adopt, "reapplied", rep.Reapplied, "received", rep.Received.String(), "backup", filepath.Join(dir, memory.BackupDirName))
	sy.afterPull(ctx, pre, post, info)
	return rep, nil
}

// rebuildOnce does one attempt; a conflict error means the server moved
// meanwhile and the caller starts over.
func (sy *Syncer) rebuildOnce(ctx context.Context, adopt bool, work, backup string) (int, error) {
	store := sy.store
	sy.notMerged = 0 // counted anew when the server moved and the merge starts over
	newPath := filepath.Join(work, filepath.Base(store.Path()))
	memory.WaitClosed(newPath) // a previous attempt's files
	if err := os.RemoveAll(work); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(work, 0o700); err != nil {
		return 0, err
	}
	// Download the server's database (go-libsql bootstraps a missing replica).
	if err := sy.syncFiles(ctx, newPath); err != nil {
		return 0, err
	}
	if _, ok := readReplicaInfo(newPath); !ok {
		return 0, fmt.Errorf("%w: %s stopped answering during the merge", ErrSyncOffline, sy.display)
	}
	done := map[string]bool{} // log entries applied
	total := 0
	if !adopt {
		// First pass while this device keeps writing.
		n, err := sy.mergeInto(ctx, newPath, false, done)
		if err != nil {
			return total, err
		}
		total += n
		if n > 0 {
			if err := sy.syncFiles(ctx, newPath); err != nil {
				return total, err
			}
		}
	}
	// Last pass with writes held, then the swap: it needs the files to
	// itself, but only now. The download above, however long, leaves other
	// commands free to open the database.
	if !store.TryExclusive() {
		return total, errOthersOpen
	}
	defer store.EndExclusive()
	err := store.HoldWrites(func() error {
		n, err := sy.mergeInto(ctx, newPath, adopt, done)
		if err != nil {
			return err
		}
		total += n
		if n > 0 {
			if err := sy.syncFiles(ctx, newPath); err != nil {
				return err
			}
		}
		return store.SwapDatabase(newPath, backup)
	})
	return total, err
}

// mergeInto copies rows from the live store into the replica at newPath:
// every row when all is set, else the rows of log entries the replica's
// log lacks and done does not hold (done gains them).
func (sy *Syncer) mergeInto(ctx context.Context, newPath string, all bool, done map[string]bool) (int, error) {
	dst, err := memory.Open(ctx, newPath, memory.WithClock(sy.store.Now))
	if err != nil {
		return 0, err
	}
	// go-libsql finishes closing connections in the background, and a
	// connection closing takes the database file's lock (SQLite's WAL
	// close checks whether it is the last one). The push that follows runs
	// on go-libsql's own connection, which has no busy timeout: it would
	// fail with "database is locked". Let the close finish first.
	defer dst.CloseAndWait()
	if all {
		n, _, err := applyRows(ctx, sy.store, dst, nil, sy)
		return n, err
	}
	have := map[string]bool{}
	theirs, err := dst.LogEntries(ctx, 0)
	if err != nil {
		return 0, err
	}
	for _, e := range theirs {
		have[e.Entry] = true
	}
	entries, err := sy.store.LogEntries(ctx, 0)
	if err != nil {
		return 0, err
	}
	keys := map[string][]string{}
	seen := map[[2]string]bool{}
	for _, e := range entries {
		if have[e.Entry] || done[e.Entry] {
			continue
		}
		done[e.Entry] = true
		k := [2]string{e.Table, e.RowID}
		if !seen[k] {
			seen[k] = true
			keys[e.Table] = append(keys[e.Table], e.RowID)
		}
	}
	if len(keys) == 0 {
		return 0, nil
	}
	n, touched, err := applyRows(ctx, sy.store, dst, keys, sy)
	if err != nil {
		return n, err
	}
	return n, deriveMerged(ctx, sy.store, dst, touched)
}

// deriveMerged re-derives the turns of conversations that got rows in the
// merge, so that the push carries them and neither device derives (and
// writes) them again (each device puts them in its keyword index, and
// marks them in its local state, when the merge arrives: see refreshIndex),
// and vectors this device already had for the same text are reused under the
// new turn ids (a message moved after the other device's gets a new turn
// number, not a new text).
func deriveMerged(ctx context.Context, src storeFiles, dst *memory.Store, touched map[string]bool) error {
	// Conversations whose turns the server lacks (rows pushed before their
	// turns were derived) are derived here too, once, instead of on every
	// device that pulls them.
	stale, err := dst.StaleConversations(ctx)
	if err != nil {
		return err
	}
	for _, r := range stale {
		touched[r.ConversationID] = true
	}
	for conv := range touched {
		var user string
		err := dst.DB().QueryRowContext(ctx, `SELECT user_id FROM conversations WHERE id = ?`, conv).Scan(&user)
		if err != nil {
			continue // not copied (see the log)
		}
		if _, _, err := dst.SyncTurns(ctx, user, conv); err != nil {
			return err
		}
		turns, err := dst.ConversationTurns(ctx, conv)
		if err != nil {
			return err
		}
		err = dst.Write(ctx, func(tx memory.Execer) error {
			for _, t := range turns {
				if err := reuseVectors(ctx, src, tx, t); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// reuseVectors copies src's vectors of text with t's hash to t, for every
// model t has none under.
func reuseVectors(ctx context.Context, src storeFiles, tx memory.Execer, t memory.Turn) error {
	rows, err := src.DB().QueryContext(ctx, `SELECT kind, user_id, chunk, model, dim, hash, text, vector, created_at
		FROM embeddings WHERE hash = ? AND user_id = ?`, t.Hash, t.UserID)
	if err != nil {
		return err
	}
	found, err := sqlq.ReadAll(rows, 9)
	if err != nil {
		return err
	}
	for _, v := range found {
		if _, err := tx.ExecContext(ctx, `INSERT INTO embeddings (owner_id, kind, user_id, chunk, model, dim, hash, text, vector, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`, append([]any{t.ID}, v...)...); err != nil {
			return err
		}
	}
	return nil
}

// applyRows copies rows of the tracked tables from src to dst in one
// transaction: the rows named in keys (by table), or every row when keys is
// nil. It returns how many rows it applied and the conversations that got
// rows.
func applyRows(ctx context.Context, src tableReader, dst *memory.Store, keys map[string][]string, sy *Syncer) (int, map[string]bool, error) {
	tables, err := dst.TrackedTables(ctx)
	if err != nil {
		return 0, nil, err
	}
	srcTables, err := src.TrackedTables(ctx)
	if err != nil {
		return 0, nil, err
	}
	srcCols := map[string][]string{}
	for _, t := range srcTables {
		srcCols[t.Name] = t.Columns
	}
	applied := 0
	touchedConvs := map[string]bool{}
	var owners []string // ids whose embeddings may be copied
	docs := docMerge{older: map[string]bool{}}
	err = dst.Write(ctx, func(tx memory.Execer) error {
		for _, t := range tables {
			have := srcCols[t.Name]
			if have == nil {
				continue
			}
			cols := intersect(t.Columns, have)
			var ids []string
			if keys != nil {
				ids = keys[t.Name]
				if len(ids) == 0 {
					continue
				}
			}
			rows, err := readRows(ctx, src, t.Name, cols, ids)
			if err != nil {
				return err
			}
			found := map[string]bool{}
			for _, r := range rows {
				found[r.id] = true
				skip, err := docs.ready(ctx, tx, t.Name, cols, r)
				if skip {
					continue
				}
				ok := false
				if err == nil {
					ok, err = applyRow(ctx, tx, t.Name, cols, r)
				}
				if err != nil {
					sy.log.Warn("sync: merge: row not copied", "table", t.Name, "id", r.id, "err", sy.cleanError(err))
					sy.notMerged++
					continue
				}
				if ok {
					applied++
				}
				switch t.Name {
				case "conversations":
					touchedConvs[r.id] = true
				case "messages", "summaries":
					touchedConvs[r.stringCol(cols, "conversation_id")] = true
					owners = append(owners, r.id)
				default:
					owners = append(owners, r.id)
				}
			}
			// Named but gone here: deleted on this device (unless a passage
			// of a document whose newer version the merged copy keeps).
			for _, id := range ids {
				if found[id] || docs.keeps(ctx, tx, t.Name, id) {
					continue
				}
				res, err := tx.ExecContext(ctx, `DELETE FROM `+sqlq.Ident(t.Name)+` WHERE id = ?`, id)
				if err != nil {
					sy.log.Warn("sync: merge: delete not applied", "table", t.Name, "id", id, "err", sy.cleanError(err))
					continue
				}
				if n, _ := res.RowsAffected(); n > 0 {
					applied++
				}
			}
		}
		if err := copyDerived(ctx, src, tx, touchedConvs, owners, keys == nil); err != nil {
			return err
		}
		return dropOrphanVectors(ctx, tx)
	})
	return applied, touchedConvs, err
}

// row is one row read for copying.
type row struct {
	id   string
	vals []any
}

func (r row) stringCol(cols []string, name string) string {
	for i, c := range cols {
		if c == name {
			if s, ok := r.vals[i].(string); ok {
				return s
			}
		}
	}
	return ""
}

// readRows reads cols of the rows with the given ids (all rows when ids is
// nil), messages in conversation order.
func readRows(ctx context.Context, s storeFiles, table string, cols, ids []string) ([]row, error) {
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = sqlq.Ident(c)
	}
	base := `SELECT ` + strings.Join(quoted, ", ") + ` FROM ` + sqlq.Ident(table)
	order := ""
	if table == "messages" {
		order = ` ORDER BY conversation_id, seq`
	}
	var out []row
	scan := func(q string, args ...any) error {
		rows, err := s.DB().QueryContext(ctx, q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		idIdx := indexOf(cols, "id")
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				return err
			}
			id, _ := vals[idIdx].(string)
			out = append(out, row{id: id, vals: vals})
		}
		return rows.Err()
	}
	if ids == nil {
		return out, scan(base + order)
	}
	for start := 0; start < len(ids); start += sqlq.MaxParams {
		part := ids[start:min(start+sqlq.MaxParams, len(ids))]
		if err := scan(base+` WHERE id IN (`+sqlq.Placeholders(len(part))+`)`+order, sqlq.Args(part)...); err != nil {
			return nil, err
		}
	}
	if table == "messages" && len(ids) > sqlq.MaxParams {
		ci, si := indexOf(cols, "conversation_id"), indexOf(cols, "seq")
		sort.SliceStable(out, func(i, j int) bool {
			a, b := out[i].vals, out[j].vals
			if a[ci] != b[ci] {
				return fmt.Sprint(a[ci]) < fmt.Sprint(b[ci])
			}
			return toInt(a[si]) < toInt(b[si])
		})
	}
	return out, nil
}

// completeMessage brings the server's copy of a message up to date when it
// is an answer that was pushed while it streamed (still interrupted) and
// this device has more of it. Other messages never change.
func completeMessage(ctx context.Context, tx memory.Execer, cols []string, r row) (bool, error) {
	get := func(name string) any {
		if i := indexOf(cols, name); i >= 0 {
			return r.vals[i]
		}
		return nil
	}
	content, status := get("content"), get("status")
	if content == nil || status == nil {
		return false, nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE messages SET content = ?, thinking = ?, tool_calls = ?, status = ?
		WHERE id = ? AND status = 'interrupted'
		  AND (? = 'complete' OR length(?) > length(content))`,
		content, get("thinking"), get("tool_calls"), status, r.id, status, content)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// applyRow writes one row into dst; false means it was already there.
func applyRow(ctx context.Context, tx memory.Execer, table string, cols []string, r row) (bool, error) {
	quoted := make([]string, len(cols))
	var sets []string
	for i, c := range cols {
		quoted[i] = sqlq.Ident(c)
		if c != "id" {
			sets = append(sets, sqlq.Ident(c)+" = excluded."+sqlq.Ident(c))
		}
	}
	vals := r.vals
	if table == "messages" {
		var exists int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE id = ?`, r.id).Scan(&exists); err != nil {
			return false, err
		}
		if exists > 0 {
			return completeMessage(ctx, tx, cols, r)
		}
		ci, si := indexOf(cols, "conversation_id"), indexOf(cols, "seq")
		var taken int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE conversation_id = ? AND seq = ?`, vals[ci], vals[si]).Scan(&taken); err != nil {
			return false, err
		}
		if taken > 0 {
			// The other device appended here too: go after its messages.
			vals = append([]any(nil), vals...)
			if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ?`, vals[ci]).Scan(&vals[si]); err != nil {
				return false, err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO messages (`+strings.Join(quoted, ", ")+`) VALUES (`+sqlq.Placeholders(len(cols))+`)`, vals...)
		return err == nil, err
	}
	q := `INSERT INTO ` + sqlq.Ident(table) + ` (` + strings.Join(quoted, ", ") + `) VALUES (` + sqlq.Placeholders(len(cols)) + `)`
	if len(sets) > 0 {
		q += ` ON CONFLICT(id) DO UPDATE SET ` + strings.Join(sets, ", ")
		if indexOf(cols, "updated_at") >= 0 {
			q += ` WHERE excluded.updated_at >= ` + sqlq.Ident(table) + `.updated_at`
		}
	} else {
		q += ` ON CONFLICT(id) DO NOTHING`
	}
	res, err := tx.ExecContext(ctx, q, vals...)
	if err != nil {
		return false, err
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// copyDerived copies the turns of touched conversations and the
// embeddings of their turns and of other copied rows (notes, summaries),
// where dst has none: every one of them when all is set.
func copyDerived(ctx context.Context, src tableReader, tx memory.Execer, convs map[string]bool, owners []string, all bool) error {
	turnCols, err := src.TableColumns(ctx, "turns")
	if err != nil {
		return err
	}
	var convIDs []string
	for id := range convs {
		convIDs = append(convIDs, id)
	}
	var turnIDs []string
	copyTable := func(table string, cols []string, where string, args []any, idCol string) error {
		quoted := make([]string, len(cols))
		for i, c := range cols {
			quoted[i] = sqlq.Ident(c)
		}
		rows, err := src.DB().QueryContext(ctx, `SELECT `+strings.Join(quoted, ", ")+` FROM `+sqlq.Ident(table)+where, args...)
		if err != nil {
			return err
		}
		batch, err := sqlq.ReadAll(rows, len(cols))
		if err != nil {
			return err
		}
		ins := `INSERT INTO ` + sqlq.Ident(table) + ` (` + strings.Join(quoted, ", ") + `) VALUES (` + sqlq.Placeholders(len(cols)) + `) ON CONFLICT DO NOTHING`
		for _, vals := range batch {
			if _, err := tx.ExecContext(ctx, ins, vals...); err != nil {
				continue // e.g. its conversation was not copied
			}
			if idCol != "" {
				if s, ok := vals[indexOf(cols, idCol)].(string); ok {
					turnIDs = append(turnIDs, s)
				}
			}
		}
		return nil
	}
	if len(turnCols) > 0 {
		if all {
			if err := copyTable("turns", turnCols, "", nil, ""); err != nil {
				return err
			}
		} else {
			for start := 0; start < len(convIDs); start += sqlq.MaxParams {
				part := convIDs[start:min(start+sqlq.MaxParams, len(convIDs))]
				if err := copyTable("turns", turnCols, ` WHERE conversation_id IN (`+sqlq.Placeholders(len(part))+`)`, sqlq.Args(part), "id"); err != nil {
					return err
				}
			}
		}
	}
	embCols, err := src.TableColumns(ctx, "embeddings")
	if err != nil || len(embCols) == 0 {
		return err
	}
	if all {
		return copyTable("embeddings", embCols, "", nil, "")
	}
	ids := append(turnIDs, owners...)
	for start := 0; start < len(ids); start += sqlq.MaxParams {
		part := ids[start:min(start+sqlq.MaxParams, len(ids))]
		if err := copyTable("embeddings", embCols, ` WHERE owner_id IN (`+sqlq.Placeholders(len(part))+`)`, sqlq.Args(part), ""); err != nil {
			return err
		}
	}
	return nil
}

// dropOrphanVectors deletes the vectors whose turn, note, summary or
// document passage the merge deleted. They hold the text they were made
// from, and nothing else would remove them: a conversation deleted on
// this device while another wrote would keep its words in the merged copy,
// on every device and on the server.
func dropOrphanVectors(ctx context.Context, tx memory.Execer) error {
	_, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE
		(kind = 'turn' AND owner_id NOT IN (SELECT id FROM turns))
		OR (kind = 'summary' AND owner_id NOT IN (SELECT id FROM summaries))
		OR (kind = 'note' AND owner_id NOT IN (SELECT id FROM notes WHERE deleted_at IS NULL))
		OR (kind = 'chunk' AND owner_id NOT IN (SELECT id FROM doc_chunks))`)
	if err != nil {
		return fmt.Errorf("drop the vectors of deleted rows: %w", err)
	}
	return nil
}

func intersect(a, b []string) []string {
	in := map[string]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}

func indexOf(xs []string, x string) int {
	for i, y := range xs {
		if y == x {
			return i
		}
	}
	return -1
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return 0
}
