package index

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/keyword"
)

// ownerChunk is the embeddings' kind of a document chunk.
const ownerChunk memory.OwnerKind = "chunk"

// Docs is the documents' store, for reading them.
func (ix *Index) Docs() *docstore.Store { return ix.docs }

// AddDocument stores a document and puts its chunks in the keyword index
// at once; the background work embeds them.
func (ix *Index) AddDocument(ctx context.Context, n docstore.New) (docstore.Document, docstore.Outcome, error) {
	d, outcome, err := ix.docs.Put(ctx, n)
	if err != nil || outcome == docstore.Unchanged || outcome == docstore.Moved {
		return d, outcome, err
	}
	if err := ix.indexDocKeywords(ctx); err != nil {
		ix.log.Warn("document chunks left for the background work", "document", d.ID, "err", err)
	}
	ix.Notify()
	return d, outcome, nil
}

// RemoveDocuments deletes the user's documents and takes them out of the
// keyword and vector indexes.
func (ix *Index) RemoveDocuments(ctx context.Context, userID string, ids []string) error {
	if err := ix.docs.Remove(ctx, userID, ids); err != nil {
		return err
	}
	if err := ix.indexDocKeywords(ctx); err != nil {
		ix.log.Warn("removed chunks left in the keyword index for now", "err", err)
		ix.Notify()
	}
	return nil
}

// IndexDocuments puts the chunks stored since (docstore.Store.Put) in the
// keyword index, and takes removed ones out.
func (ix *Index) IndexDocuments(ctx context.Context) error { return ix.indexDocKeywords(ctx) }

// indexDocKeywords brings the keyword index up to date with the document
// chunks of every user: new and changed ones in, removed ones out,
// wherever the change was made (here, another process, another device).
func (ix *Index) indexDocKeywords(ctx context.Context) error {
	for {
		list, err := ix.docs.ChunksNeedingKeywordIndex(ctx, keywordBatch)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			break
		}
		if err := ix.indexAndMark(ctx, chunkDocs(list), func() error { return ix.docs.MarkKeywordIndexed(ctx, list) }); err != nil {
			return err
		}
	}
	for {
		ids, err := ix.docs.GoneFromStore(ctx, keywordBatch)
		if err != nil || len(ids) == 0 {
			return err
		}
		err = ix.kw.Hold(ctx, func() error {
			if err := ix.kw.Delete(ids...); err != nil {
				return fmt.Errorf("keyword index: %w", err)
			}
			return ix.docs.ForgetChunks(ctx, ids)
		})
		if err != nil {
			return err
		}
		ix.mu.Lock()
		var loaded []vecKey
		for k := range ix.vecs {
			if k.kind == ownerChunk {
				loaded = append(loaded, k)
			}
		}
		ix.mu.Unlock()
		for _, k := range loaded {
			ix.forgetVectorsOf(k, ids)
		}
	}
}

// EmbedDocuments embeds the document chunks without vectors under the
// current model: the background work does it, `docs add` too while it
// waits. Without an embedding model it does nothing.
func (ix *Index) EmbedDocuments(ctx context.Context) error {
	after := ""
	return ix.embedBacklog(ctx, func(model string, limit int) ([]owned, error) {
		list, err := ix.docs.ChunksNeedingEmbedding(ctx, model, after, limit)
		if len(list) > 0 {
			after = list[len(list)-1].ID
		}
		return chunkOwners(list), err
	})
}

func chunkOwners(list []docstore.Chunk) []owned {
	items := make([]owned, len(list))
	for i, c := range list {
		items[i] = owned{id: c.ID, userID: c.UserID, hash: c.Hash, text: strings.TrimSpace(c.Heading + "\n" + c.Text), kind: ownerChunk}
	}
	return items
}

// Document search limits.
const (
	DefaultDocLimit = 5
	MaxDocLimit     = 50
)

// DocQuery is a search over one user's documents.
type DocQuery struct {
	UserID     string
	Text       string
	Limit      int    // 1-50, default 5
	Collection string // only this collection when set
}

// DefaultDocSimilarity is the least cosine similarity at which a passage
// counts as close in meaning (IndexOptions.DocSimilarity), the same as
// recall's default for notes found only by meaning: below it the vector
// ranking leaves a passage out, so a query about nothing in the documents
// finds nothing rather than the least unlike passages.
const DefaultDocSimilarity = 0.5

// DocHit is a passage of a document that matches a query: what a citation
// needs.
type DocHit struct {
	DocumentID string    `json:"document_id"`
	Path       string    `json:"path"`
	Title      string    `json:"title"`
	Collection string    `json:"collection,omitempty"`
	Type       string    `json:"type"`
	Chunk      int       `json:"chunk"`
	Heading    string    `json:"heading,omitempty"`
	Page       int       `json:"page,omitempty"`
	Snippet    string    `json:"snippet"`
	Passage    string    `json:"passage"`
	Score      float64   `json:"score"`
	MatchedBy  MatchKind `json:"matched_by"`
	Distance   *float64  `json:"distance,omitempty"`
}

// SearchDocs ranks the user's document chunks for q like Search ranks
// turns: BM25 and vectors side by side, fused with RRF.
func (ix *Index) SearchDocs(ctx context.Context, q DocQuery) ([]DocHit, error) {
	if q.Limit == 0 {
		q.Limit = DefaultDocLimit
	}
	if q.Limit > MaxDocLimit {
		q.Limit = MaxDocLimit
	}
	if err := checkSearch(q.UserID, &q.Limit); err != nil {
		return nil, err
	}
	if strings.TrimSpace(q.Text) == "" {
		return []DocHit{}, nil
	}
	var (
		vecHits []vectorHit
		vecErr  error
		vecDone = make(chan struct{})
	)
	go func() {
		defer close(vecDone)
		vecHits, vecErr = ix.vectorRank(ctx, ownerChunk, q.UserID, q.Text, nil)
	}()
	kwHits, err := ix.kw.Search(ctx, keyword.Query{UserID: q.UserID, Text: q.Text, Limit: candidates, Kinds: []keyword.Kind{keyword.KindChunk}, Exact: true})
	<-vecDone
	if err != nil {
		return nil, fmt.Errorf("search documents: %w", err)
	}
	if vecErr != nil {
		ix.log.Warn("vector search of documents unavailable", "err", vecErr)
	}
	kwIDs := make([]string, len(kwHits))
	for i, h := range kwHits {
		kwIDs[i] = h.ID
	}
	vecHits = slices.DeleteFunc(vecHits, func(h vectorHit) bool { return h.similarity < ix.docFloor })
	if q.Collection != "" {
		if kwIDs, vecHits, err = ix.inCollection(ctx, q, kwIDs, vecHits); err != nil {
			return nil, err
		}
	}
	return ix.docResults(ctx, q, ix.fuse(kwIDs, vecHits, q.Limit))
}

// inCollection keeps the candidates whose document is in q's collection.
func (ix *Index) inCollection(ctx context.Context, q DocQuery, kwIDs []string, vecHits []vectorHit) ([]string, []vectorHit, error) {
	docs, err := ix.docs.List(ctx, q.UserID, q.Collection)
	if err != nil {
		return nil, nil, err
	}
	in := make(map[string]bool, len(docs))
	for _, d := range docs {
		in[d.ID] = true
	}
	docOf := func(chunkID string) string { return chunkID[:max(strings.LastIndexByte(chunkID, ':'), 0)] }
	ids := kwIDs[:0:0]
	for _, id := range kwIDs {
		if in[docOf(id)] {
			ids = append(ids, id)
		}
	}
	hits := vecHits[:0:0]
	for _, h := range vecHits {
		if in[docOf(h.id)] {
			hits = append(hits, h)
		}
	}
	return ids, hits, nil
}

// docResults loads the passages and their documents for the fused hits.
func (ix *Index) docResults(ctx context.Context, q DocQuery, list []*fused) ([]DocHit, error) {
	ids := fusedIDs(list)
	chunks, err := ix.docs.ChunksByID(ctx, q.UserID, ids)
	if err != nil {
		return nil, err
	}
	var docIDs []string
	for _, c := range chunks {
		docIDs = append(docIDs, c.DocumentID)
	}
	docs, err := ix.docs.DocumentsByID(ctx, q.UserID, distinct(docIDs))
	if err != nil {
		return nil, err
	}
	return hydrate(list, chunks, func(f *fused, c docstore.Chunk) (DocHit, bool) {
		d, ok := docs[c.DocumentID]
		return DocHit{
			DocumentID: d.ID, Path: d.Path, Title: d.Title, Collection: d.Collection, Type: d.Type,
			Chunk: c.Number, Heading: c.Heading, Page: c.Page, Passage: c.Text, Snippet: ix.snippet(c.Text, q.Text, 240),
			Score: ix.normalised(f.score), MatchedBy: f.matchedBy(), Distance: f.vectorDistance(),
		}, ok
	}), nil
}

// snippet is about n runes of s on one line, around the first word of it
// that the keyword ranking matches with a word of query (its start when
// none is there).
func (ix *Index) snippet(s, query string, n int) string {
	s = text.OneLine(head(s, maxSnippetScan))
	return snippetAt(s, ix.kw.FirstMatch(s, query), n)
}

// snippetAt is about n runes of the one-line s around byte offset at
// (its start when at is -1).
func snippetAt(s string, at, n int) string {
	lead := n / 3 // runes of context before the match (snippetLead for a turn)
	if at < 0 || utf8.RuneCountInString(s[:at]) < lead || utf8.RuneCountInString(s) <= n {
		return text.Cut(s, n)
	}
	start := at
	for range lead {
		_, size := utf8.DecodeLastRuneInString(s[:start])
		start -= size
	}
	for start < at { // from the start of a word
		r, size := utf8.DecodeRuneInString(s[start:])
		if unicode.IsSpace(r) {
			break
		}
		start += size
	}
	return "…" + text.Cut(strings.TrimSpace(s[start:]), n)
}

// Passage recall: a passage of the user's documents goes into a prompt
// only when it is clearly about the prompt, since it costs the model
// hundreds of tokens. By meaning, its cosine similarity must reach
// MinSimilarity (DefaultPassageSimilarity); by words (no embedding model,
// or no close vector), it must hold most of the prompt's content words:
// at least two distinct words of four letters or more, and at least
// PassageWordShare of them.
const (
	DefaultPassageSimilarity = 0.6
	PassageWordShare         = 0.6
)

// PassageQuery asks for the passage worth putting into a prompt.
type PassageQuery struct {
	UserID        string
	Text          string
	MinSimilarity float64 // default DefaultPassageSimilarity
}

// RecallPassage returns the user's passage most relevant to q.Text if it
// is relevant enough (ok false otherwise).
func (ix *Index) RecallPassage(ctx context.Context, q PassageQuery) (DocHit, bool, error) {
	if q.MinSimilarity <= 0 {
		q.MinSimilarity = DefaultPassageSimilarity
	}
	hits, err := ix.SearchDocs(ctx, DocQuery{UserID: q.UserID, Text: q.Text, Limit: 3})
	if err != nil || len(hits) == 0 {
		return DocHit{}, false, err
	}
	for _, h := range hits {
		if h.Distance != nil && 1-*h.Distance >= q.MinSimilarity {
			return h, true, nil
		}
	}
	for _, h := range hits {
		if h.MatchedBy != MatchVector && wordShare(q.Text, h.Heading+"\n"+h.Passage) {
			return h, true, nil
		}
	}
	return DocHit{}, false, nil
}

// wordShare says whether passage holds at least two of the prompt's
// content words (four letters or more) and at least PassageWordShare of
// them.
func wordShare(prompt, passage string) bool {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	have := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(passage), func(r rune) bool { return !isWord(r) }) {
		have[w] = true
	}
	want := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(prompt), func(r rune) bool { return !isWord(r) }) {
		if len([]rune(w)) >= 4 {
			want[w] = true
		}
	}
	found := 0
	for w := range want {
		if have[w] {
			found++
		}
	}
	return found >= 2 && float64(found) >= PassageWordShare*float64(len(want))
}

// DefaultAttachedPassages is how many passages of the documents just
// attached a prompt carries.
const DefaultAttachedPassages = 3

// AttachedQuery asks for the passages of documents just attached that a
// prompt should carry.
type AttachedQuery struct {
	UserID    string
	Text      string
	Documents []string // their ids
	Limit     int      // passages at most (default DefaultAttachedPassages)
}

// AttachedPassages returns passages of q.Documents for q.Text with no bar
// to pass (the user attached them to be read): documents of at most Limit
// passages in all come whole, in order; else the passages search ranks
// first for the prompt, then the documents' first ones, up to Limit.
func (ix *Index) AttachedPassages(ctx context.Context, q AttachedQuery) ([]DocHit, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultAttachedPassages
	}
	var docs []docstore.Document
	total := 0
	for _, id := range q.Documents {
		d, err := ix.docs.Get(ctx, q.UserID, id)
		switch {
		case errors.Is(err, memory.ErrNotFound): // removed since, or another user's
			continue
		case err != nil:
			return nil, err
		}
		docs, total = append(docs, d), total+d.Chunks
	}
	var out []DocHit
	have := func(doc string, chunk int) bool {
		return slices.ContainsFunc(out, func(o DocHit) bool { return o.DocumentID == doc && o.Chunk == chunk })
	}
	if total > q.Limit {
		hits, err := ix.SearchDocs(ctx, DocQuery{UserID: q.UserID, Text: q.Text, Limit: MaxDocLimit})
		if err != nil {
			return nil, err
		}
		for _, h := range hits {
			if len(out) < q.Limit && slices.ContainsFunc(docs, func(d docstore.Document) bool { return d.ID == h.DocumentID }) {
				out = append(out, h)
			}
		}
	}
	// Then each document from its start: only the chunks that may be taken
	// are read (a document may hold thousands).
	for _, d := range docs {
		var ids []string
		for i := 0; i < d.Chunks && len(out)+len(ids) < q.Limit; i++ {
			if !have(d.ID, i) {
				ids = append(ids, docstore.ChunkID(d.ID, i))
			}
		}
		chunks, err := ix.docs.ChunksByID(ctx, q.UserID, ids)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if c, ok := chunks[id]; ok {
				out = append(out, DocHit{DocumentID: d.ID, Path: d.Path, Title: d.Title, Collection: d.Collection, Type: d.Type,
					Chunk: c.Number, Heading: c.Heading, Page: c.Page, Passage: c.Text})
			}
		}
	}
	return out, nil
}
