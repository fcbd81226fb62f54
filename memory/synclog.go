package memory

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// The sync log records which rows this replica wrote, so that after a sync
// conflict the rows written locally since the last successful sync can be
// re-applied to a fresh copy of the server's database.
//
// SQLite triggers fill it, so every write path is covered (turn messages,
// notes, renames, imports, and tables added later) without the code that
// writes knowing about sync. The log is part of the database and so is
// replicated like everything else: each entry has a random id ("entry"),
// and the entries a device has not pushed yet are exactly those of its
// local copy that the server's copy lacks. Derived state (turns, embeddings,
// meta) and the old bookkeeping columns (keyword_hash, unused since keyword
// marks became local state: local.go) are not logged: they are re-derived.
// Its table is made by migration 5 (schema.SyncLog).

// untrackedTables hold derived state or bookkeeping, rebuilt rather than merged.
var untrackedTables = map[string]bool{"turns": true, "sync_log": true, "schema_migrations": true, "meta": true, "embeddings": true}

// untrackedColumns change without the user changing anything.
var untrackedColumns = map[string]bool{"keyword_hash": true}

// TrackedTable is a table whose rows the sync log follows: one with a TEXT
// primary key named id.
type TrackedTable struct {
	Name    string
	Columns []string
}

// mergeOrder lists tables so that referenced rows come first.
var mergeOrder = []string{"users", "conversations", "messages", "notes", "note_changes", "documents", "doc_chunks"}

// trackedTables lists the tables to log, in merge order.
func trackedTables(ctx context.Context, q Execer) ([]TrackedTable, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'libsql_%'`)
	if err != nil {
		return nil, err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return nil, err
		}
		if !untrackedTables[n] {
			names = append(names, n)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rank := func(n string) int {
		for i, m := range mergeOrder {
			if m == n {
				return i
			}
		}
		return len(mergeOrder)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	var out []TrackedTable
	for _, n := range names {
		cols, ok, err := tableColumns(ctx, q, n)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, TrackedTable{Name: n, Columns: cols})
		}
	}
	return out, nil
}

// tableColumns returns a table's columns, and whether its primary key is a
// single TEXT column named id.
func tableColumns(ctx context.Context, q Execer, table string) ([]string, bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, type, pk FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var cols []string
	idPK, pks := false, 0
	for rows.Next() {
		var name, typ string
		var pk int
		if err := rows.Scan(&name, &typ, &pk); err != nil {
			return nil, false, err
		}
		cols = append(cols, name)
		if pk > 0 {
			pks++
			idPK = name == "id" && strings.EqualFold(typ, "TEXT")
		}
	}
	return cols, idPK && pks == 1, rows.Err()
}

// triggerSQL is the trigger that logs op on table.
func triggerSQL(t TrackedTable, op string) (name, stmt string) {
	tbl := sqlq.Text(t.Name)
	switch op {
	case "ins":
		name = "sync_log_" + t.Name + "_ins"
		return name, fmt.Sprintf(`CREATE TRIGGER %s AFTER INSERT ON %s BEGIN INSERT INTO sync_log(tbl, row_id, op) VALUES (%s, NEW.id, 'upsert'); END`,
			sqlq.Ident(name), sqlq.Ident(t.Name), tbl)
	case "upd":
		var cols []string
		for _, c := range t.Columns {
			if !untrackedColumns[c] {
				cols = append(cols, sqlq.Ident(c))
			}
		}
		name = "sync_log_" + t.Name + "_upd"
		return name, fmt.Sprintf(`CREATE TRIGGER %s AFTER UPDATE OF %s ON %s BEGIN INSERT INTO sync_log(tbl, row_id, op) VALUES (%s, NEW.id, 'upsert'); END`,
			sqlq.Ident(name), strings.Join(cols, ", "), sqlq.Ident(t.Name), tbl)
	default:
		name = "sync_log_" + t.Name + "_del"
		return name, fmt.Sprintf(`CREATE TRIGGER %s AFTER DELETE ON %s BEGIN INSERT INTO sync_log(tbl, row_id, op) VALUES (%s, OLD.id, 'delete'); END`,
			sqlq.Ident(name), sqlq.Ident(t.Name), tbl)
	}
}

// ensureSyncTriggers installs (or updates, when a table's columns changed)
// the triggers that fill the sync log. It writes nothing when they are
// already right, so opening a replica does not make it "ahead".
func (s *Store) ensureSyncTriggers(ctx context.Context) error {
	tables, err := trackedTables(ctx, s.db)
	if err != nil {
		return fmt.Errorf("sync triggers: %w", err)
	}
	type change struct{ name, stmt string }
	var todo []change
	for _, t := range tables {
		for _, op := range []string{"ins", "upd", "del"} {
			name, stmt := triggerSQL(t, op)
			var have string
			err := s.db.QueryRowContext(ctx, `SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?`, name).Scan(&have)
			if err != nil && err != sql.ErrNoRows {
				return fmt.Errorf("sync triggers: %w", err)
			}
			if have != stmt {
				todo = append(todo, change{name, stmt})
			}
		}
	}
	if len(todo) == 0 || s.ReadOnlyReason() != nil {
		return nil
	}
	return s.write(ctx, func(tx Execer) error {
		for _, c := range todo {
			if _, err := tx.ExecContext(ctx, `DROP TRIGGER IF EXISTS `+sqlq.Ident(c.name)); err != nil {
				return fmt.Errorf("sync triggers: %w", err)
			}
			if _, err := tx.ExecContext(ctx, c.stmt); err != nil {
				return fmt.Errorf("sync triggers: %w", err)
			}
		}
		return nil
	})
}

// TrackedTables lists the tables the sync log follows, in merge order
// (referenced rows first).
func (s *Store) TrackedTables(ctx context.Context) ([]TrackedTable, error) {
	return trackedTables(ctx, s.db)
}

// TableColumns lists a table's columns (none when it does not exist).
func (s *Store) TableColumns(ctx context.Context, table string) ([]string, error) {
	cols, _, err := tableColumns(ctx, s.db, table)
	return cols, err
}

// LogEntry is one row of the sync log: a row of Table written (upsert) or
// deleted on some device. Entry is its random id, the same on every
// device that has it.
type LogEntry struct {
	Seq          int64
	Table, RowID string
	Op, Entry    string
}

// LogEntries reads the sync log (seq > after).
func (s *Store) LogEntries(ctx context.Context, after int64) ([]LogEntry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, tbl, row_id, op, entry FROM sync_log WHERE seq > ? ORDER BY seq`, after)
	if err != nil {
		return nil, fmt.Errorf("sync log: %w", err)
	}
	defer rows.Close()
	var out []LogEntry
	for rows.Next() {
		var e LogEntry
		if err := rows.Scan(&e.Seq, &e.Table, &e.RowID, &e.Op, &e.Entry); err != nil {
			return nil, fmt.Errorf("sync log: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// MaxLogSeq is the newest sync log entry (0 when empty or absent).
func (s *Store) MaxLogSeq(ctx context.Context) (int64, error) {
	var n sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT MAX(seq) FROM sync_log`).Scan(&n)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return 0, nil
	}
	return n.Int64, err
}

// CountChangedRows counts the distinct rows logged after seq.
func (s *Store) CountChangedRows(ctx context.Context, after int64) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT DISTINCT tbl, row_id FROM sync_log WHERE seq > ?)`, after).Scan(&n)
	if err != nil && strings.Contains(err.Error(), "no such table") {
		return 0, nil
	}
	return n, err
}
