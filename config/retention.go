package config

import (
	"fmt"
	"time"

	"github.com/mneme-dev/mneme/memory"
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

func (c *retentionConfig) resolve(l layers) {
	if d := c.ArchiveNotesUnusedDays; d != nil && (*d < 0 || *d > maxRetentionDays) {
		l.bad(retentionDaysError(l.file, "archive_notes_unused_days", *d))
		c.ArchiveNotesUnusedDays = nil
	}
	for _, k := range []struct {
		key string
		v   *int
	}{
		{"delete_archived_after_days", &c.DeleteArchivedAfterDays},
		{"archive_conversations_after_days", &c.ArchiveConversationsAfterDays},
	} {
		if *k.v < 0 || *k.v > maxRetentionDays {
			l.bad(retentionDaysError(l.file, k.key, *k.v))
			*k.v = 0
		}
	}
	if b := c.ArchiveBelowConfidence; b != nil && (*b < 0 || *b > 1) {
		l.bad(fmt.Errorf("%s: %w: want 0-1", fromFile(l.file, "archive_below_confidence", *b), ErrConfigValue))
		c.ArchiveBelowConfidence = nil
	}
}

func retentionDaysError(file, key string, v int) error {
	return fmt.Errorf("%s: %w: want 0-%d days (0: never)", fromFile(file, key, v), ErrConfigValue, maxRetentionDays)
}

func derefOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// Retention is the resolved policy.
func (c retentionConfig) Retention() memory.Retention {
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
