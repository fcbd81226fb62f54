package memory

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mneme-dev/mneme/internal/jsonerr"
	"github.com/mneme-dev/mneme/memory/internal/sqlq"
	"github.com/mneme-dev/mneme/memory/schema"
)

// A full backup (ExportAll) is mneme's JSON lines with typed lines among
// the message lines: a header first, then for each conversation a
// conversation line and its messages (the lines Export writes, unchanged)
// and its summaries, then the notes, then the notes' history. Import reads
// it back: a line with a "type" is a backup record, one without is a
// message. A new table joins the backup with a line type (package schema):
// written by ExportAll, read by importer.backupLine.

// exportPage is how many rows a backup reads at a time (a variable for tests).
var exportPage = 500

func backupTime(ms int64) string { return fromMS(ms).UTC().Format(time.RFC3339Nano) }

// ExportAll writes everything userID has as a backup that Import restores:
// conversations with their messages and summaries, and the live notes
// (deleted ones are left out), then the lines more writes (documents).
// Rows are read a page at a time.
func (s *Store) ExportAll(ctx context.Context, userID string, w io.Writer, more ...func(put func(any) error) error) error {
	if userID == "" {
		return ErrNoUser
	}
	bw := bufio.NewWriter(w)
	put := func(v any) error {
		b, err := exportLine(v)
		if err != nil {
			return err
		}
		_, err = bw.Write(b)
		return err
	}
	if err := put(schema.BackupHeaderLine{Type: schema.BackupHeader, Version: schema.BackupVersion,
		ExportedAt: s.now().UTC().Format(time.RFC3339Nano), User: userID}); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := s.exportConversations(ctx, userID, bw, put); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := s.exportNotes(ctx, userID, put); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if err := s.exportChanges(ctx, userID, put); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	for _, f := range more {
		if err := f(put); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return bw.Flush()
}

func (s *Store) exportConversations(ctx context.Context, userID string, bw *bufio.Writer, put func(any) error) error {
	after := ""
	for {
		page, err := queryRows(ctx, s.db, func(r rowScanner) (schema.BackupConversationLine, error) {
			c := schema.BackupConversationLine{Type: schema.BackupConversation, User: userID}
			var ext sql.NullString
			var created, updated int64
			err := r.Scan(&c.ID, &ext, &c.Title, &c.TitleSource, &c.TitleSeq, &c.Archived, &created, &updated)
			c.ExternalID, c.Created, c.Updated = ext.String, backupTime(created), backupTime(updated)
			return c, err
		}, `SELECT id, external_id, title, title_source, title_seq, archived, created_at, updated_at
			FROM conversations WHERE user_id = ? AND id > ? ORDER BY id LIMIT ?`, userID, after, exportPage)
		if err != nil {
			return err
		}
		for _, c := range page {
			if err := put(c); err != nil {
				return err
			}
			for seq := 0; ; {
				msgs, err := s.messagesAfter(ctx, userID, c.ID, seq, exportPage)
				if err != nil {
					return err
				}
				if len(msgs) == 0 {
					break
				}
				if err := exportJSONL(bw, userID, c.Name(), c.Title, msgs); err != nil {
					return err
				}
				seq = msgs[len(msgs)-1].Seq
			}
			sums, err := s.Summaries(ctx, userID, c.ID)
			if err != nil {
				return err
			}
			for _, sum := range sums {
				if err := put(schema.BackupSummaryLine{Type: schema.BackupSummary, ID: sum.ID, User: userID, Conversation: c.Name(),
					FirstSeq: sum.FirstSeq, LastSeq: sum.LastSeq, AtSeq: sum.AtSeq, Text: sum.Text, Model: sum.Model,
					Time: sum.Created.UTC().Format(time.RFC3339Nano)}); err != nil {
					return err
				}
			}
		}
		if len(page) < exportPage {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

func (s *Store) exportNotes(ctx context.Context, userID string, put func(any) error) error {
	after := ""
	for {
		page, err := queryRows(ctx, s.db, func(r rowScanner) (schema.BackupNoteLine, error) {
			n := schema.BackupNoteLine{Type: schema.BackupNote, User: userID}
			var created, updated int64
			var tags string
			err := r.Scan(&n.ID, &n.Content, &n.Conversation, &n.TurnNumber, &n.Source, &n.Confidence, &tags, &n.Status, &n.Replaces, &created, &updated)
			if json.Unmarshal([]byte(tags), &n.Tags) != nil || n.Tags == nil {
				n.Tags = []string{}
			}
			n.Created, n.Updated = backupTime(created), backupTime(updated)
			return n, err
		}, `SELECT n.id, n.content, COALESCE(c.external_id, n.conversation_id, ''), COALESCE(n.turn_number, 0),
			n.source, n.confidence, n.tags, n.status, n.replaces, n.created_at, n.updated_at
			FROM notes n LEFT JOIN conversations c ON c.id = n.conversation_id
			WHERE n.user_id = ? AND n.deleted_at IS NULL AND n.id > ? ORDER BY n.id LIMIT ?`, userID, after, exportPage)
		if err != nil {
			return err
		}
		for _, n := range page {
			if err := put(n); err != nil {
				return err
			}
		}
		if len(page) < exportPage {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// lineType is the "type" of a backup line; "" for a message line (or a
// line that is not JSON, which the message path reports).
func lineType(raw []byte) string {
	if !bytes.Contains(raw, []byte(`"type"`)) {
		return "" // most lines, cheaply
	}
	var t struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &t) != nil {
		return ""
	}
	return t.Type
}

// decodeLine decodes one JSON object and nothing after it.
func decodeLine(raw []byte, v any) error {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if err := dec.Decode(v); err != nil {
		return jsonerr.Error{Err: err}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("unexpected data after the JSON object")
	}
	return nil
}

// lineUser is whose a backup line is: the importing user's unless it names
// another, which needs AllUsers.
func (imp *importer) lineUser(user string) (string, error) {
	user = strings.TrimSpace(cmp.Or(user, imp.user))
	switch {
	case user == "":
		return "", errors.New(`no "user" and no default user`)
	case user != imp.user && !imp.allUsers:
		return "", fmt.Errorf("%q: %w", user, ErrOtherUser)
	}
	return user, nil
}

func parseBackupTime(field, v string) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return 0, fmt.Errorf("%q is not RFC 3339: %q", field, v)
	}
	return t.UnixMilli(), nil
}

// backupLine restores one typed line. lineErr is what is wrong with the
// line (it is skipped); err is a failure of the store.
func (imp *importer) backupLine(ctx context.Context, typ string, raw []byte, st *ImportStats) (lineErr, err error) {
	switch typ {
	case schema.BackupHeader:
		var h schema.BackupHeaderLine
		if err := decodeLine(raw, &h); err != nil {
			return err, nil
		}
		if h.Version > schema.BackupVersion {
			return nil, fmt.Errorf("import: the backup is version %d, made by a newer mneme; this one reads version %d: %w",
				h.Version, schema.BackupVersion, ErrInvalid)
		}
		st.Backup = true
		return nil, nil
	case schema.BackupConversation:
		var c schema.BackupConversationLine
		if err := decodeLine(raw, &c); err != nil {
			return err, nil
		}
		return imp.restoreConversation(ctx, c)
	case schema.BackupSummary:
		var sum schema.BackupSummaryLine
		if err := decodeLine(raw, &sum); err != nil {
			return err, nil
		}
		return imp.restoreSummary(ctx, sum, st)
	case schema.BackupNote:
		var n schema.BackupNoteLine
		if err := decodeLine(raw, &n); err != nil {
			return err, nil
		}
		return imp.restoreNote(ctx, n, st)
	case schema.BackupChange:
		var c schema.BackupChangeLine
		if err := decodeLine(raw, &c); err != nil {
			return err, nil
		}
		return imp.restoreChange(ctx, c)
	}
	if restore := imp.more[typ]; restore != nil {
		return restore(ctx, raw, imp.lineUser)
	}
	return fmt.Errorf("unknown line type %q", typ), nil
}

// restoreConversation creates a backup's conversation with its own id (or
// finds it, restored before) so that its messages keep their ids.
func (imp *importer) restoreConversation(ctx context.Context, c schema.BackupConversationLine) (lineErr, err error) {
	user, lerr := imp.lineUser(c.User)
	if lerr != nil {
		return lerr, nil
	}
	if err := schema.CheckID("id", c.ID); err != nil {
		return err, nil
	}
	src := cmp.Or(c.TitleSource, "auto")
	if src != "auto" && src != "model" && src != "user" {
		return fmt.Errorf(`"title_source" must be auto, model or user, not %q`, c.TitleSource), nil
	}
	created, lerr := parseBackupTime("created", c.Created)
	if lerr != nil {
		return lerr, nil
	}
	updated, lerr := parseBackupTime("updated", c.Updated)
	if lerr != nil {
		return lerr, nil
	}
	id := ""
	err = imp.s.write(ctx, func(tx Execer) error {
		if err := ensureUser(ctx, tx, user, imp.s.nowMS()); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO conversations
			(id, user_id, title, created_at, updated_at, archived, external_id, title_source, title_seq)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			c.ID, user, cleanText(c.Title), created, updated, c.Archived, sqlq.NullString(c.ExternalID), src, c.TitleSeq); err != nil {
			return err
		}
		var err error
		id, err = findConversation(ctx, tx, user, c.Name())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("import conversation: %w", err)
	}
	if id == "" {
		return fmt.Errorf("conversation %q: id taken by another user", c.ID), nil
	}
	imp.restored[convKey{user: user, external: c.Name()}] = id
	return nil, nil
}

// findConversation is the id of the user's conversation a file names
// (as ensureConversation finds it), or "".
func findConversation(ctx context.Context, tx Execer, user, name string) (string, error) {
	derived := uuid.NewSHA1(idSpace, []byte("conversation\x00"+user+"\x00"+name)).String()
	var id string
	err := tx.QueryRowContext(ctx, `SELECT id FROM conversations WHERE user_id = ? AND id IN (?, ?)
		UNION ALL SELECT id FROM conversations WHERE user_id = ? AND external_id = ? LIMIT 1`,
		user, name, derived, user, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}

// conversationOf resolves the conversation a backup line names.
func (imp *importer) conversationOf(ctx context.Context, user, name string) (string, error) {
	if id, ok := imp.restored[convKey{user: user, external: name}]; ok {
		return id, nil
	}
	return findConversation(ctx, imp.s.db, user, name)
}

func (imp *importer) restoreSummary(ctx context.Context, b schema.BackupSummaryLine, st *ImportStats) (lineErr, err error) {
	user, lerr := imp.lineUser(b.User)
	if lerr != nil {
		return lerr, nil
	}
	if err := schema.CheckID("id", b.ID); err != nil {
		return err, nil
	}
	text := strings.TrimSpace(cleanText(b.Text))
	switch {
	case text == "":
		return errors.New(`empty "text"`), nil
	case b.FirstSeq < 1 || b.LastSeq < b.FirstSeq || b.AtSeq < b.LastSeq:
		return fmt.Errorf("range %d-%d (at %d) is not a range of messages", b.FirstSeq, b.LastSeq, b.AtSeq), nil
	}
	created, lerr := parseBackupTime("time", b.Time)
	if lerr != nil {
		return lerr, nil
	}
	conv, err := imp.conversationOf(ctx, user, b.Conversation)
	if err != nil {
		return nil, err
	}
	if conv == "" {
		return fmt.Errorf("conversation %q is not in the backup or the store", b.Conversation), nil
	}
	err = imp.s.write(ctx, func(tx Execer) error {
		var last sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(seq) FROM messages WHERE conversation_id = ?`, conv).Scan(&last); err != nil {
			return err
		}
		if int64(b.AtSeq) > last.Int64 {
			lerr = fmt.Errorf("range ends at %d, after the conversation's last message %d", b.AtSeq, last.Int64)
			return nil
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO summaries
			(id, conversation_id, user_id, first_seq, last_seq, at_seq, text, model, created_at, hash)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`,
			b.ID, conv, user, b.FirstSeq, b.LastSeq, b.AtSeq, text, cleanText(b.Model), created, textHash(text))
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k > 0 {
			st.Summaries++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("import summary: %w", err)
	}
	return lerr, nil
}

func (imp *importer) restoreNote(ctx context.Context, b schema.BackupNoteLine, st *ImportStats) (lineErr, err error) {
	user, lerr := imp.lineUser(b.User)
	if lerr != nil {
		return lerr, nil
	}
	if err := cmp.Or(schema.CheckID("id", b.ID), schema.CheckOptionalID("conversation", b.Conversation),
		schema.CheckOptionalID("replaces", b.Replaces)); err != nil {
		return err, nil
	}
	content, lerr := CheckNote(b.Content)
	if lerr != nil {
		return lerr, nil
	}
	if math.IsNaN(b.Confidence) {
		return errors.New(`"confidence" is not a number`), nil
	}
	src, lerr := checkSource(NoteSource{By: b.Source, Confidence: b.Confidence, Tags: b.Tags})
	if lerr != nil {
		return lerr, nil
	}
	status := cmp.Or(b.Status, NoteActive)
	if status != NoteActive && status != NotePending && status != NoteArchived {
		return fmt.Errorf(`"status" must be active, pending or archived, not %q`, b.Status), nil
	}
	if status != NotePending {
		b.Replaces = "" // only a note for review replaces one
	}
	created, lerr := parseBackupTime("created", b.Created)
	if lerr != nil {
		return lerr, nil
	}
	updated, lerr := parseBackupTime("updated", b.Updated)
	if lerr != nil {
		return lerr, nil
	}
	// A note keeps the conversation it came from; one whose conversation
	// was deleted keeps the id it had.
	conv := b.Conversation
	if conv != "" {
		id, err := imp.conversationOf(ctx, user, conv)
		if err != nil {
			return nil, err
		}
		conv = cmp.Or(id, conv)
	}
	err = imp.s.write(ctx, func(tx Execer) error {
		if err := ensureUser(ctx, tx, user, imp.s.nowMS()); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO notes (id, user_id, content, conversation_id, turn_number,
			created_at, updated_at, hash, source, confidence, tags, status, replaces) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(id) DO NOTHING`,
			b.ID, user, content, sqlq.NullString(conv), sqlq.NullInt(conv != "", b.TurnNumber), created, updated,
			noteHash(content), src.By, src.Confidence, encodeTags(src.Tags), status, b.Replaces)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k > 0 {
			st.Notes++
			return nil
		}
		// Kept as stored; said when the backup's text is another (a note
		// edited since the backup was made).
		var stored string
		if err := tx.QueryRowContext(ctx, `SELECT content FROM notes WHERE id = ?`, b.ID).Scan(&stored); err != nil {
			return err
		}
		if stored != content {
			st.Conflicts++
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("import note: %w", err)
	}
	return nil, nil
}
