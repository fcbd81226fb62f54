package syncer

import (
	"context"
	"database/sql"
	"io"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// Store is what sync needs of the live store; *memory.Store has it.
type Store interface {
	// Path is the database file; the replica's files sit beside it.
	Path() string
	IsReplica() bool
	// DB reads rows of every table by name, for fingerprints and merges.
	DB() *sql.DB
	Now() time.Time

	// The sync log and the tables it follows (memory/synclog.go).
	MaxLogSeq(ctx context.Context) (int64, error)
	CountChangedRows(ctx context.Context, after int64) (int, error)
	LogEntries(ctx context.Context, after int64) ([]memory.LogEntry, error)
	TrackedTables(ctx context.Context) ([]memory.TrackedTable, error)
	TableColumns(ctx context.Context, table string) ([]string, error)

	// Locks and the swap of the files (memory/swap.go).
	LockSync(ctx context.Context) (io.Closer, error)
	HoldWrites(fn func() error) error
	TryExclusive() bool
	EndExclusive()
	SwapDatabase(newPath, backupDir string) error

	// Writes stop when a newer mneme's schema arrives.
	CheckSchema(ctx context.Context) error
	ReadOnlyReason() error
	SetReadOnly(err error)
}

// Index is what sync needs of the search index; *index.Index has it.
type Index interface {
	// ReplicaMark is the replica position the keyword index reflects.
	ReplicaMark() (string, error)
	SetReplicaMark(mark string) error
	// Refresh and RefreshAll write what arrived to the keyword index
	// without marking the store, and drop what is gone.
	Refresh(ctx context.Context, convs []memory.ConversationRef, notes, summaries, gone []string) error
	RefreshAll(ctx context.Context, notes, summaries, gone []string) error
	// Backlog is the indexing work left on rows written here (n 0: none).
	Backlog(ctx context.Context) (work string, n int)
	Notify(refs ...memory.ConversationRef)
}
