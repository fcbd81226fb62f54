package cli

import (
	"context"
	"strconv"
	"time"

	"github.com/mneme-dev/mneme/memory/index"
)

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
	res, err := ix.ApplyRetention(ctx, s.cfg.User, s.cfg.Retention())
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
