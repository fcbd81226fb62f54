// Package schema is the schema of mneme's libSQL store: its migrations,
// in order, one statement per entry. Package memory applies them
// (memory/migrations.go) and owns what the tables mean.
package schema

// Migration is one schema version. go-libsql runs only the first statement
// of a multi-statement Exec, so each statement is listed on its own.
type Migration struct {
	Version    int
	Statements []string
}

// The keyword_hash columns of turns, notes and summaries are kept for old
// databases but no longer read or written: keyword marks are local state
// (memory/local.go), so that rebuilding the keyword index writes nothing to sync.
var Migrations = []Migration{
	{Version: 1, Statements: []string{
		`CREATE TABLE users (
			id         TEXT PRIMARY KEY,
			created_at INTEGER NOT NULL
		)`,
		`CREATE TABLE conversations (
			id         TEXT PRIMARY KEY,
			user_id    TEXT NOT NULL REFERENCES users(id),
			title      TEXT NOT NULL DEFAULT '',
			created_at INTEGER NOT NULL,
			updated_at INTEGER NOT NULL,
			archived   INTEGER NOT NULL DEFAULT 0
		)`,
		`CREATE INDEX conversations_user_updated ON conversations(user_id, updated_at DESC)`,
		`CREATE TABLE messages (
			id              TEXT PRIMARY KEY,
			conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
			user_id         TEXT NOT NULL REFERENCES users(id),
			seq             INTEGER NOT NULL,
			role            TEXT NOT NULL CHECK (role IN ('system','user','assistant','tool')),
			content         TEXT NOT NULL DEFAULT '',
			thinking        TEXT NOT NULL DEFAULT '',
			tool_calls      TEXT,
			tool_call_id    TEXT NOT NULL DEFAULT '',
			tool_name       TEXT NOT NULL DEFAULT '',
			ref             TEXT,
			created_at      INTEGER NOT NULL,
			status          TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete','interrupted')),
			UNIQUE (conversation_id, seq)
		)`,
		`CREATE INDEX messages_user ON messages(user_id)`,
	}},
	{Version: 2, Statements: []string{
		// external_id is the id an imported conversation had in its source file.
		`ALTER TABLE conversations ADD COLUMN external_id TEXT`,
		`CREATE UNIQUE INDEX conversations_external ON conversations(user_id, external_id) WHERE external_id IS NOT NULL`,
		`CREATE TABLE turns (
			id              TEXT PRIMARY KEY,
			conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
			user_id         TEXT NOT NULL,
			number          INTEGER NOT NULL,
			first_seq       INTEGER NOT NULL,
			last_seq        INTEGER NOT NULL,
			text            TEXT NOT NULL,
			user_text       TEXT NOT NULL,
			snippet         TEXT NOT NULL,
			refs            TEXT NOT NULL DEFAULT '[]',
			created_at      INTEGER NOT NULL,
			hash            TEXT NOT NULL,
			keyword_hash    TEXT NOT NULL DEFAULT '',
			UNIQUE (conversation_id, number)
		)`,
		`CREATE INDEX turns_user_time ON turns(user_id, created_at)`,
		// One row per embedded chunk of a turn (later also notes and
		// summaries). text is the chunk's plain-text twin; hash is the
		// owner's content hash when it was embedded.
		`CREATE TABLE embeddings (
			owner_id   TEXT NOT NULL,
			kind       TEXT NOT NULL,
			user_id    TEXT NOT NULL,
			chunk      INTEGER NOT NULL,
			model      TEXT NOT NULL,
			dim        INTEGER NOT NULL,
			hash       TEXT NOT NULL,
			text       TEXT NOT NULL,
			vector     F32_BLOB NOT NULL,
			created_at INTEGER NOT NULL,
			PRIMARY KEY (owner_id, model, chunk)
		)`,
		`CREATE INDEX embeddings_user_model ON embeddings(user_id, model)`,
		`CREATE TABLE meta (
			key   TEXT PRIMARY KEY,
			value TEXT NOT NULL
		)`,
	}},
	{Version: 3, Statements: []string{
		// Notes the model (or the user) saved on purpose. conversation_id
		// and turn_number say where a note was saved from (NULL when added
		// outside a conversation). A deleted note is a tombstone: deleted_at
		// is set and content blanked, so that sync can carry the delete.
		// keyword_hash is no longer used: what the keyword index holds is
		// recorded in local state (memory/local.go), which is never synced.
		`CREATE TABLE notes (
			id              TEXT PRIMARY KEY,
			user_id         TEXT NOT NULL REFERENCES users(id),
			content         TEXT NOT NULL,
			conversation_id TEXT,
			turn_number     INTEGER,
			created_at      INTEGER NOT NULL,
			updated_at      INTEGER NOT NULL,
			hash            TEXT NOT NULL DEFAULT '',
			keyword_hash    TEXT NOT NULL DEFAULT '',
			deleted_at      INTEGER
		)`,
		`CREATE INDEX notes_user_updated ON notes(user_id, updated_at DESC)`,
	}},
	{Version: 4, Statements: []string{
		// Where a conversation's title came from: derived from the first
		// prompt ('auto'), written by the model ('model') or set by the user
		// ('user', which the model never overwrites). title_seq is the last
		// message the model last titled from (0: never asked).
		`ALTER TABLE conversations ADD COLUMN title_source TEXT NOT NULL DEFAULT 'auto'
			CHECK (title_source IN ('auto','model','user'))`,
		`ALTER TABLE conversations ADD COLUMN title_seq INTEGER NOT NULL DEFAULT 0`,
		// Cumulative summaries of a conversation's older messages, written
		// by the model when the model history is compacted. A summary covers
		// messages first_seq..last_seq; at_seq is the last message stored
		// when it was made (where the transcript marks the compaction). The
		// messages themselves are never changed. hash and keyword_hash work
		// as for turns; the embedding is in embeddings (kind 'summary').
		`CREATE TABLE summaries (
			id              TEXT PRIMARY KEY,
			conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
			user_id         TEXT NOT NULL,
			first_seq       INTEGER NOT NULL,
			last_seq        INTEGER NOT NULL,
			at_seq          INTEGER NOT NULL,
			text            TEXT NOT NULL,
			model           TEXT NOT NULL DEFAULT '',
			created_at      INTEGER NOT NULL,
			hash            TEXT NOT NULL,
			keyword_hash    TEXT NOT NULL DEFAULT ''
		)`,
		`CREATE INDEX summaries_conversation ON summaries(conversation_id, last_seq)`,
		`CREATE INDEX summaries_user ON summaries(user_id, created_at)`,
		// The size of a conversation's last model request plus its answer as
		// Ollama counted it, and what that request held: the summary and the
		// first and last message sent verbatim.
		`CREATE TABLE context_usage (
			conversation_id TEXT PRIMARY KEY REFERENCES conversations(id) ON DELETE CASCADE,
			user_id         TEXT NOT NULL,
			tokens          INTEGER NOT NULL,
			summary_id      TEXT NOT NULL DEFAULT '',
			first_seq       INTEGER NOT NULL,
			last_seq        INTEGER NOT NULL,
			updated_at      INTEGER NOT NULL
		)`,
	}},
	// The sync log (memory/synclog.go): which rows this device wrote. Version 4
	// is another change's; versions apply in any order (see migrate).
	{Version: 5, Statements: SyncLog},
	{Version: 6, Statements: []string{
		// Who made a note (user, model, extracted, imported), how sure it
		// is (0-1), and its tags (a JSON array of strings). Notes from
		// before knew only where they were saved: one saved in a
		// conversation came from the model's tool, one without from the
		// user (memory add). Each device derives this itself, so the
		// UPDATE logs nothing for sync (the log triggers predate the column).
		`ALTER TABLE notes ADD COLUMN source TEXT NOT NULL DEFAULT 'user'`,
		`ALTER TABLE notes ADD COLUMN confidence REAL NOT NULL DEFAULT 1`,
		`ALTER TABLE notes ADD COLUMN tags TEXT NOT NULL DEFAULT '[]'`,
		`UPDATE notes SET source = 'model' WHERE conversation_id IS NOT NULL`,
	}},
	{Version: 7, Statements: []string{
		// Whether a note is in use (active), waiting for review (pending)
		// or put away (archived: kept, listed with --archived, never
		// recalled).
		`ALTER TABLE notes ADD COLUMN status TEXT NOT NULL DEFAULT 'active'`,
	}},
	{Version: 8, Statements: []string{
		// The history of notes (memory/note_history.go): one row per create,
		// update, delete, restore or status change, written in the same
		// transaction as the change. changed_by is user, model,
		// extracted, retention or import; undoes names the change an
		// undo reverted. Rows never change once written; they sync like
		// notes and travel in the full backup.
		`CREATE TABLE note_changes (
			id            TEXT PRIMARY KEY,
			note_id       TEXT NOT NULL,
			user_id       TEXT NOT NULL,
			op            TEXT NOT NULL,
			changed_by    TEXT NOT NULL,
			at            INTEGER NOT NULL,
			before_text   TEXT NOT NULL DEFAULT '',
			after_text    TEXT NOT NULL DEFAULT '',
			before_status TEXT NOT NULL DEFAULT '',
			after_status  TEXT NOT NULL DEFAULT '',
			undoes        TEXT
		)`,
		`CREATE INDEX note_changes_note ON note_changes(note_id, at)`,
		`CREATE INDEX note_changes_user ON note_changes(user_id, at)`,
	}},
	{Version: 9, Statements: []string{
		// Documents the user added (memory/docstore): one row per file, by
		// its absolute path, with the hash of its bytes (re-adding an
		// unchanged file does nothing). Its chunks are the text the index
		// holds: a changed file's chunks are replaced whole. Both tables
		// sync like notes; the keyword marks and vectors are derived.
		`CREATE TABLE documents (
			id         TEXT PRIMARY KEY,
			user_id    TEXT NOT NULL REFERENCES users(id),
			collection TEXT NOT NULL DEFAULT '',
			path       TEXT NOT NULL,
			title      TEXT NOT NULL DEFAULT '',
			type       TEXT NOT NULL,
			size       INTEGER NOT NULL,
			hash       TEXT NOT NULL,
			added_at   INTEGER NOT NULL,
			updated_at INTEGER NOT NULL
		)`,
		`CREATE UNIQUE INDEX documents_user_path ON documents(user_id, path)`,
		`CREATE TABLE doc_chunks (
			id          TEXT PRIMARY KEY,
			document_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
			user_id     TEXT NOT NULL,
			number      INTEGER NOT NULL,
			heading     TEXT NOT NULL DEFAULT '',
			page        INTEGER NOT NULL DEFAULT 0,
			text        TEXT NOT NULL,
			hash        TEXT NOT NULL,
			UNIQUE (document_id, number)
		)`,
		`CREATE INDEX doc_chunks_user ON doc_chunks(user_id)`,
	}},
	{Version: 10, Statements: []string{
		// The model that wrote an assistant message ('' when unknown: the
		// user's own messages, older rows, exports that do not say).
		`ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT ''`,
	}},
	{Version: 11, Statements: []string{
		// The kept note a pending note would replace ('' for none): learning
		// for review (memory_review = "inbox") proposes a refinement or a
		// contradiction of a kept note as a new pending note, and approving
		// it deletes the note it replaces.
		`ALTER TABLE notes ADD COLUMN replaces TEXT NOT NULL DEFAULT ''`,
	}},
}

// SyncLog is the table of the sync log (memory/synclog.go): which rows
// this device wrote.
var SyncLog = []string{
	`CREATE TABLE sync_log (
		seq    INTEGER PRIMARY KEY AUTOINCREMENT,
		tbl    TEXT NOT NULL,
		row_id TEXT NOT NULL,
		op     TEXT NOT NULL CHECK (op IN ('upsert','delete')),
		entry  TEXT NOT NULL DEFAULT (lower(hex(randomblob(8)))),
		at     INTEGER NOT NULL DEFAULT (unixepoch() * 1000)
	)`,
}
