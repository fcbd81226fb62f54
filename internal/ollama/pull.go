package ollama

import (
	"context"
	"fmt"
	"strings"

	"github.com/ollama/ollama/api"
)

// PullProgress is one progress report of a pull, as /api/pull streams it:
// a status, and for a layer being downloaded its digest, size and bytes
// done so far.
type PullProgress struct {
	Status    string
	Digest    string
	Total     int64
	Completed int64
}

// Client is the part of *api.Client that Models needs.
type Client interface {
	Lister
	Pull(ctx context.Context, req *api.PullRequest, fn api.PullProgressFunc) error
}

// Models lists and pulls the models of one server; the model picker uses
// it.
type Models struct{ Client Client }

// List is List(ctx, m.Client).
func (m Models) List(ctx context.Context) ([]ModelInfo, error) { return List(ctx, m.Client) }

// Pull pulls name with /api/pull, calling progress for every report.
// Cancelling ctx stops the download and returns ctx's error; Ollama keeps
// what it fetched for a later pull.
func (m Models) Pull(ctx context.Context, name string, progress func(PullProgress)) error {
	err := m.Client.Pull(ctx, &api.PullRequest{Model: name}, func(r api.ProgressResponse) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		progress(PullProgress{Status: r.Status, Digest: r.Digest, Total: r.Total, Completed: r.Completed})
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

// RegistryUnreachable reports whether a pull failed because Ollama could
// not reach the model library (no network), not because of the name.
func RegistryUnreachable(err error) bool {
	s := err.Error()
	for _, sign := range []string{"dial tcp", "no such host", "i/o timeout", "connection refused",
		"network is unreachable", "TLS handshake", "server misbehaving"} {
		if strings.Contains(s, sign) {
			return true
		}
	}
	return false
}
