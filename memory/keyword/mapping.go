package keyword

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/custom"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/whitespace"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
)

// Version identifies the analyzer and mapping. Bump it whenever either
// changes: Open then reports ErrStale for indexes built by another version.
const Version = "keyword-6"

// Bleve field names.
const (
	fieldKind   = "kind"
	fieldUser   = "user"
	fieldConv   = "conv"
	fieldNumber = "num"
	fieldTime   = "time"
	fieldText   = "text"  // analyzed terms of the whole turn, stored for feedback
	fieldTitle  = "title" // analyzed terms of the conversation title
	fieldWhen   = "when"  // tokens of the time written ("y2023 mo05 wdmonday ... d20230508"), see whenTokens
	fieldTypes  = "types" // answer types the text holds ("time")
)

// termsAnalyzer is the Bleve analyzer of pre-analyzed fields: it only splits
// on whitespace. It is registered on the mapping, not globally.
const termsAnalyzer = "mneme_terms"

func newMapping() (*mapping.IndexMappingImpl, error) {
	im := bleve.NewIndexMapping()
	im.ScoringModel = index.BM25Scoring
	err := im.AddCustomAnalyzer(termsAnalyzer, map[string]interface{}{
		"type":          custom.Name,
		"tokenizer":     whitespace.Name,
		"token_filters": []string{},
	})
	if err != nil {
		return nil, err
	}
	im.DefaultAnalyzer = termsAnalyzer
	im.IndexDynamic = false
	im.StoreDynamic = false
	im.DocValuesDynamic = false

	dm := bleve.NewDocumentStaticMapping()
	dm.AddFieldMappingsAt(fieldKind, keywordField(true))
	dm.AddFieldMappingsAt(fieldUser, keywordField(false))
	dm.AddFieldMappingsAt(fieldConv, keywordField(true))
	number := bleve.NewNumericFieldMapping()
	number.Index, number.Store, number.DocValues, number.IncludeInAll = false, true, false, false
	dm.AddFieldMappingsAt(fieldNumber, number)
	when := bleve.NewDateTimeFieldMapping()
	when.Store, when.DocValues, when.IncludeInAll = false, false, false
	dm.AddFieldMappingsAt(fieldTime, when)
	for _, f := range []string{fieldText, fieldTitle, fieldWhen, fieldTypes} {
		dm.AddFieldMappingsAt(f, termsField(true))
	}
	im.DefaultMapping = dm
	return im, nil
}

func keywordField(store bool) *mapping.FieldMapping {
	f := bleve.NewKeywordFieldMapping()
	f.Analyzer = keyword.Name
	f.Store, f.DocValues, f.IncludeInAll, f.IncludeTermVectors = store, false, false, false
	return f
}

func termsField(store bool) *mapping.FieldMapping {
	f := bleve.NewTextFieldMapping()
	f.Analyzer = termsAnalyzer
	f.Store, f.DocValues, f.IncludeInAll, f.IncludeTermVectors = store, false, false, false
	return f
}
