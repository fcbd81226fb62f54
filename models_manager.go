package main

import (
	"context"
	"fmt"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/tui"
)

// ollamaModels implements tui.ModelManager over an Ollama client: the
// model picker lists models with /api/tags and /api/show and pulls them
// with /api/pull.
type ollamaModels struct {
	client *api.Client
}

// newModelManager returns the model picker's view of the Ollama server.
func newModelManager(client *api.Client) tui.ModelManager {
	return ollamaModels{client: client}
}

// List returns the installed models with their sizes and, where
// /api/show answers, their capabilities and context lengths.
func (o ollamaModels) List(ctx context.Context) ([]tui.ModelInfo, error) {
	list, err := o.client.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	out := make([]tui.ModelInfo, 0, len(list.Models))
	for _, m := range list.Models {
		info := tui.ModelInfo{Name: m.Name, Size: m.Size}
		if show, err := o.client.Show(ctx, &api.ShowRequest{Model: m.Name}); err == nil {
			for _, c := range show.Capabilities {
				info.Capabilities = append(info.Capabilities, string(c))
			}
			info.ContextLength = agent.ContextLength(show.ModelInfo)
		} else if ctx.Err() != nil {
			return nil, fmt.Errorf("list models: %w", ctx.Err())
		}
		out = append(out, info)
	}
	return out, nil
}

// Pull pulls name with /api/pull, streaming its progress. Cancelling ctx
// stops the download; Ollama keeps what it fetched for a later pull.
func (o ollamaModels) Pull(ctx context.Context, name string, progress func(tui.PullProgress)) error {
	err := o.client.Pull(ctx, &api.PullRequest{Model: name}, func(r api.ProgressResponse) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		progress(tui.PullProgress{Status: r.Status, Digest: r.Digest, Total: r.Total, Completed: r.Completed})
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("pull %s: %w", name, err)
	}
	return nil
}
