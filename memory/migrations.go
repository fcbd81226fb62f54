package memory

import (
	"context"
	"database/sql"
	"fmt"
)

// migration is one schema version. go-libsql runs only the first statement
// of a multi-statement Exec, so each statement is listed on its own.
type migration struct {
	version    int
	statements []string
}

var migrations = []migration{
	{version: 1, statements: []string{
		`CREATE TABLE users (
			id         TEXT PRIMARY KEY,
			created_at INTEGER NOT NULL
		)`,
		`CREATE TABLE conversations (
			id         TEXT PRIMARY KEY,
			user_id    TEXT NOT NULL REFERENCES users(id),
			title      TEXT NOT NULL DEFAULT '',
			created_at INTEGER NOT NULL,
			updated_at INTEGER NOT NULL,
			archived   INTEGER NOT NULL DEFAULT 0
		)`,
		`CREATE INDEX conversations_user_updated ON conversations(user_id, updated_at DESC)`,
		`CREATE TABLE messages (
			id              TEXT PRIMARY KEY,
			conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
			user_id         TEXT NOT NULL REFERENCES users(id),
			seq             INTEGER NOT NULL,
			role            TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
			content         TEXT NOT NULL DEFAULT '',
			thinking        TEXT NOT NULL DEFAULT '',
			tool_calls      TEXT,
			tool_call_id    TEXT NOT NULL DEFAULT '',
			tool_name       TEXT NOT NULL DEFAULT '',
			ref             TEXT,
			created_at      INTEGER NOT NULL,
			status          TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete','interrupted')),
			UNIQUE (conversation_id, seq)
		)`,
		`CREATE INDEX messages_user ON messages(user_id)`,
	}},
}

// LatestSchemaVersion is the schema version this build writes.
func LatestSchemaVersion() int { return migrations[len(migrations)-1].version }

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	current, err := s.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	if current > LatestSchemaVersion() {
		return fmt.Errorf("migrate: schema %d > %d: %w", current, LatestSchemaVersion(), ErrSchemaTooNew)
	}
	for _, m := range migrations {
		if m.version <= current {
			continue
		}
		err := s.write(ctx, func(tx execer) error {
			for _, stmt := range m.statements {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)`, m.version, s.nowMS())
			return err
		})
		if err != nil {
			return fmt.Errorf("migrate to %d: %w", m.version, err)
		}
	}
	return nil
}

// SchemaVersion reports the highest applied migration (0 for an empty database).
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v sql.NullInt64
	if err := s.db.QueryRowContext(ctx, `SELECT MAX(version) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return int(v.Int64), nil
}
