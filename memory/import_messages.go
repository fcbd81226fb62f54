package memory

import (
	"context"
	"errors"
	"io"
	"strings"
)

// ImportedMessage is one message of another assistant's export (ChatGPT,
// Claude, Open WebUI), converted by its reader (package importer).
type ImportedMessage struct {
	Record
	// SourceID is the message's id in its export, unique within its
	// conversation. The stored id derives from it, so importing the same
	// export again, or a newer one, stores each message once.
	SourceID string
	// Archived archives the conversation when this import creates it, in
	// the transaction that creates it (a conversation already here keeps
	// the state the user gave it).
	Archived bool
}

// MessageImportOptions are ImportMessages' callbacks; both may be nil.
type MessageImportOptions struct {
	OnBad   func(ImportedMessage, error) // a message the store refuses (it is skipped)
	OnBatch func([]ConversationRef)      // as ImportOptions.OnBatch
}

// ImportMessages stores the messages next yields (until io.EOF) as user's,
// through the same path as Import: a conversation is found again by its
// Record.Conversation (its external id), a message by its SourceID, in
// batches of importBatch messages a transaction. A message the store
// refuses goes to opts.OnBad and is skipped. An error from next other than
// io.EOF ends the import after storing what came before it.
func (s *Store) ImportMessages(ctx context.Context, user string, next func() (ImportedMessage, error), opts MessageImportOptions) (ImportStats, error) {
	var st ImportStats
	onBad := opts.OnBad
	imp := &importer{s: s, convs: map[convKey]*importConv{}, user: strings.TrimSpace(user), onBatch: opts.OnBatch}
	for {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		m, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if ferr := imp.flush(ctx, &st); ferr != nil {
				return st, ferr
			}
			return st, err
		}
		st.Lines++
		m.User = "" // always the importing user's
		im, err := imp.record(m.Record)
		if err == nil && m.SourceID == "" {
			err = errors.New("no source id")
		}
		if err != nil {
			st.Bad++
			if onBad != nil {
				onBad(m, err)
			}
			continue
		}
		im.source = m.SourceID
		im.conv.archived = m.Archived
		if err := imp.queue(ctx, im, &st); err != nil {
			return st, err
		}
	}
	if err := imp.flush(ctx, &st); err != nil {
		return st, err
	}
	st.Conversations, st.FirstNew = imp.touched()
	return st, nil
}
