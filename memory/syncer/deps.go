package syncer

import (
	"context"
	"database/sql"
	"io"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// Store is what sync needs of the live store; *memory.Store has it. It is
// made of four small roles, each named for the part of the store it uses.
type Store interface {
	storeFiles
	syncLog
	fileLocks
	schemaGate
}

// storeFiles is where the store lives and how its rows are read by name.
type storeFiles interface {
	// Path is the database file; the replica's files sit beside it.
	Path() string
	IsReplica() bool
	// DB reads rows of every table by name, for fingerprints and merges.
	DB() *sql.DB
	Now() time.Time
}

// syncLog is the sync log and the tables it follows (memory/synclog.go).
type syncLog interface {
	MaxLogSeq(ctx context.Context) (int64, error)
	CountChangedRows(ctx context.Context, after int64) (int, error)
	LogEntries(ctx context.Context, after int64) ([]memory.LogEntry, error)
	TrackedTables(ctx context.Context) ([]memory.TrackedTable, error)
	TableColumns(ctx context.Context, table string) ([]string, error)
}

// fileLocks are the locks between processes and the swap of the files
// (memory/swap.go).
type fileLocks interface {
	LockSync(ctx context.Context) (io.Closer, error)
	HoldWrites(fn func() error) error
	TryExclusive() bool
	EndExclusive()
	SwapDatabase(newPath, backupDir string) error
}

// tableReader reads a store's tracked tables by name: what a merge needs
// of the store it merges from.
type tableReader interface {
	storeFiles
	TrackedTables(ctx context.Context) ([]memory.TrackedTable, error)
	TableColumns(ctx context.Context, table string) ([]string, error)
}

// schemaGate stops writes when a newer mneme's schema arrives.
type schemaGate interface {
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
