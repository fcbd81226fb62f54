package memory

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mneme-dev/mneme/internal/lineread"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory/schema"
)

// Record is one message in mneme's JSON-lines import and export format.
type Record struct {
	// ID is the message id; optional on import (exports carry it so that
	// importing an export into the same database changes nothing).
	ID           string     `json:"id,omitempty"`
	User         string     `json:"user,omitempty"`
	Conversation string     `json:"conversation"`
	Title        string     `json:"title,omitempty"`
	Role         Role       `json:"role"`
	Content      string     `json:"content"`
	Time         string     `json:"time,omitempty"`
	Ref          string     `json:"ref,omitempty"`
	ToolCalls    []ToolCall `json:"tool_calls,omitempty"`
	Thinking     string     `json:"thinking,omitempty"`
	ToolCallID   string     `json:"tool_call_id,omitempty"`
	ToolName     string     `json:"tool_name,omitempty"`
	Status       Status     `json:"status,omitempty"`
	Model        string     `json:"model,omitempty"`
}

// ImportStats counts what an import did.
type ImportStats struct {
	Lines     int `json:"lines"`
	Imported  int `json:"imported"`
	Unchanged int `json:"unchanged"`
	// Conflicts counts lines whose message id was already stored with
	// other content; the stored message was kept.
	Conflicts     int               `json:"conflicts"`
	Bad           int               `json:"bad"`
	Conversations []ConversationRef `json:"-"`
	// FirstNew is, by conversation id, the first message this import
	// stored (its seq): what is new to learn from.
	FirstNew map[string]int `json:"-"`
	// Backup says the file was a full backup (ExportAll); Notes and
	// Summaries count the ones it restored that were not stored yet.
	Backup    bool `json:"backup,omitempty"`
	Notes     int  `json:"notes,omitempty"`
	Summaries int  `json:"summaries,omitempty"`
}

// ImportOptions says whose data an import may write and where bad lines go.
type ImportOptions struct {
	// AllUsers lets lines name any user. Without it a line whose "user" is
	// not the importing user is a bad line (ErrOtherUser) and is skipped.
	AllUsers bool
	// OnBad is told about each bad line; the line is skipped.
	OnBad func(LineError)
	// More restores the backup lines of types other packages write
	// (documents), by type.
	More map[string]LineRestorer
	// OnBatch is told, after each batch of messages is committed, the
	// conversations it added messages to, so that they can be indexed
	// while the import goes on.
	OnBatch func([]ConversationRef)
}

// LineRestorer restores one backup line; user resolves its "user" as the
// import allows. lineErr is what is wrong with the line, err a failure.
type LineRestorer func(ctx context.Context, raw []byte, user func(string) (string, error)) (lineErr, err error)

// LineError is a bad line in an import file.
type LineError struct {
	Line int
	Err  error
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e LineError) Unwrap() error { return e.Err }

// maxImportLine bounds one JSON line, and maxRecordText the text of one
// message in it (content, thinking and tool call arguments). Escaping can
// make text up to six times longer in JSON (a C1 or bidi control is
// \u0085 in an export), so every message import takes exports as a line
// import takes too: a backup always restores.
const (
	maxImportLine = 6*maxRecordText + 1<<20
	maxRecordText = 16 << 20 // what the line limit was: older backups restore
)

// Imported times must lie between minImportTime and maxImportAhead from now.
var minImportTime = time.Unix(0, 0)

const maxImportAhead = 24 * time.Hour

// importBatch is how many messages go into one transaction.
const importBatch = 2000

// idSpace namespaces the deterministic ids of imported rows.
var idSpace = uuid.MustParse("6f1c7f8e-3a52-4d7e-9a51-0f6d1b1f3c11")

// Import reads JSON lines from r and stores their messages as user's. A
// line may name another user only with opts.AllUsers. Bad lines are
// reported to opts.OnBad with their line number and skipped; everything
// else is kept. Importing the same file again changes nothing: each
// message's id derives from its user, conversation and position in the
// file. A conversation id of another user's conversation is never
// appended to: the line's user gets a conversation of their own.
func (s *Store) Import(ctx context.Context, user string, r io.Reader, opts ImportOptions) (ImportStats, error) {
	var st ImportStats
	onBad := opts.OnBad
	imp := &importer{s: s, convs: map[convKey]*importConv{}, restored: map[convKey]string{},
		user: strings.TrimSpace(user), allUsers: opts.AllUsers, more: opts.More, onBatch: opts.OnBatch}
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		raw, err := readLine(br)
		if line == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF")) // a UTF-8 byte order mark
		}
		if errors.Is(err, io.EOF) && len(raw) == 0 {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			if errors.Is(err, errLineTooLong) {
				st.Lines++
				st.Bad++
				if onBad != nil {
					onBad(LineError{Line: line, Err: err})
				}
				continue
			}
			return st, fmt.Errorf("import: read: %w", err)
		}
		if strings.TrimSpace(string(raw)) == "" {
			continue
		}
		st.Lines++
		if typ := lineType(raw); typ != "" {
			// A backup's typed line: what it refers to must be stored first.
			if err := imp.flush(ctx, &st); err != nil {
				return st, err
			}
			lerr, err := imp.backupLine(ctx, typ, raw, &st)
			if err != nil {
				return st, err
			}
			if lerr != nil {
				st.Bad++
				if onBad != nil {
					onBad(LineError{Line: line, Err: lerr})
				}
			}
			continue
		}
		m, lerr := imp.parse(raw)
		if lerr != nil {
			st.Bad++
			if onBad != nil {
				onBad(LineError{Line: line, Err: lerr})
			}
			continue
		}
		if err := imp.queue(ctx, m, &st); err != nil {
			return st, err
		}
	}
	if err := imp.flush(ctx, &st); err != nil {
		return st, err
	}
	st.Conversations, st.FirstNew = imp.touched()
	return st, nil
}

var errLineTooLong = fmt.Errorf("line longer than %d MiB", maxImportLine>>20)

// readLine reads one line, refusing (and skipping) lines over the limit.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, tooLong, err := lineread.Read(br, maxImportLine)
	if tooLong {
		return nil, errLineTooLong
	}
	return line, err
}

type convKey struct{ user, external string }

type importConv struct {
	id       string
	ordinal  int      // messages of this conversation seen in the file
	nextSeq  int      // 0 until loaded from the database
	firstNew int      // the seq of the first message this import stored (0: none)
	chain    [32]byte // the hash of the file's lines of it so far (contentID)
	diverged bool     // a line of the file found its place held by another message
	created  bool
	newTitle string
	archived bool // created archived (ImportedMessage.Archived)
	// keepIDs: the conversation was restored from a backup, whose message
	// lines carry the ids to keep.
	keepIDs bool
}

type importMsg struct {
	key   convKey
	conv  *importConv
	msg   Message
	chain [32]byte // the file's lines of the conversation up to this one (contentID)
	// source is the message's id in another assistant's export
	// (ImportRecords); the stored id derives from it.
	source string
}

type importer struct {
	s        *Store
	convs    map[convKey]*importConv
	restored map[convKey]string // conversations a backup's lines created or found
	user     string             // the importing user, the default of lines without "user"
	allUsers bool
	more     map[string]LineRestorer
	onBatch  func([]ConversationRef) // ImportOptions.OnBatch
	pending  []importMsg             // the batch being gathered
	clock    int64                   // the last time given to a line without one (ms)
}

// queue adds m to the batch, writing the batch once it is full, and
// counts what was written in st.
func (imp *importer) queue(ctx context.Context, m importMsg, st *ImportStats) error {
	imp.pending = append(imp.pending, m)
	if len(imp.pending) < importBatch {
		return nil
	}
	return imp.flush(ctx, st)
}

// flush writes the batch gathered so far and counts what it did in st.
func (imp *importer) flush(ctx context.Context, st *ImportStats) error {
	if len(imp.pending) == 0 {
		return nil
	}
	n, conflicts, err := imp.write(ctx, imp.pending)
	st.Imported += n
	st.Conflicts += conflicts
	if err == nil { // a batch not written (interrupted) is not "already there"
		st.Unchanged += len(imp.pending) - n - conflicts
	}
	imp.pending = imp.pending[:0]
	return err
}

// touched lists the conversations the import wrote to, and where each
// one's new messages begin.
func (imp *importer) touched() ([]ConversationRef, map[string]int) {
	var refs []ConversationRef
	firstNew := map[string]int{}
	for k, c := range imp.convs {
		if c.id != "" {
			refs = append(refs, ConversationRef{UserID: k.user, ConversationID: c.id})
		}
		if c.firstNew > 0 {
			firstNew[c.id] = c.firstNew
		}
	}
	return refs, firstNew
}

func (imp *importer) parse(raw []byte) (importMsg, error) {
	var rec Record
	if err := decodeLine(raw, &rec); err != nil { // backup.go
		return importMsg{}, err
	}
	return imp.record(rec)
}

// record checks one record and places it in its conversation.
func (imp *importer) record(rec Record) (importMsg, error) {
	user := strings.TrimSpace(cmp.Or(rec.User, imp.user))
	switch {
	case user == "":
		return importMsg{}, errors.New(`no "user" and no default user`)
	case user != imp.user && !imp.allUsers:
		return importMsg{}, fmt.Errorf("%q: %w", user, ErrOtherUser)
	case strings.TrimSpace(rec.Conversation) == "":
		return importMsg{}, errors.New(`missing "conversation"`)
	case !rec.Role.Valid():
		return importMsg{}, fmt.Errorf(`"role" must be user, assistant, tool or system, not %q`, rec.Role)
	case rec.Status != "" && rec.Status != StatusComplete && rec.Status != StatusInterrupted:
		return importMsg{}, fmt.Errorf(`"status" must be complete or interrupted, not %q`, rec.Status)
	}
	var created time.Time
	if rec.Time != "" {
		t, err := time.Parse(time.RFC3339Nano, rec.Time)
		if err != nil {
			return importMsg{}, fmt.Errorf(`"time" is not RFC 3339: %q`, rec.Time)
		}
		// Year 1 would read as "no time"; a time far ahead would keep its
		// conversation the latest (the one -c resumes) for ever.
		latest := imp.s.now().Add(maxImportAhead)
		if t.Before(minImportTime) || t.After(latest) {
			return importMsg{}, fmt.Errorf(`"time" %s must be from 1970 to %s: %w`,
				rec.Time, latest.UTC().Format(time.RFC3339), ErrTimeOutOfRange)
		}
		created = t
	}
	size := len(rec.Content) + len(rec.Thinking)
	for _, c := range rec.ToolCalls {
		size += len(c.Arguments)
	}
	if size > maxRecordText {
		return importMsg{}, fmt.Errorf("a message longer than %d MiB", maxRecordText>>20)
	}
	for i, c := range rec.ToolCalls {
		if c.Name == "" {
			return importMsg{}, fmt.Errorf("tool call %d has no name", i+1)
		}
		if len(c.Arguments) > 0 && !json.Valid(c.Arguments) {
			return importMsg{}, fmt.Errorf("tool call %d has invalid arguments", i+1)
		}
	}
	key := convKey{user: user, external: rec.Conversation}
	c := imp.convs[key]
	if c == nil {
		c = &importConv{}
		imp.convs[key] = c
	}
	if rec.Title != "" {
		c.newTitle = rec.Title
	}
	c.ordinal++
	// The file's lines of this conversation so far, this one included, in
	// one hash: what contentID knows a line by.
	c.chain = sha256.Sum256(fmt.Appendf(c.chain[:], "\x00%s\x00%s\x00%s", rec.Role, rec.Content, rec.Time))
	return importMsg{key: key, conv: c, chain: c.chain, msg: Message{
		ID: rec.ID, Role: rec.Role, Content: rec.Content, Thinking: rec.Thinking,
		ToolCalls: rec.ToolCalls, ToolCallID: rec.ToolCallID, ToolName: rec.ToolName, Ref: rec.Ref,
		Created: created, Status: cmp.Or(rec.Status, StatusComplete), Seq: c.ordinal, Model: strings.TrimSpace(rec.Model),
	}}, nil
}

// messageID is an imported message's id: one derived from its id in
// another assistant's export when it has one; the one in the file when the
// conversation kept its own id (a re-import of an export); else one derived
// from the conversation and the message's position in the file (so too
// for an id mneme could not print: short, or with escapes), and then
// placed is true.
func (c *importConv) messageID(m Message, key convKey, source string) (id string, placed bool) {
	if source != "" {
		return uuid.NewSHA1(idSpace, []byte("message\x00"+c.id+"\x00source\x00"+source)).String(), false
	}
	if m.ID != "" && (c.id == key.external || c.keepIDs) && schema.CheckID("id", m.ID) == nil {
		return m.ID, false
	}
	return uuid.NewSHA1(idSpace, []byte(fmt.Sprintf("message\x00%s\x00%d", c.id, m.Seq))).String(), true
}

// contentID is the id of a message without one of its own whose place
// another message holds (a second file of the same conversation, such as
// the next day of a journal): derived from its place and chain, the hash
// of its file's lines of the conversation up to it (roles, texts, times),
// so that importing that file again finds it, and a line is taken for one
// already there only after the same lines.
func (c *importConv) contentID(m Message, chain [32]byte) string {
	return uuid.NewSHA1(idSpace, fmt.Appendf(nil, "message\x00%s\x00%d\x00%x", c.id, m.Seq, chain)).String()
}

// convTouch is what a batch did to one conversation.
type convTouch struct {
	inserted    bool
	first, last int64 // time span of the messages inserted
	firstUser   string
}

func (t convTouch) add(m Message) convTouch {
	ms := m.Created.UnixMilli()
	if !t.inserted || ms < t.first {
		t.first = ms
	}
	if !t.inserted || ms > t.last {
		t.last = ms
	}
	t.inserted = true
	return t
}

// write stores a batch in one transaction and reports how many were new
// and how many had an id already stored with other content (kept as stored).
func (imp *importer) write(ctx context.Context, batch []importMsg) (n, conflicts int, err error) {
	s := imp.s
	now := s.nowMS()
	var added []ConversationRef // conversations the batch added messages to
	err = s.write(ctx, func(tx Execer) error {
		n, conflicts, added = 0, 0, added[:0]
		touched := map[*importConv]convTouch{}
		owner := map[*importConv]string{}
		for _, im := range batch {
			c := im.conv
			if _, seen := owner[c]; !seen && c.created {
				// Another process (an import, a chat) may have added to it
				// since the last batch: its next seq is read again.
				if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ?`, c.id).Scan(&c.nextSeq); err != nil {
					return err
				}
			}
			owner[c] = im.key.user
			if !c.created {
				if err := imp.ensureConversation(ctx, tx, im.key, c, now); err != nil {
					return err
				}
			}
			m := im.msg
			var placed bool
			m.ID, placed = c.messageID(m, im.key, im.source)
			timed := placed && !m.Created.IsZero() // its place and time tell it apart
			if m.Created.IsZero() {                // a line without "time": the file's order, a millisecond apart
				imp.clock = max(now, imp.clock+1)
				m.Created = fromMS(imp.clock)
			}
			m.Content, m.Thinking, m.Ref = cleanText(m.Content), cleanText(m.Thinking), cleanText(m.Ref)
			var calls, ref any
			if len(m.ToolCalls) > 0 {
				b, _ := json.Marshal(m.ToolCalls)
				calls = string(b)
			}
			if m.Ref != "" {
				ref = m.Ref
			}
			insert := func() (bool, error) {
				res, err := tx.ExecContext(ctx, `INSERT INTO messages
					(id, conversation_id, user_id, seq, role, content, thinking, tool_calls, tool_call_id, tool_name, ref, created_at, status, model)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`,
					m.ID, c.id, im.key.user, c.nextSeq, string(m.Role), m.Content, m.Thinking, calls,
					m.ToolCallID, m.ToolName, ref, m.Created.UnixMilli(), string(m.Status), m.Model)
				if err != nil {
					return false, fmt.Errorf("import message: %w", err)
				}
				k, err := res.RowsAffected()
				return k > 0, err
			}
			if placed && c.diverged {
				m.ID = c.contentID(m, im.chain)
			}
			inserted, err := insert()
			if err != nil {
				return err
			}
			same := false
			if !inserted {
				if same, err = sameMessage(ctx, tx, c.id, m, timed); err != nil {
					return fmt.Errorf("import message: %w", err)
				}
			}
			if !inserted && !same && placed && !c.diverged {
				// Another message holds its place: from here the file goes
				// its own way, each line known by the lines up to it.
				c.diverged = true
				m.ID = c.contentID(m, im.chain)
				if inserted, err = insert(); err != nil {
					return err
				}
				same = !inserted // this file was imported before
			}
			if inserted {
				n++
				c.firstNew = cmp.Or(c.firstNew, c.nextSeq)
				c.nextSeq++
				touched[c] = touched[c].add(m)
			} else {
				if !same {
					conflicts++
				}
				if _, ok := touched[c]; !ok {
					touched[c] = convTouch{}
				}
			}
			if m.Role == RoleUser && touched[c].firstUser == "" {
				t := touched[c]
				t.firstUser = m.Content
				touched[c] = t
			}
		}
		// One update per conversation and batch: its time span and title. A
		// title the export gives (the user's name for it there, or that
		// app's) is kept like one the user set: the model never retitles it.
		// A backup's conversation line says where its title came from.
		for c, t := range touched {
			if t.inserted {
				added = append(added, ConversationRef{UserID: owner[c], ConversationID: c.id})
			}
			title := cleanText(c.newTitle)
			c.newTitle = ""
			given := title
			if c.keepIDs || slices.Contains([]string{"new chat", "untitled", "new conversation"}, strings.ToLower(title)) {
				given = "" // a backup's line says; an app's placeholder is no title
			}
			if _, err := tx.ExecContext(ctx, `UPDATE conversations SET
				updated_at = CASE WHEN ? THEN MAX(updated_at, ?) ELSE updated_at END,
				created_at = CASE WHEN ? THEN MIN(created_at, ?) ELSE created_at END,
				title = CASE WHEN ? != '' THEN ? WHEN title = '' THEN ? ELSE title END,
				title_source = CASE WHEN ? != '' THEN 'user' ELSE title_source END
				WHERE id = ?`,
				t.inserted, t.last, t.inserted, t.first, title, title, DeriveTitle(t.firstUser), given, c.id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		// The transaction rolled back: forget what this batch created.
		for _, im := range batch {
			im.conv.created = false
		}
		return 0, 0, err
	}
	if imp.onBatch != nil && len(added) > 0 {
		imp.onBatch(added)
	}
	return n, conflicts, nil
}

// sameMessage tells whether the stored message with m's id is m: in the
// same conversation, with the same role and content, and with timed at
// the same time.
func sameMessage(ctx context.Context, tx Execer, conversationID string, m Message, timed bool) (bool, error) {
	var role, content string
	var at int64
	err := tx.QueryRowContext(ctx, `SELECT role, content, created_at FROM messages WHERE id = ? AND conversation_id = ?`,
		m.ID, conversationID).Scan(&role, &content, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return role == string(m.Role) && content == m.Content && (!timed || at == m.Created.UnixMilli()), nil
}

// ensureConversation finds or creates the conversation a file names: the
// user's conversation with that id (an export of this database), else the
// one imported before under that name, else a new one.
func (imp *importer) ensureConversation(ctx context.Context, tx Execer, key convKey, c *importConv, now int64) error {
	if err := ensureUser(ctx, tx, key.user, now); err != nil {
		return err
	}
	derived := uuid.NewSHA1(idSpace, []byte("conversation\x00"+key.user+"\x00"+key.external)).String()
	c.id = ""
	if id, ok := imp.restored[key]; ok {
		c.id, c.keepIDs = id, true
	}
	for _, id := range []string{key.external, derived} {
		if c.id != "" {
			break
		}
		var owner string
		err := tx.QueryRowContext(ctx, `SELECT user_id FROM conversations WHERE id = ?`, id).Scan(&owner)
		if err == nil && owner == key.user {
			c.id = id
			break
		}
		if errors.Is(err, sql.ErrNoRows) && id == derived {
			c.id = id
			ext := any(key.external)
			if _, err := tx.ExecContext(ctx, `INSERT INTO conversations(id, user_id, title, created_at, updated_at, external_id, archived)
				VALUES (?, ?, '', ?, 0, ?, CASE WHEN ? THEN 1 ELSE 0 END)`, c.id, key.user, now, ext, c.archived); err != nil {
				return fmt.Errorf("import conversation: %w", err)
			}
		}
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
	}
	if c.id == "" {
		return fmt.Errorf("import conversation %q: id taken by another user: %w", key.external, ErrInvalid)
	}
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ?`, c.id).Scan(&c.nextSeq); err != nil {
		return err
	}
	c.created = true
	return nil
}

// EachExported calls fn with the user's conversations (or the one, when
// conversationID is set), oldest first, each with its messages and its id
// in an export: the name it was imported under, else its own.
func (s *Store) EachExported(ctx context.Context, userID, conversationID string, fn func(c Conversation, fileID string, msgs []Message) error) error {
	var convs []Conversation
	if conversationID != "" {
		c, err := s.Conversation(ctx, userID, conversationID)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		convs = []Conversation{c}
	} else {
		list, err := s.ListConversations(ctx, userID, ListOptions{IncludeArchived: true})
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		// Oldest first reads naturally and keeps re-exports stable.
		for i := len(list) - 1; i >= 0; i-- {
			convs = append(convs, list[i])
		}
	}
	for _, c := range convs {
		msgs, err := s.Messages(ctx, userID, c.ID)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		external, err := s.externalID(ctx, c.ID)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := fn(c, cmp.Or(external, c.ID), msgs); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}

// Export writes the user's conversations (or one, when conversationID is
// set) to w as JSON lines, which Import reads back.
func (s *Store) Export(ctx context.Context, userID, conversationID string, w io.Writer) error {
	bw := bufio.NewWriter(w)
	err := s.EachExported(ctx, userID, conversationID, func(c Conversation, fileID string, msgs []Message) error {
		return exportJSONL(bw, userID, fileID, c.Title, msgs)
	})
	if err != nil {
		return err
	}
	return bw.Flush()
}

func (s *Store) externalID(ctx context.Context, id string) (string, error) {
	var ext *string
	if err := s.db.QueryRowContext(ctx, `SELECT external_id FROM conversations WHERE id = ?`, id).Scan(&ext); err != nil {
		return "", err
	}
	if ext == nil {
		return "", nil
	}
	return *ext, nil
}

func exportJSONL(w io.Writer, user, conv, title string, msgs []Message) error {
	for _, m := range msgs {
		rec := Record{
			ID: m.ID, User: user, Conversation: conv, Title: title, Role: m.Role, Content: m.Content,
			Time: m.Created.UTC().Format(time.RFC3339Nano), Ref: m.Ref, ToolCalls: m.ToolCalls,
			Thinking: m.Thinking, ToolCallID: m.ToolCallID, ToolName: m.ToolName, Model: m.Model,
		}
		if m.Status == StatusInterrupted {
			rec.Status = m.Status
		}
		b, err := exportLine(rec)
		if err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// exportLine is v as a line of an export: JSON with "<", ">" and "&" as
// they are (json.Marshal writes six bytes for each), C1 and bidi controls
// escaped (the file is often printed), and a newline.
func exportLine(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return sanitize.JSON(b.Bytes()), nil
}
