package main

import (
	"context"
	"sync"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui"
)

// What the chat screen gets from main besides the store and the agent:
// conversation management that keeps search in step, the memory state for
// the status line, and the models chosen in the picker.

// conversationManager is the store's conversation methods, with deletes
// going through the index so that search forgets a deleted conversation.
type conversationManager struct {
	*memory.Store
	ix *index.Index
}

func (c conversationManager) DeleteConversation(ctx context.Context, userID, id string) error {
	return c.ix.DeleteConversation(ctx, userID, id)
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
		return tui.MemoryStatus{EmbedModel: st.EmbedModel, Pending: st.Pending, EmbedError: st.EmbedError, Notes: len(notes),
			Reindexed: done, ReindexTotal: total}, nil
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
func (c *chosenModels) apply(cfg Config) Config {
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

// saver saves a choice to the config file at path and uses it from now on.
func (c *chosenModels) saver(path string) func(chat, embed string) error {
	return func(chat, embed string) error {
		c.mu.Lock()
		if chat != "" {
			c.chat = chat
		}
		if embed != "" {
			c.embed = embed
		}
		c.mu.Unlock()
		return saveModels(path, chat, embed)
	}
}
