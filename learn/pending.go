package learn

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// Pending is the turns `mneme import --extract` has yet to learn from, in
// the device's local state (local.extract_pending, local.extract_claims):
// a run that failed (Ollama down) or was stopped leaves them to the next,
// and two runs at once each claim a turn before learning from it, so each
// turn is learnt from once.
type Pending struct{ store *memory.Store }

// NewPending is the pending turns of store.
func NewPending(store *memory.Store) Pending { return Pending{store: store} }

// Add records that the turns ids are to be learnt from.
func (p Pending) Add(ctx context.Context, ids ...string) error {
	return p.store.WriteLocal(ctx, func(tx memory.Execer) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO local.extract_pending(id) VALUES (?)`, id); err != nil {
				return fmt.Errorf("extract pending: %w", err)
			}
		}
		return nil
	})
}

// Claim claims the pending turn id for this run for lease: false when it
// is no longer pending (another run learnt from it) or another run's
// claim on it has not run out.
func (p Pending) Claim(ctx context.Context, id string, lease time.Duration) (bool, error) {
	now := time.Now()
	claimed := false
	err := p.store.WriteLocal(ctx, func(tx memory.Execer) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO local.extract_claims(id, until)
			SELECT id, ? FROM local.extract_pending WHERE id = ?
			ON CONFLICT(id) DO UPDATE SET until = excluded.until WHERE extract_claims.until <= ?`,
			now.Add(lease).UnixMilli(), id, now.UnixMilli())
		if err != nil {
			return fmt.Errorf("extract claim: %w", err)
		}
		n, err := res.RowsAffected()
		claimed = n == 1
		return err
	})
	return claimed, err
}

// Release gives back a claim on the turn id that the run could not learn
// from, for the next run.
func (p Pending) Release(ctx context.Context, id string) error {
	return p.store.WriteLocal(ctx, func(tx memory.Execer) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM local.extract_claims WHERE id = ?`, id)
		return err
	})
}

// Done records that the turn id was learnt from.
func (p Pending) Done(ctx context.Context, id string) error {
	return p.store.WriteLocal(ctx, func(tx memory.Execer) error {
		for _, table := range []string{"local.extract_pending", "local.extract_claims"} {
			if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE id = ?`, id); err != nil {
				return err
			}
		}
		return nil
	})
}

// Of says which of the turns ids wait to be learnt from.
func (p Pending) Of(ctx context.Context, ids []string) (map[string]bool, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := p.store.DB().QueryContext(ctx, `SELECT id FROM local.extract_pending WHERE id IN (SELECT value FROM json_each(?))`, string(list))
	if err != nil {
		return nil, fmt.Errorf("extract pending: %w", err)
	}
	defer rows.Close()
	pending := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		pending[id] = true
	}
	return pending, rows.Err()
}
