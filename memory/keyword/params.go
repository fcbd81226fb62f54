package keyword

// params are the ranking knobs. defaultParams holds the tuned values; the
// LoCoMo evaluation varies them for the ablation table in README.md.
type params struct {
	candidates int // documents fetched from Bleve per query before rescoring

	// Ablation switches (all false in production).
	bleveScore bool // rank by Bleve's first-stage score instead of rescoring
	indexIDF   bool // idf over the whole index instead of the user's documents
	exhaustive bool // fetch without pruning (what tests compare pruning with)

	k1, b  float64 // BM25 saturation and length normalisation of the rescoring
	idfPow float64 // a query term weighs its idf (among the user's documents) to this power
	coord  float64 // a score is multiplied by (share of the query's terms matched)^coord

	title      float64 // weight of query terms found in the conversation title
	when       float64 // weight of a year, month, weekday or part of day the query names ("in 2023", "in June") matching the time written
	date       float64 // weight of a day or month of a year the query names ("8 May 2023", "May 2023", "yesterday") matching it
	answerType float64 // a document holding the answer type asked for scores (1+answerType) times more

	neighbour float64 // share of each adjacent turn's relevance added to a turn's
	convPrior float64 // share of its conversation's score added to a document's
	convTop   int     // a conversation's score sums its best convTop relevances

	prfDocs   int     // feedback documents (0 disables query expansion)
	prfTerms  int     // expansion terms taken from them
	prfWeight float64 // weight of the expansion's relevance relative to the query's
}

func defaultParams() params {
	return params{
		candidates: 200,
		k1:         1.2,
		b:          0.75,
		idfPow:     2,
		coord:      1,
		title:      0.3,
		when:       0.3,
		date:       0.5,
		answerType: 0.4,
		neighbour:  0.3,
		convPrior:  0.1,
		convTop:    3,
		prfDocs:    3,
		prfTerms:   10,
		prfWeight:  0.2,
	}
}
