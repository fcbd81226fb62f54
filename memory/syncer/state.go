package syncer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mneme-dev/mneme/internal/text"
)

// Sync states, as the status bar and `mneme sync --status` name them.
const (
	SyncNever   = "never"   // configured, not synced yet
	SyncSynced  = "synced"  // the last round succeeded and nothing is pending
	SyncPending = "pending" // local changes wait for the next round
	SyncOffline = "offline" // the server could not be reached
	SyncError   = "error"   // the last round failed (see LastError)
	SyncRunning = "syncing" // a round is in progress
	// SyncInterrupted: the last round was stopped (Ctrl+C, the chat
	// closing) before its end; the next one does it again.
	SyncInterrupted = "interrupted"
)

// Rounds is what a device knows of its sync rounds: it keeps it in its
// state file, and reports it in SyncStatus.
type Rounds struct {
	State        string     `json:"state"`
	LastAttempt  *time.Time `json:"last_attempt,omitempty"`
	LastSuccess  *time.Time `json:"last_success,omitempty"`
	LastError    string     `json:"last_error,omitempty"`
	LastConflict *time.Time `json:"last_conflict,omitempty"`
	// Message is one line about the last round for the user.
	Message string `json:"message,omitempty"`
}

// SyncStatus is the state of sync, for people and scripts. It never holds
// the token or the encryption key.
type SyncStatus struct {
	// URL is the server address without credentials or query.
	URL string `json:"url"`
	Rounds
	// Pending counts rows written here that the server does not have yet.
	Pending int  `json:"pending"`
	Replica bool `json:"replica"`
}

// Line is one line for doctor: the server, the state, when the last sync
// succeeded, and the last error unless the state is synced.
func (st SyncStatus) Line(now time.Time) string {
	line := fmt.Sprintf("%s: %s", st.URL, st.Label())
	if st.LastSuccess != nil {
		line += "; last synced " + text.RelativeDate(now, *st.LastSuccess)
	} else {
		line += "; never synced yet"
	}
	if st.LastError != "" && st.State != SyncSynced {
		line += "; last error: " + st.LastError
	}
	return line
}

// Label is the short form for a status bar: synced, pending N, offline,
// error, syncing.
func (st SyncStatus) Label() string {
	switch st.State {
	case SyncPending:
		return fmt.Sprintf("pending %d", st.Pending)
	case SyncSynced, SyncOffline, SyncError, SyncRunning, SyncInterrupted:
		return st.State
	case SyncNever:
		if st.Pending > 0 {
			return fmt.Sprintf("pending %d", st.Pending)
		}
		return "not synced"
	}
	return st.State
}

// syncStateFile is what a device remembers about sync, beside the database
// and outside it (everything inside is replicated).
type syncStateFile struct {
	URL string `json:"url"`
	// Watermark is the newest sync log entry known to be on the server,
	// for counting pending rows. (Conflicts do not rely on it: they compare
	// the logs themselves.)
	Watermark int64 `json:"watermark"`
	Rounds
}

// SyncStateFileName is the device's sync state beside the database.
const SyncStateFileName = "sync-state.json"

func readSyncState(path string) (syncStateFile, error) {
	var st syncStateFile
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return syncStateFile{Rounds: Rounds{State: SyncNever}}, nil
	}
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return syncStateFile{Rounds: Rounds{State: SyncNever}}, nil // rewritten by the next round
	}
	return st, nil
}

func writeSyncState(path string, st syncStateFile) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sync-state-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// replicaInfo is go-libsql's <db>-info file: how far this replica and the
// server agree.
type replicaInfo struct {
	Generation     int64 `json:"generation"`
	DurableFrameNo int64 `json:"durable_frame_num"`
}

func readReplicaInfo(dbPath string) (replicaInfo, bool) {
	var ri replicaInfo
	data, err := os.ReadFile(dbPath + "-info")
	if err != nil || json.Unmarshal(data, &ri) != nil {
		return ri, false
	}
	return ri, true
}

func (ri replicaInfo) String() string { return fmt.Sprintf("%d/%d", ri.Generation, ri.DurableFrameNo) }
