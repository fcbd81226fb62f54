package main

import (
	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/tools"
)

// newAgent builds the agent for a chat model from the session's config.
func (s *session) newAgent(model string) *agent.Agent {
	opts := []agent.Option{
		agent.WithModel(model),
		agent.WithHost(s.host),
		agent.WithLogger(s.log),
		agent.WithTools(tools.NewRegistry(s.log)),
	}
	if s.cfg.MaxSteps > 0 {
		opts = append(opts, agent.WithMaxSteps(s.cfg.MaxSteps))
	}
	if s.cfg.SystemPrompt != "" {
		opts = append(opts, agent.WithSystemPrompt(s.cfg.SystemPrompt))
	}
	if s.cfg.NumCtx > 0 {
		opts = append(opts, agent.WithModelOptions(map[string]any{"num_ctx": s.cfg.NumCtx}))
	}
	return agent.New(s.client, s.store, opts...)
}
