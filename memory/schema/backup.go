package schema

// The full backup (memory.Store.ExportAll) is JSON lines: typed lines (a
// header, conversations, summaries, notes, the notes' history, documents
// and their chunks) among the message lines. These are its line types.

// BackupVersion is the version of the backup format this build writes and reads.
const BackupVersion = 1

// Backup line types.
const (
	BackupHeader       = "mneme-backup"
	BackupConversation = "conversation"
	BackupSummary      = "summary"
	BackupNote         = "note"
	BackupChange       = "note_change"
	BackupDocument     = "document"
	BackupDocChunk     = "doc_chunk"
)

// BackupHeaderLine is a backup's first line.
type BackupHeaderLine struct {
	Type       string `json:"type"`
	Version    int    `json:"version"`
	ExportedAt string `json:"exported_at"`
	User       string `json:"user"`
}

// BackupConversationLine is a conversation's own fields; its messages
// follow it as message lines naming it by Name().
type BackupConversationLine struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	User        string `json:"user,omitempty"`
	ExternalID  string `json:"external_id,omitempty"`
	Title       string `json:"title,omitempty"`
	TitleSource string `json:"title_source,omitempty"`
	TitleSeq    int    `json:"title_seq,omitempty"`
	Archived    bool   `json:"archived,omitempty"`
	Created     string `json:"created"`
	Updated     string `json:"updated"`
}

// Name is how the backup's other lines name the conversation: as message
// lines do, by its external id when it has one.
func (c BackupConversationLine) Name() string {
	if c.ExternalID != "" {
		return c.ExternalID
	}
	return c.ID
}

// BackupSummaryLine is a compaction summary of a conversation.
type BackupSummaryLine struct {
	Type         string `json:"type"`
	ID           string `json:"id"`
	User         string `json:"user,omitempty"`
	Conversation string `json:"conversation"`
	FirstSeq     int    `json:"first_seq"`
	LastSeq      int    `json:"last_seq"`
	AtSeq        int    `json:"at_seq"`
	Text         string `json:"text"`
	Model        string `json:"model,omitempty"`
	Time         string `json:"time"`
}

// BackupNoteLine is a live note.
type BackupNoteLine struct {
	Type         string   `json:"type"`
	ID           string   `json:"id"`
	User         string   `json:"user,omitempty"`
	Content      string   `json:"content"`
	Conversation string   `json:"conversation,omitempty"`
	TurnNumber   int      `json:"turn_number,omitempty"`
	Source       string   `json:"source"`
	Confidence   float64  `json:"confidence"`
	Tags         []string `json:"tags"`
	// Status is active, pending or archived ("" in backups from before
	// notes had one: active); Replaces is the note a pending one would
	// replace when approved.
	Status   string `json:"status,omitempty"`
	Replaces string `json:"replaces,omitempty"`
	Created  string `json:"created"`
	Updated  string `json:"updated"`
}

// BackupChangeLine is one change of a note's history.
type BackupChangeLine struct {
	Type         string `json:"type"`
	ID           string `json:"id"`
	User         string `json:"user,omitempty"`
	Note         string `json:"note"`
	Op           string `json:"op"`
	By           string `json:"by"`
	At           string `json:"at"`
	BeforeText   string `json:"before_text,omitempty"`
	AfterText    string `json:"after_text,omitempty"`
	BeforeStatus string `json:"before_status,omitempty"`
	AfterStatus  string `json:"after_status,omitempty"`
	Undoes       string `json:"undoes,omitempty"`
}

// BackupDocumentLine is an added document's own fields; its chunks follow
// it as doc_chunk lines (memory/docstore writes and restores both).
type BackupDocumentLine struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	User       string `json:"user,omitempty"`
	Collection string `json:"collection,omitempty"`
	Path       string `json:"path"`
	Title      string `json:"title,omitempty"`
	DocType    string `json:"doc_type"`
	Size       int64  `json:"size"`
	Hash       string `json:"hash"`
	Added      string `json:"added"`
	Updated    string `json:"updated"`
}

// BackupDocChunkLine is one passage of a document, with its text.
type BackupDocChunkLine struct {
	Type     string `json:"type"`
	Document string `json:"document"`
	User     string `json:"user,omitempty"`
	Number   int    `json:"number"`
	Heading  string `json:"heading,omitempty"`
	Page     int    `json:"page,omitempty"`
	Text     string `json:"text"`
}
