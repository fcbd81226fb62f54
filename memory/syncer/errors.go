package syncer

import (
	"errors"
	"fmt"

	"github.com/mneme-dev/mneme/memory"
)

var (
	// ErrSyncOffline is returned when the sync server cannot be reached.
	ErrSyncOffline = errors.New("sync server unreachable")
	// ErrSyncAuth is returned when the sync server refuses the token.
	ErrSyncAuth = errors.New("the sync server refused the token")
	// ErrSyncLocked is returned when go-libsql's sync kept finding the
	// database locked by another connection, after every retry.
	ErrSyncLocked = errors.New("the database stayed locked during sync")
	// errOthersOpen says a merge cannot swap its files in: another process
	// has the database open.
	errOthersOpen = fmt.Errorf("%w; the merge runs once it is the only mneme open on this device", memory.ErrBusy)
)
