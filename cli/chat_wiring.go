package cli

import (
	"context"
	"fmt"
	"sync"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/internal/turnlock"
	"github.com/mneme-dev/mneme/learn"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
	"github.com/mneme-dev/mneme/tui"
	"github.com/mneme-dev/mneme/tui/confirm"
)

// The chat's wiring: what the chat screen (tui) gets from the session
// besides the store and the agent. Only the chat command's files import tui.

// indexingRunner runs a prompt and then tells the search index that the
// conversation changed, so the finished turn becomes searchable, and
// learns from a completed turn in the background.
type indexingRunner struct {
	agent *agent.Agent
	index *index.Index
	learn *backgroundLearner
	turns turnlock.Locks
}

func (r indexingRunner) Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	res, err := r.turns.Run(ctx, r.agent, req, emit)
	r.index.Notify(memory.ConversationRef{UserID: req.UserID, ConversationID: req.ConversationID})
	r.learn.after(r.agent.Model(), req, res, err)
	return res, err
}

// learntReceipts is the chat's side of background learning: each change
// goes to the screen as a receipt under the answer. When the screen is
// behind, a receipt is dropped (the notes are kept; the log says so).
func (s *session) learntReceipts(ctx context.Context, ix *index.Index) (*backgroundLearner, <-chan tui.Learnt) {
	ch := make(chan tui.Learnt, 16)
	return s.newBackgroundLearner(ctx, ix, func(conversationID string, turn int, l learn.Learnt) {
		select {
		case ch <- tui.Learnt{ConversationID: conversationID, Turn: turn, Text: l.ChatReceipt(), Undone: l.UndoneReceipt(), NoteID: l.NoteID}:
		default:
			s.log.Info("learnt-note receipt dropped: the screen is behind", "note", l.NoteID)
		}
	}), ch
}

// Retitle titles the conversation from its first exchange (tui.Titler).
func (r indexingRunner) Retitle(ctx context.Context, userID, conversationID string) (bool, error) {
	return r.agent.Retitle(ctx, userID, conversationID)
}

// Compact forces compaction of the conversation (tui.Compactor); the new
// summary is indexed for search.
func (r indexingRunner) Compact(ctx context.Context, userID, conversationID string, emit func(agent.Event)) (agent.Result, error) {
	res, err := r.agent.Compact(ctx, userID, conversationID, emit)
	r.index.Notify(memory.ConversationRef{UserID: userID, ConversationID: conversationID})
	return res, err
}

// findConversations ranks the user's conversations for a description
// (tui.Config.Find, conversations --find).
func findConversations(ix *index.Index) func(ctx context.Context, userID, description string) ([]index.ConversationMatch, error) {
	return func(ctx context.Context, userID, description string) ([]index.ConversationMatch, error) {
		return ix.FindConversations(ctx, index.FindQuery{UserID: userID, Text: description})
	}
}

// withSync adds the sync state to the chat's status line.
func (s *session) withSync(cfg tui.Config) tui.Config {
	if sy := s.syncer(); sy != nil {
		cfg.SyncStatus = sy.Label
	}
	return cfg
}

// conversationManager is the store's conversation methods, with deletes
// going through the index so that search forgets a deleted conversation,
// and the index's ForgetConversation and ConversationNoteCount.
type conversationManager struct {
	*memory.Store
	*index.Index
	turns turnlock.Locks
}

func (c conversationManager) DeleteConversation(ctx context.Context, userID, id string) error {
	defer c.turns.Forget(id)
	return c.Index.DeleteConversation(ctx, userID, id)
}

func (c conversationManager) ForgetConversation(ctx context.Context, userID, id string) (int, error) {
	defer c.turns.Forget(id)
	return c.Index.ForgetConversation(ctx, userID, id)
}

// memoryStatus reports the state of search and the number of notes.
func memoryStatus(store *memory.Store, ix *index.Index) func(ctx context.Context, userID string) (tui.MemoryStatus, error) {
	return func(ctx context.Context, userID string) (tui.MemoryStatus, error) {
		st, err := ix.Status(ctx)
		if err != nil {
			return tui.MemoryStatus{}, err
		}
		notes, err := store.ListNotes(ctx, userID)
		if err != nil {
			return tui.MemoryStatus{}, err
		}
		done, total := ix.KeywordProgress()
		review := 0
		for _, n := range notes {
			if n.Status == memory.NotePending {
				review++
			}
		}
		return tui.MemoryStatus{EmbedModel: st.EmbedModel, Pending: st.Pending, EmbedError: st.EmbedError,
			Notes: len(notes) - review, Review: review, Reindexed: done, ReindexTotal: total}, nil
	}
}

// chosenModels are the models picked in the chat's model picker. They
// override the configuration (file, environment and flags) for the rest of
// the session, and are saved to the config file for the next one.
type chosenModels struct {
	mu          sync.Mutex
	chat, embed string
}

// apply returns cfg with the chosen models in place of the configured ones.
func (c *chosenModels) apply(cfg config.Config) config.Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.chat != "" {
		cfg.Model = c.chat
	}
	if c.embed != "" {
		cfg.EmbedModel = c.embed
	}
	return cfg
}

// saver saves a choice to the config file at path and uses it from now on;
// the note says what wins over it at the next start (config.ModelsOverridden).
func (c *chosenModels) saver(path string, overridden func(chat, embed string) string) func(chat, embed string) (string, error) {
	return func(chat, embed string) (string, error) {
		c.mu.Lock()
		if chat != "" {
			c.chat = chat
		}
		if embed != "" {
			c.embed = embed
		}
		c.mu.Unlock()
		return overridden(chat, embed), config.SaveModels(path, chat, embed)
	}
}

// pendingTitleLimit is how many of the latest conversations the chat
// checks for a missing model title when it starts.
const pendingTitleLimit = 20

// titlePending lets the model title the latest conversations that have an
// answer but were never titled by it: those `mneme ask` made, which exits
// without waiting for a title. The chat runs it in the background once
// Ollama is found; conversations already titled, or named by the user,
// cost one read each. Failures are logged: a conversation keeps the title
// derived from its first prompt.
func (s *session) titlePending(ctx context.Context, ag *agent.Agent) {
	list, err := s.store.ListConversations(ctx, s.cfg.User, memory.ListOptions{Limit: pendingTitleLimit})
	if err != nil {
		s.log.Warn("pending titles", "err", err)
		return
	}
	for _, c := range list {
		if ctx.Err() != nil {
			return
		}
		if _, err := ag.Retitle(ctx, s.cfg.User, c.ID); err != nil {
			s.log.Warn("title", "conversation", c.ID, "err", err)
		}
	}
}

// askInChat is the chat's gate for the model's changes of notes
// (model_changes = "confirm"): it puts the question to the chat screen on
// the channel it returns, and waits for the user's y or n or the run's end.
func (s *session) askInChat() (tools.Gate, <-chan confirm.Request) {
	ch := make(chan confirm.Request)
	return func(ctx context.Context, ts tools.Session, c tools.Call) error {
		id, content := tools.ChangeArgs(c)
		q := s.changeQuestion(ctx, ts.UserID, c.Name, id, content)
		reply := make(chan bool, 1)
		select {
		case ch <- confirm.Request{Question: q, Reply: reply, Done: ctx.Done()}:
		case <-ctx.Done():
			return ctx.Err()
		}
		select {
		case yes := <-reply:
			if yes {
				return nil
			}
			return fmt.Errorf("%w, and the user said no: %s was not run and note %s is unchanged", tools.ErrNeedsConfirm, c.Name, id)
		case <-ctx.Done():
			return ctx.Err()
		}
	}, ch
}

// changeQuestion says what a memory_update or memory_delete call would do.
func (s *session) changeQuestion(ctx context.Context, user, tool, id, content string) string {
	cut := func(v string) string { return "“" + text.Cut(text.OneLine(sanitize.Text(v)), 60) + "”" }
	old := "note " + id
	if n, err := s.store.Note(ctx, user, id); err == nil {
		old = cut(n.Content)
	}
	if tool == tools.MemoryDeleteName {
		return "The model wants to delete " + old + "."
	}
	return "The model wants to change " + old + " to " + cut(content) + "."
}

// chatAttach is the chat's /attach over ix: the path (~/ already
// expanded by the chat) is added as `mneme docs add` adds it
// (ingest.Adder.Attach).
func (a *App) chatAttach(s *session, ix *index.Index) func(ctx context.Context, path string) (tui.AttachResult, error) {
	return func(ctx context.Context, path string) (tui.AttachResult, error) {
		at, err := s.docAdder(ix, "").Attach(ctx, path)
		if err != nil {
			return tui.AttachResult{}, err
		}
		return tui.AttachResult{Title: at.Doc.Title, Path: at.Doc.Path, Passages: at.Doc.Chunks, Outcome: string(at.Outcome),
			Documents: at.Documents, Unchanged: at.Unchanged, Skipped: at.Skipped, IDs: at.IDs}, nil
	}
}

// byMatch is the index for searches a person reads (the chat's overlay):
// a turn found only by meaning must be as close to the query as recall
// asks (recall_threshold), or it is no match.
type byMatch struct {
	ix  *index.Index
	min float64
}

func (b byMatch) Search(ctx context.Context, q index.SearchQuery) ([]index.SearchResult, error) {
	q.MinSimilarity = b.min
	return b.ix.Search(ctx, q)
}
