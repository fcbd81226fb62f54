package memory

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// Local state: what this device knows about its own derived files, which
// must never travel to other devices. A sync replica ships every page of
// the database file, whatever table it belongs to, so a table inside it,
// even one the sync log ignores, still makes a device that rebuilds its
// keyword index push frames (and a device that pulls them describe
// another device's index). Local state therefore lives in a database file
// of its own beside the main one ("mneme-local.db"), attached to every
// connection as the schema "local": queries join it like any table, and
// one write transaction covers both. It is never synced, swapped or
// merged; losing it only makes the keyword index rebuild.
//
// local.keyword_marks records which text of a turn, note or summary the
// keyword index holds (its hash); local.meta which keyword index the marks
// describe; local.note_use how often and when this device last recalled
// or found a note (written on every prompt, it would make two devices'
// sync logs conflict over counters); local.extract_pending the imported
// turns `import --extract` has yet to learn from (lost, they are not).
var localSchema = []string{
	`CREATE TABLE IF NOT EXISTS local.keyword_marks (
		kind TEXT NOT NULL CHECK (kind IN ('turn','note','summary')),
		id   TEXT NOT NULL,
		hash TEXT NOT NULL,
		PRIMARY KEY (kind, id)
	) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS local.meta (
		key   TEXT PRIMARY KEY,
		value TEXT NOT NULL
	)`,
	`CREATE TABLE IF NOT EXISTS local.note_use (
		id      TEXT PRIMARY KEY,
		count   INTEGER NOT NULL,
		last_at INTEGER NOT NULL
	) WITHOUT ROWID`,
	// What the keyword index holds of each document chunk (memory/docstore).
	`CREATE TABLE IF NOT EXISTS local.doc_marks (
		id   TEXT PRIMARY KEY,
		hash TEXT NOT NULL
	) WITHOUT ROWID`,
	// The turns an `import --extract` stored that wait to be learnt from
	// (read and written by learn.Pending, through WriteLocal):
	// a run that failed or was stopped leaves them to the next one.
	`CREATE TABLE IF NOT EXISTS local.extract_pending (
		id TEXT PRIMARY KEY
	) WITHOUT ROWID`,
	// The pending turns a run is learning from, until when (Unix ms): two
	// runs at once learn from each turn once, and a claim a killed run
	// left runs out.
	`CREATE TABLE IF NOT EXISTS local.extract_claims (
		id    TEXT PRIMARY KEY,
		until INTEGER NOT NULL
	) WITHOUT ROWID`,
}

// LocalPath is the local state file of the database at path.
func LocalPath(path string) string {
	return strings.TrimSuffix(path, ".db") + "-local.db"
}

// openLocal creates the local schema (run once per open, outside the
// write lock's read-only check: local state is not the synced database's).
func (s *Store) openLocal(ctx context.Context) error {
	if err := s.journalWAL(ctx, "local"); err != nil {
		return fmt.Errorf("local state: %w", err)
	}
	for _, stmt := range localSchema {
		if _, err := s.db.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("local state: %w", err)
		}
	}
	return nil
}

// LocalMeta reads a key of this device's local metadata ("" when unset).
func (s *Store) LocalMeta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM local.meta WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return v, err
}

// SetLocalMeta writes a key of this device's local metadata.
func (s *Store) SetLocalMeta(ctx context.Context, key, value string) error {
	return s.writeLocal(ctx, func(tx Execer) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO local.meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
}

// ForgetKeywordMarks drops the keyword marks of the given ids (documents
// that left the keyword index), whatever their kind.
func (s *Store) ForgetKeywordMarks(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	return s.writeLocal(ctx, func(tx Execer) error { return forgetMarks(ctx, tx, ids) })
}

func forgetMarks(ctx context.Context, tx Execer, ids []string) error {
	for start := 0; start < len(ids); start += sqlq.MaxParams {
		part := ids[start:min(start+sqlq.MaxParams, len(ids))]
		if _, err := tx.ExecContext(ctx, `DELETE FROM local.keyword_marks WHERE id IN (`+sqlq.Placeholders(len(part))+`)`, sqlq.Args(part)...); err != nil {
			return err
		}
	}
	return nil
}

// TouchNotes records that the notes with ids were used now: recalled into
// a prompt or returned by memory_search. It raises their access count and
// last access time on this device.
func (s *Store) TouchNotes(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	now := s.nowMS()
	return s.writeLocal(ctx, func(tx Execer) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `INSERT INTO local.note_use(id, count, last_at) VALUES (?, 1, ?)
				ON CONFLICT(id) DO UPDATE SET count = count + 1, last_at = excluded.last_at`, id, now); err != nil {
				return fmt.Errorf("note use: %w", err)
			}
		}
		return nil
	})
}

// Gone returns which of ids no longer exist: turns and summaries not
// stored, notes not stored or deleted (kind: "turn", "note" or
// "summary"). A rebuild of the keyword index drops what was deleted while
// it read.
func (s *Store) Gone(ctx context.Context, kind string, ids []string) ([]string, error) {
	q := map[string]string{
		"turn":    `SELECT id FROM turns WHERE id IN (`,
		"note":    `SELECT id FROM notes WHERE deleted_at IS NULL AND id IN (`,
		"summary": `SELECT id FROM summaries WHERE id IN (`,
	}[kind]
	if q == "" {
		return nil, fmt.Errorf("gone %q: %w", kind, ErrInvalid)
	}
	var gone []string
	for start := 0; start < len(ids); start += sqlq.MaxParams {
		part := ids[start:min(start+sqlq.MaxParams, len(ids))]
		there, err := s.idSet(ctx, q+sqlq.Placeholders(len(part))+`)`, sqlq.Args(part)...)
		if err != nil {
			return nil, fmt.Errorf("gone %ss: %w", kind, err)
		}
		for _, id := range part {
			if !there[id] {
				gone = append(gone, id)
			}
		}
	}
	return gone, nil
}
