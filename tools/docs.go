package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mneme-dev/mneme/memory/index"
)

// FileSearchName is the name of the document search tool.
const FileSearchName = "file_search"

// maxCollectionRunes bounds file_search's collection argument.
const maxCollectionRunes = 100

//go:embed file_search.md
var fileSearchDoc string

// DocSearcher searches the user's documents; *index.Index has it.
type DocSearcher interface {
	SearchDocs(ctx context.Context, q index.DocQuery) ([]index.DocHit, error)
}

// Citation is a passage a tool gave the model: what a screen lists as a
// numbered source under the answer.
type Citation struct {
	N          int    `json:"n"`
	DocumentID string `json:"document_id"`
	Path       string `json:"path"`
	Title      string `json:"title"`
	Heading    string `json:"heading,omitempty"`
	Page       int    `json:"page,omitempty"`
	Chunk      int    `json:"chunk"`
	Passage    string `json:"passage"`
}

// citer is a tool's output that cites passages: New puts them in the
// Result beside the JSON.
type citer interface {
	cited() []Citation
}

// FileHit is one file_search result.
type FileHit struct {
	Citation
	Score float64 `json:"score"`
}

// FileSearchOut is what file_search returns.
type FileSearchOut struct {
	Results []FileHit `json:"results"`
	Query   string    `json:"query"`
	Note    string    `json:"note,omitempty"`
}

func (o FileSearchOut) cited() []Citation {
	out := make([]Citation, len(o.Results))
	for i, h := range o.Results {
		out[i] = h.Citation
	}
	return out
}

// StoredCitations are the citations of a stored result of tool name (the
// content of its tool message): file_search's, none for any other tool or
// for content that is not a file_search result (an error).
func StoredCitations(name, content string) []Citation {
	if name != FileSearchName {
		return nil
	}
	var out FileSearchOut
	if json.Unmarshal([]byte(content), &out) != nil || len(out.Results) == 0 {
		return nil
	}
	return out.cited()
}

// NoteNoDocuments is file_search's note when nothing matched.
const NoteNoDocuments = "no matching passage in the user's documents; they add files with `mneme docs add PATH` or /attach PATH in the chat"

type fileSearchArgs struct {
	Query      string `json:"query"`
	MaxResults *int   `json:"max_results"`
	Collection string `json:"collection"`
}

func (a fileSearchArgs) Validate() error {
	if err := checkQuery(a.Query, "max_results", a.MaxResults); err != nil {
		return err
	}
	if a.Collection == "" {
		return nil
	}
	return checkText("collection", a.Collection, 1, maxCollectionRunes)
}

// FileSearch is file_search(query, max_results, collection): a hybrid
// search of the user's documents whose results carry citations. The
// passages of one turn are numbered on from those its earlier calls gave,
// so that [n] names one passage in the answer.
func FileSearch(docs DocSearcher) Tool {
	spec := searchSpec(FileSearchName, fileSearchDoc, countParam("max_results", "passages"),
		Param{Name: "collection", Type: String, Description: "Only search this collection of documents (optional)."})
	var numbers turnNumbers
	return New(spec, func(ctx context.Context, s Session, a fileSearchArgs) (any, error) {
		if s.UserID == "" {
			return nil, ErrNoUser
		}
		out := FileSearchOut{Results: []FileHit{}, Query: a.Query}
		hits, err := docs.SearchDocs(ctx, index.DocQuery{UserID: s.UserID, Text: a.Query, Limit: orDefault(a.MaxResults, DefaultTopK), Collection: a.Collection})
		if err != nil {
			return nil, err
		}
		first := numbers.take(s, len(hits))
		for i, h := range hits {
			out.Results = append(out.Results, FileHit{Score: round(h.Score), Citation: Citation{
				N: first + i, DocumentID: h.DocumentID, Path: h.Path, Title: h.Title, Heading: h.Heading,
				Page: h.Page, Chunk: h.Chunk, Passage: h.Passage,
			}})
		}
		if len(out.Results) == 0 {
			out.Note = NoteNoDocuments
		}
		return out, nil
	})
}

// turnNumbers numbers the passages given within one turn.
type turnNumbers struct {
	mu   sync.Mutex
	turn string
	next int
}

// take reserves n numbers in s's turn and returns the first.
func (t *turnNumbers) take(s Session, n int) int {
	key := fmt.Sprintf("%s:%d", s.ConversationID, s.TurnNumber)
	t.mu.Lock()
	defer t.mu.Unlock()
	if key != t.turn || s.ConversationID == "" {
		t.turn, t.next = key, 1
	}
	first := t.next
	t.next += n
	return first
}
