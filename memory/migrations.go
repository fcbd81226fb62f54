package memory

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/mneme-dev/mneme/memory/schema"
)

// migrations are the schema versions (package schema).
var migrations = schema.Migrations

type migration = schema.Migration

// LatestSchemaVersion is the schema version this build writes.
func LatestSchemaVersion() int { return migrations[len(migrations)-1].Version }

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	applied, err := s.appliedMigrations(ctx)
	if err != nil {
		return err
	}
	if err := checkKnownMigrations(applied); err != nil {
		if s.readIfNewer {
			// Read what this build knows of it; write nothing.
			s.SetReadOnly(fmt.Errorf("read-only: %w", err))
			return nil
		}
		return fmt.Errorf("migrate: %w", err)
	}
	// A version number may land after a higher one (numbers are reserved
	// by changes made in parallel): apply every version not applied yet.
	for _, m := range migrations {
		if applied[m.Version] {
			continue
		}
		// Another process opening the same new database may have applied
		// it since we looked: check again inside the write transaction,
		// which holds the database's write lock.
		err := s.write(ctx, func(tx Execer) error {
			var done int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, m.Version).Scan(&done); err != nil {
				return err
			}
			if done > 0 {
				return nil
			}
			for _, stmt := range m.Statements {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)`, m.Version, s.nowMS())
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate to %d: %w", m.Version, err)
		}
	}
	return nil
}

// appliedMigrations lists the versions recorded in schema_migrations.
func (s *Store) appliedMigrations(ctx context.Context) (map[int]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("schema version: %w", err)
	}
	defer rows.Close()
	out := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("schema version: %w", err)
		}
		out[v] = true
	}
	return out, rows.Err()
}

// checkKnownMigrations fails with ErrSchemaTooNew when the database holds a
// migration this build does not know: a newer mneme wrote it (perhaps on
// another device, arriving through sync).
func checkKnownMigrations(applied map[int]bool) error {
	known := map[int]bool{}
	for _, m := range migrations {
		known[m.Version] = true
	}
	for v := range applied {
		if !known[v] {
			return fmt.Errorf("schema version %d is unknown to this mneme (it knows up to %d): %w", v, LatestSchemaVersion(), ErrSchemaTooNew)
		}
	}
	return nil
}

// CheckSchema fails with ErrSchemaTooNew when the database now holds a
// migration this build does not know (sync brought it from a newer mneme).
func (s *Store) CheckSchema(ctx context.Context) error {
	applied, err := s.appliedMigrations(ctx)
	if err != nil {
		return nil // unreadable now: the next open checks again
	}
	return checkKnownMigrations(applied)
}

// SchemaVersion reports the highest applied migration (0 for an empty database).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return int(v.Int64), nil
}
