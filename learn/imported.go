package learn

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// StoredTurn is a stored turn to learn from: what the user said and what the
// assistant answered.
type StoredTurn struct {
	ID                     string // memory.TurnID
	UserID, ConversationID string
	Number                 int // the turn's number in its conversation
	Prompt, Answer         string
	At                     time.Time
	New                    bool // it holds a message the import stored (else an earlier run left it)
}

// ImportedTurns lists the turns of an import's conversations to learn
// from (`mneme import --extract`), with their question and answer, oldest
// first: those that hold a message the import stored, and those an earlier
// run left pending (Pending).
func ImportedTurns(ctx context.Context, store *memory.Store, st memory.ImportStats) ([]StoredTurn, error) {
	var out []StoredTurn
	for _, ref := range st.Conversations {
		turns, err := store.ConversationTurns(ctx, ref.ConversationID)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(turns))
		for i, t := range turns {
			ids[i] = t.ID
		}
		pending, err := NewPending(store).Of(ctx, ids)
		if err != nil {
			return nil, err
		}
		first := st.FirstNew[ref.ConversationID]
		if first == 0 && len(pending) == 0 {
			continue
		}
		msgs, err := store.Messages(ctx, ref.UserID, ref.ConversationID)
		if err != nil {
			return nil, err
		}
		for _, t := range turns {
			if !pending[t.ID] && (first == 0 || t.LastSeq < first) {
				continue
			}
			var prompt, answer []string
			for _, m := range msgs {
				if m.Seq < t.FirstSeq || m.Seq > t.LastSeq || strings.TrimSpace(m.Content) == "" {
					continue
				}
				switch m.Role {
				case memory.RoleUser:
					prompt = append(prompt, m.Content)
				case memory.RoleAssistant:
					answer = append(answer, m.Content)
				}
			}
			if len(prompt) == 0 || len(answer) == 0 {
				continue
			}
			out = append(out, StoredTurn{
				ID: t.ID, UserID: ref.UserID, ConversationID: ref.ConversationID, Number: t.Number,
				Prompt: strings.Join(prompt, "\n\n"), Answer: strings.Join(answer, "\n\n"), At: t.Time,
				New: first > 0 && t.LastSeq >= first,
			})
		}
	}
	slices.SortStableFunc(out, func(a, b StoredTurn) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(a.ConversationID, b.ConversationID), cmp.Compare(a.Number, b.Number))
	})
	return out, nil
}
