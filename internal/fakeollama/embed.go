package fakeollama

import (
	"hash/fnv"
	"math"
	"net/http"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"
)

// FailEmbed makes every following POST /api/embed answer with HTTP status
// and {"error": msg}, until ClearEmbedFailure. A status of 0 clears it.
func (s *Server) FailEmbed(status int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embedFail = nil
	if status != 0 {
		s.embedFail = &failure{status: status, msg: msg}
	}
}

// ClearEmbedFailure undoes FailEmbed: embeddings succeed again.
func (s *Server) ClearEmbedFailure() { s.FailEmbed(0, "") }

// EmbedRequests returns deep copies of every embed request received, in
// order, including failed ones. Input is a string or a []any of strings,
// as decoded from JSON.
func (s *Server) EmbedRequests() []api.EmbedRequest {
	return decodeAll[api.EmbedRequest](&s.mu, &s.embeds)
}

// EmbedDim returns the length of the vectors the server returns.
func (s *Server) EmbedDim() int { return s.embedDim }

// handleEmbed serves POST /api/embed. A request's "dimensions" (if smaller
// than the server's) selects shorter vectors, computed with [Embedding] at
// that size.
func (s *Server) handleEmbed(w http.ResponseWriter, r *http.Request) {
	var req api.EmbedRequest
	raw, ok := readBody(w, r, &req)
	if !ok {
		return
	}
	s.mu.Lock()
	s.embeds = append(s.embeds, raw)
	fail := s.embedFail
	s.mu.Unlock()

	var input []string
	switch in := req.Input.(type) {
	case nil:
	case string:
		if in != "" {
			input = append(input, in)
		}
	case []any:
		for _, v := range in {
			text, ok := v.(string)
			if !ok {
				writeError(w, http.StatusBadRequest, "invalid input type")
				return
			}
			input = append(input, text)
		}
	default:
		writeError(w, http.StatusBadRequest, "invalid input type")
		return
	}

	if _, ok := s.model(req.Model); !ok {
		writeError(w, http.StatusNotFound, "model '"+req.Model+"' not found")
		return
	}
	if fail != nil {
		writeError(w, fail.status, fail.msg)
		return
	}

	resp := api.EmbedResponse{Model: req.Model, Embeddings: [][]float32{}}
	for _, text := range input {
		dim := s.embedDim
		if req.Dimensions > 0 && req.Dimensions < dim {
			// Ollama truncates and renormalises; hashing into fewer buckets
			// keeps short vectors non-zero and still meaningful.
			dim = req.Dimensions
		}
		v := Embedding(text, dim)
		resp.Embeddings = append(resp.Embeddings, v)
		resp.PromptEvalCount += max(len(words(text)), 1)
	}
	writeJSON(w, http.StatusOK, resp)
}

// Embedding returns the vector the server computes for text: a
// deterministic, L2-normalised feature-hashing embedding of dim float32s.
// Every lowercased word (weight 1) and word bigram (weight 0.5) is hashed
// with FNV-1a to a signed coordinate, so texts that share words have a
// higher cosine similarity than unrelated texts.
func Embedding(text string, dim int) []float32 {
	v := make([]float32, dim)
	add := func(feature string, weight float32) {
		h := fnv.New64a()
		h.Write([]byte(feature))
		sum := h.Sum64()
		if sum>>63 == 1 {
			weight = -weight
		}
		v[sum%uint64(dim)] += weight
	}
	ws := words(text)
	for i, w := range ws {
		add("w:"+w, 1)
		if i > 0 {
			add("b:"+ws[i-1]+" "+w, 0.5)
		}
	}
	if isZero(v) { // no words (or cancelling hashes): still a stable unit vector
		add("t:"+text, 1)
	}
	return normalise(v)
}

func isZero(v []float32) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}

// words splits text into lowercased runs of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// normalise scales v to unit length (in place) and returns it.
func normalise(v []float32) []float32 {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	n := float32(math.Sqrt(sum))
	for i := range v {
		v[i] /= n
	}
	return v
}
