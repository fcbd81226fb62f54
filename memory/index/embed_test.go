package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/flock"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/vector"
)

func TestChunksOverlapAndCover(t *testing.T) {
	words := make([]string, 1000)
	for i := range words {
		words[i] = "w" + strings.Repeat("x", i%7)
	}
	text := strings.Join(words, " ")
	if got := Chunks("short text", 512); len(got) != 1 || got[0] != "short text" {
		t.Fatalf("short: %q", got)
	}
	chunks := Chunks(text, 100)
	if len(chunks) < 2 {
		t.Fatalf("%d chunks", len(chunks))
	}
	var total int
	for i, c := range chunks {
		if len(c) > 100*charsPerToken {
			t.Fatalf("chunk %d has %d chars", i, len(c))
		}
		total += len(strings.Fields(c))
		if i > 0 {
			prev := strings.Fields(chunks[i-1])
			first := strings.Fields(c)[0]
			if prev[len(prev)-len(prev)/10] != first && prev[len(prev)-1] == first {
				t.Fatalf("chunk %d does not overlap the previous one", i)
			}
		}
	}
	overlap := float64(total-len(words)) / float64(len(words))
	if overlap < 0.05 || overlap > 0.2 {
		t.Fatalf("overlap %.2f, want about 10%%", overlap)
	}
	last := strings.Fields(chunks[len(chunks)-1])
	if last[len(last)-1] != words[len(words)-1] {
		t.Fatal("the end of the text is not covered")
	}
	// A single word longer than a chunk still makes progress.
	if got := Chunks(strings.Repeat("y", 1000)+" z", 10); len(got) != 2 {
		t.Fatalf("giant word: %d chunks", len(got))
	}
}

// TestOneProcessEmbedsInTheBackground: while another process embeds (it
// holds embed.lock), an open index does not send the same turns to the
// model; once the lock is free, it embeds them.
func TestOneProcessEmbedsInTheBackground(t *testing.T) {
	s := openTest(t)
	seed(t, s)
	dir := t.TempDir()
	emb := &topicEmbedder{}
	ix := openIndex(t, s, dir, emb, "m")
	ctx := context.Background()
	if err := ix.catchUp(ctx); err != nil {
		t.Fatal(err)
	}
	if err := ix.syncTurns(ctx); err != nil {
		t.Fatal(err)
	}
	other, err := os.OpenFile(filepath.Join(dir, embedLockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if !flock.Try(other, flock.Exclusive) {
		t.Fatal("the lock is taken")
	}
	if busy, _ := ix.backgroundEmbed(ctx); !busy {
		t.Fatal("embedded while another process holds the lock")
	}
	emb.Mu.Lock()
	n := len(emb.Inputs)
	emb.Mu.Unlock()
	if n != 0 {
		t.Fatalf("%d texts sent to the model while another process embeds", n)
	}
	flock.Unlock(other)
	if busy, _ := ix.backgroundEmbed(ctx); busy {
		t.Fatal("did not embed once the lock was free")
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM embeddings WHERE kind = 'turn'`); n == 0 {
		t.Fatal("the turns were not embedded")
	}
}

// wideEmbedder is topicEmbedder padded to dim dimensions, as large
// embedding models give (qwen3-embedding:8b: 4096).
type wideEmbedder struct {
	topicEmbedder
	dim int
}

func (e *wideEmbedder) Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error) {
	resp, err := e.topicEmbedder.Embed(ctx, req)
	if err != nil {
		return nil, err
	}
	for i, v := range resp.Embeddings {
		resp.Embeddings[i] = append(v, make([]float32, e.dim-len(v))...)
	}
	return resp, nil
}

func TestLargeEmbeddingModelsSearchByMeaning(t *testing.T) {
	s := openTest(t)
	cats, _ := seed(t, s)
	ix := openIndex(t, s, t.TempDir(), &wideEmbedder{dim: 4096}, "qwen3-embedding:8b")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := search(t, ix, "alice", "feline")
	if len(res) == 0 || res[0].ConversationID != cats.ID || res[0].MatchedBy != MatchVector {
		t.Fatalf("a 4096-dimensional model does not find by meaning: %+v", res)
	}
}

func TestVectorsTooLongForTheIndexLeaveKeywordSearch(t *testing.T) {
	s := openTest(t)
	cats, _ := seed(t, s)
	ix := openIndex(t, s, t.TempDir(), &wideEmbedder{dim: vector.MaxDim + 1}, "huge")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := search(t, ix, "alice", "kitten")
	if len(res) == 0 || res[0].ConversationID != cats.ID || res[0].MatchedBy != MatchKeyword {
		t.Fatalf("keyword search with an unusable embedding model: %+v", res)
	}
	st, err := ix.Status(context.Background())
	if err != nil || !strings.Contains(st.EmbedError, "dimensions") {
		t.Fatalf("status does not say why search is by keyword only: %+v, %v", st, err)
	}
}

// Vectors an older mneme or another device stored that the index cannot
// take are left out of search by meaning, not fatal to it.
func TestStoredVectorsTooLongAreLeftOut(t *testing.T) {
	s := openTest(t)
	cats, _ := seed(t, s)
	dir := t.TempDir()
	first, err := OpenIndex(context.Background(), s, dir, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	first.Close()
	turns, err := s.TurnsNeedingEmbedding(context.Background(), "topics", "", 100)
	if err != nil || len(turns) == 0 {
		t.Fatalf("turns needing vectors: %v, %v", turns, err)
	}
	for _, turn := range turns {
		bad := memory.EmbeddingSet{OwnerID: turn.ID, Kind: memory.OwnerTurn, UserID: turn.UserID, Model: "topics", Hash: turn.Hash,
			Chunks: []string{turn.Text}, Vectors: [][]float32{make([]float32, vector.MaxDim+1)}}
		bad.Vectors[0][0] = 1
		if err := s.SaveEmbeddings(context.Background(), bad); err != nil {
			t.Fatal(err)
		}
	}
	ix := openIndex(t, s, dir, &topicEmbedder{}, "topics")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := search(t, ix, "alice", "kitten")
	if len(res) == 0 || res[0].ConversationID != cats.ID {
		t.Fatalf("search beside vectors of too many dimensions: %+v", res)
	}
}

// smallBatchesOnly embeds at most two texts a request and fails on more,
// as a slow model does within a search's few seconds.
type smallBatchesOnly struct{ topicEmbedder }

func (e *smallBatchesOnly) Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error) {
	if in, ok := req.Input.([]string); ok && len(in) > 2 {
		return nil, context.DeadlineExceeded
	}
	return e.topicEmbedder.Embed(ctx, req)
}

// TestBudgetedDrainMakesProgress: a drain that can only get small batches
// through saves their vectors, newest turns first, so that each search or
// ask within its budget moves the backlog on; it lost one large request
// every time.
func TestBudgetedDrainMakesProgress(t *testing.T) {
	s := openTest(t)
	var newest memory.Conversation
	for i := range 10 {
		newest = chat(t, s, "alice", "Pets", fmt.Sprintf("my kitten number %d", i), "cute")
	}
	ix := openIndex(t, s, t.TempDir(), &smallBatchesOnly{}, "topics")
	ix.Drain(context.Background()) // fails on its third batch
	st, err := ix.Status(context.Background())
	if err != nil || st.Pending != 8 {
		t.Fatalf("status after a drain of small batches: %+v, %v", st, err)
	}
	found := false
	for _, r := range search(t, ix, "alice", "feline") {
		found = found || r.ConversationID == newest.ID
	}
	if !found {
		t.Fatal("the newest turn is not searchable by meaning")
	}
}
