// Package indextest holds a scripted embedding model for the tests of the
// index and of its users (sync).
package indextest

import (
	"context"
	"math"
	"strings"
	"sync"

	"github.com/ollama/ollama/api"
)

// TopicEmbedder is a scripted embedding model: each topic's words point the
// same way, so texts about one topic are close whatever words they use.
type TopicEmbedder struct {
	Mu     sync.Mutex
	Inputs []string // every text embedded, in order
	Fail   error    // when set, Embed fails with it
}

var topics = [][]string{
	{"cat", "kitten", "feline", "tom"},
	{"car", "engine", "vehicle", "tyre"},
	{"lisbon", "portugal", "alfama", "tram"},
	{"bread", "sourdough", "flour", "bake"},
}

// Embed embeds each text as its topic words: one dimension a topic.
func (e *TopicEmbedder) Embed(_ context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if e.Fail != nil {
		return nil, e.Fail
	}
	var texts []string
	switch in := req.Input.(type) {
	case string:
		texts = []string{in}
	case []string:
		texts = in
	}
	resp := &api.EmbedResponse{Model: req.Model}
	for _, t := range texts {
		e.Inputs = append(e.Inputs, t)
		v := make([]float32, len(topics)+1)
		v[len(topics)] = 0.05 // every text a little alike
		for i, words := range topics {
			for _, w := range words {
				if strings.Contains(strings.ToLower(t), w) {
					v[i]++
				}
			}
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for i := range v {
			v[i] /= float32(math.Sqrt(n))
		}
		resp.Embeddings = append(resp.Embeddings, v)
	}
	return resp, nil
}

// Count is how many texts were embedded.
func (e *TopicEmbedder) Count() int {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	return len(e.Inputs)
}
