package cli

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// retentionConfig is how long unused memory is kept (config file keys).
type retentionConfig struct {
	// ArchiveNotesUnusedDays archives learnt notes below
	// ArchiveBelowConfidence that nothing used for this many days (unset:
	// 180; 0: never).
	ArchiveNotesUnusedDays *int     `toml:"archive_notes_unused_days"`
	ArchiveBelowConfidence *float64 `toml:"archive_below_confidence"`
	// DeleteArchivedAfterDays deletes notes archived this many days ago (0: never).
	DeleteArchivedAfterDays int `toml:"delete_archived_after_days"`
	// ArchiveConversationsAfterDays archives conversations untouched this
	// many days (0: never).
	ArchiveConversationsAfterDays int `toml:"archive_conversations_after_days"`
}

// maxRetentionDays bounds the retention keys (a hundred years).
const maxRetentionDays = 36500

func (c *retentionConfig) resolve(file string) error {
	for _, k := range []struct {
		key string
		v   int
	}{
		{"archive_notes_unused_days", derefOr(c.ArchiveNotesUnusedDays, 0)},
		{"delete_archived_after_days", c.DeleteArchivedAfterDays},
		{"archive_conversations_after_days", c.ArchiveConversationsAfterDays},
	} {
		if k.v < 0 || k.v > maxRetentionDays {
			return fmt.Errorf("config %s: %s = %d: %w: want 0-%d days (0: never)", file, k.key, k.v, ErrConfigValue, maxRetentionDays)
		}
	}
	if b := c.ArchiveBelowConfidence; b != nil && (*b < 0 || *b > 1) {
		return fmt.Errorf("config %s: archive_below_confidence = %s: %w: want 0-1", file, strconv.FormatFloat(*b, 'g', -1, 64), ErrConfigValue)
	}
	return nil
}

func derefOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// retention is the resolved policy.
func (c retentionConfig) retention() memory.Retention {
	day := 24 * time.Hour
	r := memory.Retention{
		ArchiveUnusedAfter:        memory.DefaultArchiveUnusedAfter,
		ArchiveBelowConfidence:    derefOr(c.ArchiveBelowConfidence, memory.DefaultArchiveBelowConfidence),
		DeleteArchivedAfter:       time.Duration(c.DeleteArchivedAfterDays) * day,
		ArchiveConversationsAfter: time.Duration(c.ArchiveConversationsAfterDays) * day,
	}
	if c.ArchiveNotesUnusedDays != nil {
		r.ArchiveUnusedAfter = time.Duration(*c.ArchiveNotesUnusedDays) * day
	}
	return r
}

// retentionEvery is how often a device applies retention.
const retentionEvery = 12 * time.Hour

// retentionKey is the local metadata key of the last retention run.
const retentionKey = "retention_at"

// applyRetention applies the retention policy to the user's memory at most
// every retentionEvery on this device (the chat and ask call it; it is a
// few UPDATEs). What it did goes to the log.
func (s *session) applyRetention(ctx context.Context, ix *index.Index) {
	last, err := s.store.LocalMeta(ctx, retentionKey)
	if err != nil {
		s.log.Warn("retention", "err", err)
		return
	}
	now := s.store.Now()
	if ms, err := strconv.ParseInt(last, 10, 64); err == nil && now.Sub(time.UnixMilli(ms)) < retentionEvery {
		return
	}
	res, err := ix.ApplyRetention(ctx, s.cfg.User, s.cfg.retention())
	if err != nil {
		s.log.Warn("retention", "err", err)
		return
	}
	if err := s.store.SetLocalMeta(ctx, retentionKey, strconv.FormatInt(now.UnixMilli(), 10)); err != nil {
		s.log.Warn("retention", "err", err)
	}
	s.log.Info("retention applied", "notes_archived", res.NotesArchived, "notes_deleted", len(res.NotesToDelete),
		"conversations_archived", res.ConversationsArchived)
}
