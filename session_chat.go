package main

import (
	"context"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// indexingRunner runs a prompt and then tells the search index that the
// conversation changed, so the finished turn becomes searchable.
type indexingRunner struct {
	agent *agent.Agent
	index *index.Index
}

func (r indexingRunner) Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	res, err := r.agent.Run(ctx, req, emit)
	r.index.Notify(memory.ConversationRef{UserID: req.UserID, ConversationID: req.ConversationID})
	return res, err
}
